import { UnauthorizedError } from '../errors';
import { inTransaction, type UserRecord } from '../users/store';
import { hashPassword, passwordMatches } from './passwords';
import { checkNewPassword } from './policy';
import { endAllSessions } from './sessions';
import type { PasswordAttempt } from './signInAttempts';
import { findPasswordHash, setPasswordHash } from './store/credentials';

/**
 * A signed-in user changes their password, proving the current one (counted like a sign-in, so a
 * stolen session cannot guess it). Every session of the user ends, this browser's too.
 */
export async function changePassword(attempt: PasswordAttempt, address: string, user: UserRecord, current: string, next: string): Promise<void> {
  checkNewPassword(next);
  const right = await attempt(user.username, address, async () => passwordMatches(await findPasswordHash(user.id), current));
  if (!right) throw new UnauthorizedError('The current password is wrong.');
  const passwordHash = await hashPassword(next);
  await inTransaction((transaction) => setPasswordHash(user.id, passwordHash, transaction));
  await endAllSessions(user.id);
}
