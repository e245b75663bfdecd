/**
 * Per-user quotas (docs/api.md, "Quotas"): how much one user may hold, whatever its request rate. Past a
 * limit a creation is a 409 `quota_exceeded` whose message names the quota, its limit and how to free room.
 *
 * Every check counts inside the transaction that then inserts, after `lockUserQuotas`, so that two
 * simultaneous requests cannot both take the last slot: on PostgreSQL a transaction-scoped advisory lock
 * keyed by the user id serializes them; on SQLite write transactions already run one at a time
 * (db/index.ts). The lock is always the last one a transaction takes (after a room's row lock or a theme
 * id's lock), so lock order stays the same everywhere and cannot deadlock.
 */
import { ConflictError } from '../errors';
import { perApp } from '../lib/appContext';
import { DEFAULT_QUOTAS, type Quotas } from '../quotaConfig';
import { lockUserQuotas, type Transaction } from './store';

/**
 * A user holds as much of something as its quota allows. 409: the request is valid and allowed, but
 * conflicts with what the user already holds; freeing room (the message says how) and sending it again
 * succeeds. Not 403 (nothing is forbidden to this user) nor 429 (waiting frees nothing).
 */
export class QuotaExceededError extends ConflictError {
  constructor(message: string) {
    super(message, 'quota_exceeded');
  }
}

/** This server's limits and counting functions (lib/appContext.ts). */
const configured = perApp(() => ({ limits: DEFAULT_QUOTAS as Readonly<Quotas>, counts: null as QuotaCounts | null }));

/** Set at start-up from the configuration (server.ts); the defaults apply until then. */
export function configureQuotas(quotas: Readonly<Quotas>): void {
  configured().limits = quotas;
}

export function currentQuotas(): Readonly<Quotas> {
  return configured().limits;
}

/**
 * What a user holds of the other features' things, counted by their stores
 * (src/rooms/store/quotaCounts.ts, src/themes/store/quotaCounts.ts) inside the checking transaction.
 * Users imports no other feature: the counts are handed over at start-up (server.ts).
 */
export interface QuotaCounts {
  /** Live rooms the user owns (deleted ones hold nothing). */
  roomsOwned(userId: number, transaction: Transaction): Promise<number>;
  /** Live rooms of others the user is a participant of. */
  roomsJoined(userId: number, transaction: Transaction): Promise<number>;
  /** Bytes of the backgrounds of the user's live rooms, but for room `exceptRoomId`'s. */
  roomBackgroundBytes(userId: number, exceptRoomId: number | null, transaction: Transaction): Promise<number>;
  /** Theme ids the user owns. */
  themesOwned(userId: number, transaction: Transaction): Promise<number>;
  /** Bytes of every file of every version of the user's themes. */
  themeAssetBytes(userId: number, transaction: Transaction): Promise<number>;
  /** Share requests the user has not revoked. */
  shareRequests(userId: number, transaction: Transaction): Promise<number>;
}

/** Set at start-up (server.ts), with the counting functions of the rooms and themes stores. */
export function configureQuotaCounts(quotaCounts: QuotaCounts): void {
  configured().counts = quotaCounts;
}

function counted(): QuotaCounts {
  const { counts } = configured();
  if (!counts) throw new Error('Quota counts not configured: call configureQuotaCounts() at start-up.');
  return counts;
}

/** "delete one" / "delete 3": how many to free when an operator lowered a limit below what a user holds. */
function howMany(count: number, limit: number): string {
  const excess = count - limit + 1;
  return excess <= 1 ? 'one' : String(excess);
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Before `userId` creates a room: live rooms it owns (deleted ones hold nothing). */
export async function assertCanOwnRoom(userId: number, transaction: Transaction): Promise<void> {
  await lockUserQuotas(userId, transaction);
  const limit = currentQuotas().roomsOwned;
  const count = await counted().roomsOwned(userId, transaction);
  if (count < limit) return;
  throw new QuotaExceededError(
    `You own ${plural(count, 'room')}, and ${limit} is the most allowed (ROOMS_PER_USER): delete ${howMany(count, limit)} to create another.`,
  );
}

/**
 * Before `userId` joins `room`: live rooms of others it is a participant of. Its own rooms do not count
 * (they have a quota of their own, and an owner who left may always come back).
 */
export async function assertCanJoinRoom(room: { userId: number }, userId: number, transaction: Transaction): Promise<void> {
  // The owner (rooms/policy.ts isOwner; users imports no other feature).
  if (room.userId === userId) return;
  await lockUserQuotas(userId, transaction);
  const limit = currentQuotas().roomsJoined;
  const count = await counted().roomsJoined(userId, transaction);
  if (count < limit) return;
  throw new QuotaExceededError(
    `You are a participant of ${plural(count, 'room')} of others, and ${limit} is the most allowed (ROOMS_JOINED_PER_USER): leave ${howMany(count, limit)} (DELETE /api/1.0/room/{slug}/participant/{id}) to join another.`,
  );
}

/** Before `userId` publishes the first version of a new theme id: theme ids it owns. */
export async function assertCanOwnTheme(userId: number, transaction: Transaction): Promise<void> {
  await lockUserQuotas(userId, transaction);
  const limit = currentQuotas().themesOwned;
  const count = await counted().themesOwned(userId, transaction);
  if (count < limit) return;
  throw new QuotaExceededError(
    `You own ${plural(count, 'theme')}, and ${limit} is the most allowed (THEMES_PER_USER): delete ${howMany(count, limit)} (DELETE /api/1.0/theme/{id}) to publish a new theme id; new versions of your themes are still accepted.`,
  );
}

/** Before a new version of `slug`, which has `existing` versions (read under the theme id's lock). */
export function assertCanAddVersion(slug: string, existing: number): void {
  const limit = currentQuotas().versionsPerTheme;
  if (existing < limit) return;
  throw new QuotaExceededError(
    `The theme "${slug}" has ${plural(existing, 'version')}, and ${limit} is the most allowed (VERSIONS_PER_THEME): publish it under a new theme id, or delete it (DELETE /api/1.0/theme/${slug}) to start over.`,
  );
}

function mebibytes(bytes: number): string {
  const mib = bytes / 1024 ** 2;
  return mib >= 10 || Number.isInteger(mib) ? `${Math.round(mib)} MiB` : `${mib.toFixed(1)} MiB`;
}

function size(bytes: number): string {
  return bytes < 1024 ** 2 ? `${plural(bytes, 'byte')}` : mebibytes(bytes);
}

/**
 * Before `userId` stores `adding` more bytes of uploads: every file of every version of its themes (a
 * version stores its own copy of what it inherits) and the backgrounds of its live rooms. `replacingRoomId`:
 * a room whose current background the upload replaces (its bytes are freed by it).
 */
export async function assertAssetRoom(userId: number, adding: number, transaction: Transaction, replacingRoomId: number | null = null): Promise<void> {
  // Storing nothing never needs room (a version without files, even when a lowered limit is passed already).
  if (adding <= 0) return;
  await lockUserQuotas(userId, transaction);
  const limit = currentQuotas().assetBytes;
  const used = (await counted().themeAssetBytes(userId, transaction)) + (await counted().roomBackgroundBytes(userId, replacingRoomId, transaction));
  if (used + adding <= limit) return;
  throw new QuotaExceededError(
    `This upload of ${size(adding)} would bring the files of your themes and room backgrounds to ${size(used + adding)}, over the ${size(limit)} allowed (ASSET_BYTES_PER_USER): delete a theme or a room background to make room.`,
  );
}

/**
 * Before `userId` creates a share request: every one it has not revoked. Expired and used-up requests
 * count too: they are still stored and listed, and a PATCH opens them again.
 */
export async function assertCanShare(userId: number, transaction: Transaction): Promise<void> {
  await lockUserQuotas(userId, transaction);
  const limit = currentQuotas().shareRequests;
  const count = await counted().shareRequests(userId, transaction);
  if (count < limit) return;
  throw new QuotaExceededError(
    `You have ${plural(count, 'share request')}, and ${limit} is the most allowed (SHARE_REQUESTS_PER_USER): revoke ${howMany(count, limit)} (DELETE /api/1.0/share-request/{id}; expired and used-up ones count until revoked) to create another.`,
  );
}
