import { UnauthorizedError } from '../errors';
import { UniqueViolationError } from '../db/errors';
import { invalidate } from '../lib/invalidation';
import { authenticate } from '../users/apiKeys';
import { findUsersByIds, inTransaction, lockRenames, lockUser, usernameTakenByOther, type UserRecord } from '../users/store';
import { hashPassword } from './passwords';
import { authorizeClaim, checkNewPassword, checkNewUsername } from './policy';
import { usernameTaken } from './signUp';
import { registerGuest } from './store/credentials';

/**
 * A guest claims its account: the browser proves it holds the guest's key, and the guest user itself
 * becomes registered (same id, so its rooms, rolls, dice box and keys stay), with the username and
 * password chosen.
 */
export async function claimGuest(guestKey: string, username: string, password: string): Promise<UserRecord> {
  const found = guestKey ? await authenticate(guestKey) : null;
  if (!found) throw new UnauthorizedError('This browser holds no guest key this server knows: play as a guest on a board first, or sign up.');
  authorizeClaim(found.user.isRegistered);
  checkNewUsername(username);
  checkNewPassword(password);
  const passwordHash = await hashPassword(password);
  const userId = found.user.id;
  try {
    await inTransaction(async (transaction) => {
      await lockUser(userId, transaction);
      // Read again under the lock: two claims at once must not both pass.
      const [current] = await findUsersByIds([userId], transaction);
      authorizeClaim(current?.isRegistered ?? true);
      await lockRenames(transaction);
      if (await usernameTakenByOther(username, userId, transaction)) throw usernameTaken(username);
      await registerGuest(userId, username, passwordHash, transaction);
    });
  } catch (err) {
    if (err instanceof UniqueViolationError) throw usernameTaken(username);
    throw err;
  }
  // The user rides in cached keys and rooms: every instance drops them before the answer.
  await invalidate({ users: [userId] });
  const [user] = await findUsersByIds([userId]);
  return user!;
}
