/**
 * Share requests (docs/api/share-requests.md): a theme's owner makes a link; any signed-in user who has it
 * can preview the theme and accept it into their dice box, while it is neither expired, used up nor revoked.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Op, col, literal, type Transaction } from 'sequelize';
import { db } from '../../db';
import { ConflictError, GoneError, NotFoundError } from '../../errors';
import { DiceBoxItem, ShareRequest, Theme, User } from '../../db/models';
import { authorizeShareRequestOwner, authorizeThemeShare, shareRequestState } from './policy';
import { publish } from '../../events/bus';
import { assertCanShare } from '../../commands/quotas';
import { recordRevocations, revocationOf } from '../store/shareRequests';
import { findLatestTheme, lockThemeId, type Paged } from '../publish';
import { latestOf } from '../versions';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Codes: 16 random bytes, base64url (22 characters): unguessable and URL-safe. */
const CODE = /^[A-Za-z0-9_-]{1,64}$/;

export interface ShareRequestInput {
  theme: string;
  expiresAt?: Date | null;
  maxUses?: number | null;
}

export interface ShareRequestChanges {
  expiresAt?: Date | null;
  maxUses?: number | null;
}

/** A share request with what presenting it needs: its sharer and the theme's latest version (null once deleted). */
export interface LoadedShareRequest {
  request: ShareRequest;
  theme: Theme | null;
}

const withUser = [{ model: User, as: 'user' }];

export function newShareCode(): string {
  return randomBytes(16).toString('base64url');
}

/** The latest version of each of `slugs`, in two small queries whatever their number. */
async function latestThemes(slugs: string[]): Promise<Map<string, Theme>> {
  const out = new Map<string, Theme>();
  if (!slugs.length) return out;
  const rows = await Theme.findAll({ where: { slug: [...new Set(slugs)] }, attributes: ['id', 'slug', 'version'] });
  const ids: number[] = [];
  for (const slug of new Set(rows.map((r) => r.slug))) ids.push(latestOf(rows.filter((r) => r.slug === slug), (r) => r.version)!.id);
  for (const theme of await Theme.findAll({ where: { id: ids } })) out.set(theme.slug, theme);
  return out;
}

async function loaded(requests: ShareRequest[]): Promise<LoadedShareRequest[]> {
  const themes = await latestThemes(requests.map((r) => r.themeSlug));
  return requests.map((request) => ({ request, theme: themes.get(request.themeSlug) ?? null }));
}

export async function createShareRequest(user: User, input: ShareRequestInput): Promise<LoadedShareRequest> {
  const theme = await findLatestTheme(input.theme, { withUser: false });
  if (!theme) throw new NotFoundError(`There is no theme "${input.theme}".`);
  authorizeThemeShare(user, theme);
  const request = await db().transaction(async (transaction) => {
    await assertCanShare(user.id, transaction);
    return ShareRequest.create(
      {
        id: randomUUID(),
        code: newShareCode(),
        userId: user.id,
        themeSlug: theme.slug,
        expiresAt: input.expiresAt ?? null,
        maxUses: input.maxUses ?? null,
      },
      { transaction },
    );
  });
  request.user = user;
  return { request, theme };
}

/** The caller's own share requests, newest first. */
export async function listShareRequests(user: User, page: number, perPage: number): Promise<Paged<LoadedShareRequest>> {
  const { rows, count } = await ShareRequest.findAndCountAll({
    where: { userId: user.id },
    include: withUser,
    order: [['createdAt', 'DESC'], ['id', 'ASC']],
    limit: perPage,
    offset: (page - 1) * perPage,
  });
  return { items: await loaded(rows), total: count };
}

/** One of the caller's share requests; someone else's is not found (its id says nothing). */
async function ownRequest(user: User, id: string, transaction?: Transaction): Promise<ShareRequest> {
  const request = UUID.test(id) ? await ShareRequest.findByPk(id, { include: withUser, transaction }) : null;
  if (!request) throw new NotFoundError('There is no such share request.');
  authorizeShareRequestOwner(user, request);
  return request;
}

export async function getShareRequest(user: User, id: string): Promise<LoadedShareRequest> {
  return (await loaded([await ownRequest(user, id)]))[0]!;
}

export async function updateShareRequest(user: User, id: string, changes: ShareRequestChanges): Promise<LoadedShareRequest> {
  const request = await ownRequest(user, id);
  const values: Partial<{ expiresAt: Date | null; maxUses: number | null }> = {};
  if (changes.expiresAt !== undefined) values.expiresAt = changes.expiresAt;
  if (changes.maxUses !== undefined) values.maxUses = changes.maxUses;
  await request.update(values);
  return (await loaded([request]))[0]!;
}

/** Revoke a share request: its link stops working at once. */
export async function revokeShareRequest(user: User, id: string): Promise<void> {
  await db().transaction(async (transaction) => {
    const request = await ownRequest(user, id, transaction);
    await recordRevocations([request.code], 'revoked', transaction);
    await request.destroy({ transaction });
  });
}

/** A live share request by code: 404 for a code that never existed, 410 for one that stopped working. */
async function liveRequestByCode(code: string, transaction?: Transaction): Promise<ShareRequest> {
  const request = CODE.test(code) ? await ShareRequest.findOne({ where: { code }, include: withUser, transaction }) : null;
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
export async function previewShareRequest(code: string): Promise<LoadedShareRequest> {
  const request = await liveRequestByCode(code);
  const loadedOne = (await loaded([request]))[0]!;
  if (!loadedOne.theme) throw new GoneError('The theme this link shared has been deleted.');
  return loadedOne;
}

/**
 * Accept a link: the theme's latest version goes into the caller's dice box and the link counts one use.
 * 409 when the theme is already there, 410 when the link expired, was used up or revoked. The use is
 * counted by a conditional UPDATE, so of two simultaneous accepts of a link with one use left exactly one
 * succeeds; the other's transaction (with its dice box entry) rolls back.
 */
export async function acceptShareRequest(user: User, code: string): Promise<Theme> {
  const accepted = await db().transaction(async (transaction) => {
    const request = await liveRequestByCode(code, transaction);
    // Not while the theme is being deleted or given a version: the entry must point at a version that stays.
    await lockThemeId(request.themeSlug, transaction);
    const theme = await findLatestTheme(request.themeSlug, { transaction });
    if (!theme) throw new GoneError('The theme this link shared has been deleted.');
    const now = new Date();
    const already = () => new ConflictError(`The theme "${theme.slug}" is already in your dice box.`, 'already_in_dice_box');
    if (await DiceBoxItem.count({ where: { userId: user.id, themeSlug: theme.slug }, transaction })) throw already();
    // A simultaneous accept by the same user meets the unique index (user_id, theme_slug): also a 409.
    await DiceBoxItem.create({ userId: user.id, themeSlug: theme.slug, themeId: theme.id }, { transaction }).catch((err: unknown) => {
      throw (err as Error).name === 'SequelizeUniqueConstraintError' ? already() : err;
    });
    const [counted] = await ShareRequest.update(
      { uses: literal('uses + 1') as unknown as number },
      {
        where: {
          id: request.id,
          [Op.and]: [
            { [Op.or]: [{ maxUses: null }, { uses: { [Op.lt]: col('max_uses') } }] },
            { [Op.or]: [{ expiresAt: null }, { expiresAt: { [Op.gt]: now } }] },
          ],
        },
        transaction,
      },
    );
    if (counted !== 1) throw new GoneError('This share link has just been used up: ask for a new one.');
    return theme;
  });
  publish({ type: 'dicebox.created', userId: user.id, themeId: accepted.id });
  // Answer what was added, as read inside the transaction (a later read could find it deleted already).
  return accepted;
}
