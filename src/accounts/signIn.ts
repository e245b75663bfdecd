import { UnauthorizedError } from '../errors';
import { findUsersByIds, type UserRecord } from '../users/store';
import { passwordMatches } from './passwords';
import type { PasswordAttempt } from './signInAttempts';
import { findCredentialsByUsername } from './store/credentials';

/** One sentence for every failure, so the answer never tells whether the username exists. */
export const WRONG_CREDENTIALS = 'Wrong username or password.';

/**
 * Check a username and password; answers the user. An unknown username, a user without a password
 * (a guest, or one made by the CLI) and a wrong password all do the same hashing work, count the same
 * failures and get the same 401.
 */
export async function signIn(attempt: PasswordAttempt, address: string, username: string, password: string): Promise<UserRecord> {
  let userId: number | null = null;
  const right = await attempt(username, address, async () => {
    const found = await findCredentialsByUsername(username);
    const ok = await passwordMatches(found?.passwordHash ?? null, password);
    if (ok && found) userId = found.userId;
    return ok && found !== null;
  });
  if (!right || userId === null) throw new UnauthorizedError(WRONG_CREDENTIALS);
  const [user] = await findUsersByIds([userId]);
  if (!user) throw new UnauthorizedError(WRONG_CREDENTIALS);
  return user;
}
