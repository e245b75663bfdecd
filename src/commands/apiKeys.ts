import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Transaction } from 'sequelize';
import { ApiKey, User } from '../models';

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

/** The key's user, or null for an unknown, malformed or revoked key. */
export async function authenticate(key: string): Promise<{ user: User; apiKey: ApiKey } | null> {
  if (key.length > 200) return null;
  const hash = hashKey(key);
  const apiKey = await ApiKey.findOne({ where: { keyHash: hash }, include: [{ model: User, as: 'user' }] });
  // The lookup is by hash, so a timing difference reveals nothing of the key; compare anyway so the
  // check does not depend on the database's collation.
  if (!apiKey || apiKey.revokedAt || !apiKey.user) return null;
  if (!timingSafeEqual(Buffer.from(apiKey.keyHash, 'hex'), Buffer.from(hash, 'hex'))) return null;
  return { user: apiKey.user, apiKey };
}

/** Revoke every live key whose shown prefix (or the whole key) matches; answers how many. */
export async function revokeApiKeys(prefixOrKey: string): Promise<number> {
  const where = prefixOrKey.length > SHOWN_PREFIX_LENGTH ? { keyHash: hashKey(prefixOrKey) } : { prefix: prefixOrKey };
  const [count] = await ApiKey.update({ revokedAt: new Date() }, { where: { ...where, revokedAt: null } });
  return count;
}
