import { NotFoundError } from '../errors';
import { issueOwnApiKey, revokeApiKeys } from '../users/apiKeys';
import { listLiveApiKeysWithUse, type UserRecord } from '../users/store';

/**
 * The developer settings' keys (/account). Creation goes through the API's own use case (the same
 * MAX_LIVE_KEYS quota); revocation through the one the API and the CLI share (users/apiKeys.ts), so it
 * reaches every instance's cache and drops the key's open sockets. Unlike the API, the page may revoke
 * the user's last key: the person is signed in on the web, so they cannot lock themselves out.
 */

export interface DeveloperKey {
  label: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
}

export async function listDeveloperKeys(user: Pick<UserRecord, 'id'>): Promise<DeveloperKey[]> {
  const keys = await listLiveApiKeysWithUse(user.id);
  return keys.map((k) => ({ label: k.name, prefix: k.prefix, createdAt: k.createdAt.toISOString(), lastUsedAt: k.lastUsedAt?.toISOString() ?? null }));
}

/** A new key: the whole key is answered here only (only its hash is stored). */
export async function createDeveloperKey(user: Pick<UserRecord, 'id'>, label: string): Promise<{ key: string; prefix: string }> {
  const { key, apiKey } = await issueOwnApiKey(user, label);
  return { key, prefix: apiKey.prefix };
}

export async function revokeDeveloperKey(user: Pick<UserRecord, 'id'>, prefix: string): Promise<void> {
  const count = await revokeApiKeys(prefix, { userId: user.id });
  if (!count) throw new NotFoundError(`You have no live key "${prefix}".`);
}
