/**
 * Share requests (docs/api/share-requests.md): a theme's owner makes a link; any signed-in user who has it
 * can preview the theme and accept it into their dice box (accept.ts), while it is neither expired, used
 * up nor revoked. This module: the owner's side (create, list, read, change, revoke).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { NotFoundError } from '../../errors';
import type { UserRecord } from '../../users/store';
import { authorizeShareRequestOwner, authorizeThemeShare } from './policy';
import { assertCanShare } from '../../users/quotas';
import type { Paged } from '../read';
import {
  deleteShareRequest,
  findShareRequest,
  insertShareRequest,
  listShareRequestsOf,
  recordRevocations,
  updateShareRequestLimits,
} from '../store/shareRequests';
import { findLatestTheme, inTransaction, latestThemesOf } from '../store/themes';
import type { ShareRequestRecord, ThemeRecord, ThemesTransaction } from '../store/records';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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
  request: ShareRequestRecord;
  theme: ThemeRecord | null;
}

export function newShareCode(): string {
  return randomBytes(16).toString('base64url');
}

export async function loaded(requests: ShareRequestRecord[]): Promise<LoadedShareRequest[]> {
  const themes = await latestThemesOf(requests.map((r) => r.themeSlug));
  return requests.map((request) => ({ request, theme: themes.get(request.themeSlug) ?? null }));
}

export async function createShareRequest(user: UserRecord, input: ShareRequestInput): Promise<LoadedShareRequest> {
  const theme = await findLatestTheme(input.theme, { withUser: false });
  if (!theme) throw new NotFoundError(`There is no theme "${input.theme}".`);
  authorizeThemeShare(user, theme);
  const request = await inTransaction(async (transaction) => {
    await assertCanShare(user.id, transaction);
    return insertShareRequest(
      {
        id: randomUUID(),
        code: newShareCode(),
        userId: user.id,
        themeSlug: theme.slug,
        expiresAt: input.expiresAt ?? null,
        maxUses: input.maxUses ?? null,
      },
      transaction,
    );
  });
  return { request: { ...request, user }, theme };
}

/** The caller's own share requests, newest first. */
export async function listShareRequests(user: Pick<UserRecord, 'id'>, page: number, perPage: number): Promise<Paged<LoadedShareRequest>> {
  const { rows, count } = await listShareRequestsOf(user.id, page, perPage);
  return { items: await loaded(rows), total: count };
}

/** One of the caller's share requests; someone else's is not found (its id says nothing). */
async function ownRequest(user: Pick<UserRecord, 'id'>, id: string, transaction?: ThemesTransaction): Promise<ShareRequestRecord> {
  const request = UUID.test(id) ? await findShareRequest(id, transaction) : null;
  if (!request) throw new NotFoundError('There is no such share request.');
  authorizeShareRequestOwner(user, request);
  return request;
}

export async function getShareRequest(user: Pick<UserRecord, 'id'>, id: string): Promise<LoadedShareRequest> {
  return (await loaded([await ownRequest(user, id)]))[0]!;
}

export async function updateShareRequest(user: Pick<UserRecord, 'id'>, id: string, changes: ShareRequestChanges): Promise<LoadedShareRequest> {
  await ownRequest(user, id);
  const values: Partial<{ expiresAt: Date | null; maxUses: number | null }> = {};
  if (changes.expiresAt !== undefined) values.expiresAt = changes.expiresAt;
  if (changes.maxUses !== undefined) values.maxUses = changes.maxUses;
  const updated = await updateShareRequestLimits(id, values);
  if (!updated) throw new NotFoundError('There is no such share request.');
  return (await loaded([updated]))[0]!;
}

/** Revoke a share request: its link stops working at once. */
export async function revokeShareRequest(user: Pick<UserRecord, 'id'>, id: string): Promise<void> {
  await inTransaction(async (transaction) => {
    const request = await ownRequest(user, id, transaction);
    await recordRevocations([request.code], 'revoked', transaction);
    await deleteShareRequest(request.id, transaction);
  });
}
