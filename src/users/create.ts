import { randomBytes, randomUUID } from 'node:crypto';
import { ConflictError, ValidationError } from '../errors';
import { displayNameProblem, normalizeDisplayName } from '../lib/displayName';
import { issueApiKey } from './apiKeys';
import { authorizeGuestSignUp } from './policy';
import { findUserByUsername, inTransaction, insertUser, type UserRecord } from './store';

/**
 * A guest: a throw-away account with one key, so a browser can roll without signing up. `guestsAllowed`:
 * the operator's ALLOW_GUESTS, for a guest asking through the API (403 when off).
 */
export async function createGuest(guestsAllowed = true): Promise<{ user: UserRecord; key: string }> {
  authorizeGuestSignUp(guestsAllowed);
  const suffix = randomBytes(4).toString('hex');
  return inTransaction(async (transaction) => {
    const user = await insertUser(
      { uuid: randomUUID(), username: `guest-${suffix}`, name: `Guest ${suffix.slice(0, 4).toUpperCase()}`, isRegistered: false },
      transaction,
    );
    const { key } = await issueApiKey(user, 'guest', transaction);
    return { user, key };
  });
}

/** Longest display name of a user (the column is 255 characters). */
export const USER_NAME_MAX = 255;

/** A registered user (operators' CLI). The display name is normalized and checked as participants' are. */
export async function createRegisteredUser(username: string, name = username): Promise<UserRecord> {
  const displayName = normalizeDisplayName(name);
  const problem = displayNameProblem(displayName, USER_NAME_MAX);
  if (problem !== null) throw new ValidationError([{ path: 'name', message: `NAME ${problem}` }]);
  const existing = await findUserByUsername(username);
  if (existing) throw new ConflictError(`A user named "${username}" already exists.`);
  return insertUser({ uuid: randomUUID(), username, name: displayName, isRegistered: true });
}
