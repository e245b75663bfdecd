import { perApp } from '../lib/appContext';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ConflictError, NotFoundError } from '../errors';
import { BoundedCache } from '../lib/cache';
import { announce, cacheTtlMs, onInvalidation } from '../lib/invalidation';
import { QuotaExceededError } from './quotas';
import {
  countLiveKeys,
  countQuotaKeys,
  findKeyByHash,
  findLiveKeyIds,
  inTransaction,
  insertApiKey,
  lockUser,
  lockUserQuotas,
  revokeKeys,
  touchKeyLastUsed,
  KEY_USE_PRECISION_MS,
  type ApiKeyRecord,
  type Transaction,
  type UserRecord,
} from './store';

const KEY_PREFIX = 'dk_';
/** Characters of a key shown to operators (`dk_` and 8 more): enough to tell keys apart, useless to an attacker. */
export const SHOWN_PREFIX_LENGTH = 11;

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** A new key's text (32 random bytes, base64url), its shown prefix and the hash that is stored. */
export function newKeyMaterial(): { key: string; prefix: string; keyHash: string } {
  const key = KEY_PREFIX + randomBytes(32).toString('base64url');
  return { key, prefix: key.slice(0, SHOWN_PREFIX_LENGTH), keyHash: hashKey(key) };
}

/** A new key. Returned once; only its hash is stored. */
export async function issueApiKey(user: Pick<UserRecord, 'id'>, name = 'default', transaction?: Transaction): Promise<{ key: string; apiKey: ApiKeyRecord }> {
  const { key, prefix, keyHash } = newKeyMaterial();
  const apiKey = await insertApiKey({ userId: user.id, name, prefix, keyHash }, transaction);
  return { key, apiKey };
}

/** What authenticating a key answers: its user (a plain record) and the key's id. */
export interface Authenticated {
  user: UserRecord;
  apiKeyId: number;
}

/**
 * Live keys recently authenticated, by hash (never the key itself): every authenticated request asks.
 * Pushed invalidation (lib/invalidation.ts): a revocation drops its keys, a user's change their keys.
 * Unknown and revoked keys are not cached (they are read each time, and counted as failures).
 */
const liveKeys = perApp(() => new BoundedCache<string, Authenticated>({ maxWeight: 20_000, ttlMs: cacheTtlMs }));

onInvalidation((inv) => {
  if (inv.all) return liveKeys().clear();
  if (inv.keys?.length) {
    const keys = new Set(inv.keys);
    liveKeys().deleteWhere((a) => keys.has(a.apiKeyId));
  }
  if (inv.users?.length) {
    const users = new Set(inv.users);
    liveKeys().deleteWhere((a) => users.has(a.user.id));
  }
});

/**
 * The key's user, or null for an unknown, malformed or revoked key. Every authenticated request runs
 * this: from the cache above, else one query (users/store.ts), the user read from the same row.
 */
export async function authenticate(key: string): Promise<Authenticated | null> {
  if (key.length > 200) return null;
  const hash = hashKey(key);
  return liveKeys().getOrLoad(hash, async () => {
    const found = await findKeyByHash(hash);
    // The lookup is by hash, so a timing difference reveals nothing of the key; compare anyway so the
    // check does not depend on the database's collation.
    if (!found || found.revoked) return null;
    if (!timingSafeEqual(Buffer.from(found.keyHash, 'hex'), Buffer.from(hash, 'hex'))) return null;
    // "Last used" in the owner's settings: only when the key is read from the database (not from this
    // cache) and the recorded use is over a minute old, so a busy key costs one write a minute. A
    // failed write must not fail the request.
    if (!found.lastUsedAt || Date.now() - found.lastUsedAt.getTime() >= KEY_USE_PRECISION_MS) await touchKeyLastUsed(found.keyId).catch(() => undefined);
    return { user: found.user, apiKeyId: found.keyId };
  });
}

/** Whose keys a revocation may touch: the CLI revokes any; a user through the API only their own, never their last. */
export interface RevocationScope {
  userId?: number;
  /** Refuse (409 `last_key`) a revocation that would leave the user without a live key. */
  keepLastKey?: boolean;
}

/**
 * Revoke every live key whose shown prefix (or the whole key) matches, within `scope`; answers the ids
 * revoked. The CLI and `DELETE /api/1.0/user/key/{prefix}` both come through here, so both behave alike.
 */
export async function revokeApiKeyIds(prefixOrKey: string, scope: RevocationScope = {}): Promise<number[]> {
  const match = prefixOrKey.length > SHOWN_PREFIX_LENGTH ? { keyHash: hashKey(prefixOrKey) } : { prefix: prefixOrKey };
  const keyIds = await inTransaction(async (transaction) => {
    const guardLast = scope.keepLastKey && scope.userId !== undefined;
    // Two revocations of a user's last two keys at once must not both pass the count: lock the user.
    if (guardLast) await lockUser(scope.userId!, transaction);
    const ids = await findLiveKeyIds({ ...match, userId: scope.userId }, transaction);
    if (!ids.length) return [];
    if (guardLast && ids.length >= (await countLiveKeys(scope.userId!, transaction))) {
      throw new ConflictError('This is your last live key: create another before deleting it, or you could not use the API any more.', 'last_key');
    }
    await revokeKeys(ids, transaction);
    return ids;
  });
  // After the commit, before the answer: every instance's key cache drops them (the CLI has no
  // transport: it publishes the same invalidation itself, scripts/cli.ts), and this process's realtime
  // layer drops the keys' sockets.
  await announceRevokedKeys(keyIds);
  return keyIds;
}

/**
 * After a commit that revoked keys, before the answer: every instance's key cache drops them and the
 * realtime layer closes their sockets (also for the keys a web session took with it: accounts/sessions.ts).
 */
export async function announceRevokedKeys(keyIds: readonly number[]): Promise<void> {
  if (keyIds.length) await announce({ keys: [...keyIds] }, { type: 'keys.revoked', keyIds: [...keyIds] });
}

/** revokeApiKeyIds, answering how many. */
export async function revokeApiKeys(prefixOrKey: string, scope: RevocationScope = {}): Promise<number> {
  return (await revokeApiKeyIds(prefixOrKey, scope)).length;
}

/** `DELETE /user/key/{prefix}`: a user revokes one of their own live keys, never their last (404 when none matches). */
export async function revokeOwnApiKey(user: Pick<UserRecord, 'id'>, prefix: string): Promise<void> {
  const count = await revokeApiKeys(prefix, { userId: user.id, keepLastKey: true });
  if (!count) throw new NotFoundError(`You have no live key "${prefix}".`);
}

/** Live keys a user may hold at once: each is a way in, and listing them must stay small. */
export const MAX_LIVE_KEYS = 20;

/** Another key for a user through the API, refused past MAX_LIVE_KEYS (409 `quota_exceeded`, like every quota: users/quotas.ts). */
export async function issueOwnApiKey(user: Pick<UserRecord, 'id'>, name: string): Promise<{ key: string; apiKey: ApiKeyRecord }> {
  return inTransaction(async (transaction) => {
    await lockUserQuotas(user.id, transaction);
    const live = await countQuotaKeys(user.id, transaction);
    if (live >= MAX_LIVE_KEYS)
      throw new QuotaExceededError(
        `You hold ${MAX_LIVE_KEYS} live API keys, and ${MAX_LIVE_KEYS} is the most allowed: delete one you no longer use (DELETE /api/1.0/user/key/{prefix}) to create another.`,
      );
    return issueApiKey(user, name, transaction);
  });
}
