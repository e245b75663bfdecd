import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Transaction } from 'sequelize';
import { db } from '../db';
import { asDateOrNull, type Row } from '../db/sql';
import { toUser, userColumns } from '../db/records';
import { ConflictError } from '../errors';
import { ApiKey, User } from '../db/models';
import { publish } from '../events/bus';
import { lockUserQuotas, QuotaExceededError } from './quotas';

const KEY_PREFIX = 'dk_';
/** Characters of a key shown to operators (`dk_` and 8 more): enough to tell keys apart, useless to an attacker. */
export const SHOWN_PREFIX_LENGTH = 11;

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** A new key: 32 random bytes, base64url. Returned once; only its hash is stored. */
export async function issueApiKey(user: User, name = 'default', transaction?: Transaction): Promise<{ key: string; apiKey: ApiKey }> {
  const key = KEY_PREFIX + randomBytes(32).toString('base64url');
  const apiKey = await ApiKey.create(
    { userId: user.id, name, prefix: key.slice(0, SHOWN_PREFIX_LENGTH), keyHash: hashKey(key), revokedAt: null },
    { transaction },
  );
  return { key, apiKey };
}

/** What authenticating a key answers: its user (a model instance, as commands take it) and the key's id. */
export interface Authenticated {
  user: User;
  apiKeyId: number;
}

const AUTHENTICATE = `SELECT k.id AS "keyId", k.key_hash AS "keyHash", k.revoked_at AS "revokedAt", ${userColumns('u')}
  FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.key_hash = $1`;

/**
 * The key's user, or null for an unknown, malformed or revoked key. Every authenticated request runs
 * this: one plain query (db/sql.ts), and the user built from the row without a second read.
 */
export async function authenticate(key: string): Promise<Authenticated | null> {
  if (key.length > 200) return null;
  const hash = hashKey(key);
  const [row] = await db().sql.query<Row & { keyId: unknown; keyHash: string; revokedAt: unknown }>(AUTHENTICATE, [hash]);
  // The lookup is by hash, so a timing difference reveals nothing of the key; compare anyway so the
  // check does not depend on the database's collation.
  if (!row || asDateOrNull(row.revokedAt) !== null) return null;
  if (!timingSafeEqual(Buffer.from(row.keyHash, 'hex'), Buffer.from(hash, 'hex'))) return null;
  const user = User.build(toUser(row), { isNewRecord: false, raw: true });
  return { user, apiKeyId: Number(row.keyId) };
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
  const where = prefixOrKey.length > SHOWN_PREFIX_LENGTH ? { keyHash: hashKey(prefixOrKey) } : { prefix: prefixOrKey };
  const owner = scope.userId === undefined ? {} : { userId: scope.userId };
  const keyIds = await db().transaction(async (transaction) => {
    if (scope.keepLastKey && scope.userId !== undefined) {
      // Two revocations of a user's last two keys at once must not both pass the count: lock the user
      // (PostgreSQL; SQLite's writes are serialized already).
      await User.findByPk(scope.userId, { attributes: ['id'], lock: transaction.LOCK.UPDATE, transaction });
    }
    const live = await ApiKey.findAll({ where: { ...where, ...owner, revokedAt: null }, attributes: ['id'], transaction });
    if (!live.length) return [];
    if (scope.keepLastKey && scope.userId !== undefined) {
      const all = await ApiKey.count({ where: { userId: scope.userId, revokedAt: null }, transaction });
      if (live.length >= all) throw new ConflictError('This is your last live key: create another before deleting it, or you could not use the API any more.', 'last_key');
    }
    const ids = live.map((k) => k.id);
    await ApiKey.update({ revokedAt: new Date() }, { where: { id: ids, revokedAt: null }, transaction });
    return ids;
  });
  // After the commit: this process's realtime layer drops the keys' sockets (the CLI, which has
  // none, tells the instances through Redis: scripts/cli.ts).
  if (keyIds.length) publish({ type: 'keys.revoked', keyIds });
  return keyIds;
}

/** revokeApiKeyIds, answering how many. */
export async function revokeApiKeys(prefixOrKey: string, scope: RevocationScope = {}): Promise<number> {
  return (await revokeApiKeyIds(prefixOrKey, scope)).length;
}

/** Live keys a user may hold at once: each is a way in, and listing them must stay small. */
export const MAX_LIVE_KEYS = 20;

/** A user's live keys, oldest first (only their shown prefixes: the keys themselves are not kept). */
export async function listLiveApiKeys(userId: number): Promise<ApiKey[]> {
  return ApiKey.findAll({ where: { userId, revokedAt: null }, order: [['id', 'ASC']] });
}

/** Another key for a user through the API, refused past MAX_LIVE_KEYS (409 `quota_exceeded`, like every quota: commands/quotas.ts). */
export async function issueOwnApiKey(user: User, name: string): Promise<{ key: string; apiKey: ApiKey }> {
  return db().transaction(async (transaction) => {
    await lockUserQuotas(user.id, transaction);
    const live = await ApiKey.count({ where: { userId: user.id, revokedAt: null }, transaction });
    if (live >= MAX_LIVE_KEYS) throw new QuotaExceededError(`You hold ${MAX_LIVE_KEYS} live API keys, and ${MAX_LIVE_KEYS} is the most allowed: delete one you no longer use (DELETE /api/1.0/user/key/{prefix}) to create another.`);
    return issueApiKey(user, name, transaction);
  });
}
