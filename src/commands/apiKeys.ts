import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Transaction } from 'sequelize';
import { db } from '../db';
import { asDateOrNull, type Row } from '../db/sql';
import { toUser, userColumns } from '../db/records';
import { ApiKey, User } from '../models';
import { publish } from '../realtime/bus';

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

/**
 * Revoke every live key whose shown prefix (or the whole key) matches; answers the ids revoked.
 * After the commit, `keys.revoked` tells this process's realtime layer to drop their sockets (the
 * CLI, which has none, tells the instances through Redis: scripts/cli.ts).
 */
export async function revokeApiKeyIds(prefixOrKey: string): Promise<number[]> {
  const where = prefixOrKey.length > SHOWN_PREFIX_LENGTH ? { keyHash: hashKey(prefixOrKey) } : { prefix: prefixOrKey };
  const keyIds = await db().transaction(async (transaction) => {
    const live = await ApiKey.findAll({ where: { ...where, revokedAt: null }, attributes: ['id'], transaction });
    if (!live.length) return [];
    const ids = live.map((k) => k.id);
    await ApiKey.update({ revokedAt: new Date() }, { where: { id: ids, revokedAt: null }, transaction });
    return ids;
  });
  if (keyIds.length) publish({ type: 'keys.revoked', keyIds });
  return keyIds;
}

/** revokeApiKeyIds, answering how many. */
export async function revokeApiKeys(prefixOrKey: string): Promise<number> {
  return (await revokeApiKeyIds(prefixOrKey)).length;
}
