/** Following a share link: previewing what it offers and accepting it into one's dice box. */
import { ConflictError, GoneError, NotFoundError } from '../../errors';
import { UniqueViolationError } from '../../db/errors';
import type { UserRecord } from '../../users/store';
import { announce } from '../../lib/invalidation';
import { shareRequestState } from './policy';
import { loaded, type LoadedShareRequest } from './share';
import { addToDiceBox, isInDiceBox } from '../store/diceBox';
import { countShareUse, findShareRequestByCode, revocationOf } from '../store/shareRequests';
import { findLatestTheme, inTransaction, lockThemeId } from '../store/themes';
import type { ShareRequestRecord, ThemeRecord, ThemesTransaction } from '../store/records';

/** Codes: 16 random bytes, base64url (22 characters): unguessable and URL-safe. */
const CODE = /^[A-Za-z0-9_-]{1,64}$/;

/** A live share request by code: 404 for a code that never existed, 410 for one that stopped working. */
export async function liveRequestByCode(code: string, transaction?: ThemesTransaction): Promise<ShareRequestRecord> {
  const request = CODE.test(code) ? await findShareRequestByCode(code, transaction) : null;
  if (!request) {
    const reason = CODE.test(code) ? await revocationOf(code, transaction) : null;
    if (reason === 'revoked') throw new GoneError('This share link was revoked by the person who shared it.');
    if (reason === 'theme_deleted') throw new GoneError('The theme this link shared has been deleted.');
    throw new NotFoundError('There is no such share link: check that it was copied whole.');
  }
  const state = shareRequestState(request, new Date());
  if (state === 'expired') throw new GoneError('This share link has expired: ask for a new one.');
  if (state === 'used_up') throw new GoneError('This share link has been used as many times as it allows: ask for a new one.');
  return request;
}

/** What a link offers (any signed-in user, or the share page). */
export async function previewShareRequest(code: string): Promise<LoadedShareRequest & { theme: ThemeRecord }> {
  const request = await liveRequestByCode(code);
  const loadedOne = (await loaded([request]))[0]!;
  if (!loadedOne.theme) throw new GoneError('The theme this link shared has been deleted.');
  return { request: loadedOne.request, theme: loadedOne.theme };
}

/**
 * Accept a link: the theme's latest version goes into the caller's dice box and the link counts one use.
 * 409 when the theme is already there, 410 when the link expired, was used up or revoked. The use is
 * counted by a conditional UPDATE, so of two simultaneous accepts of a link with one use left exactly one
 * succeeds; the other's transaction (with its dice box entry) rolls back.
 */
export async function acceptShareRequest(user: Pick<UserRecord, 'id'>, code: string): Promise<ThemeRecord> {
  const accepted = await inTransaction(async (transaction) => {
    const request = await liveRequestByCode(code, transaction);
    // Not while the theme is being deleted or given a version: the entry must point at a version that stays.
    await lockThemeId(request.themeSlug, transaction);
    const theme = await findLatestTheme(request.themeSlug, { transaction });
    if (!theme) throw new GoneError('The theme this link shared has been deleted.');
    const now = new Date();
    const already = () => new ConflictError(`The theme "${theme.slug}" is already in your dice box.`, 'already_in_dice_box');
    if (await isInDiceBox(user.id, theme.slug, transaction)) throw already();
    // A simultaneous accept by the same user meets the unique index (user_id, theme_slug): also a 409.
    await addToDiceBox(user.id, theme.slug, theme.id, transaction).catch((err: unknown) => {
      throw err instanceof UniqueViolationError ? already() : err;
    });
    if (!(await countShareUse(request.id, now, transaction))) throw new GoneError('This share link has just been used up: ask for a new one.');
    return theme;
  });
  await announce({ diceBoxes: [user.id] }, { type: 'dicebox.created', userId: user.id, themeId: accepted.id });
  // Answer what was added, as read inside the transaction (a later read could find it deleted already).
  return accepted;
}
