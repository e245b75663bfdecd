import { randomUUID } from 'node:crypto';
import { ConflictError } from '../errors';
import { UniqueViolationError } from '../db/errors';
import { inTransaction, insertUser, lockRenames, usernameTakenByOther, type UserRecord } from '../users/store';
import { hashPassword } from './passwords';
import { authorizeSignUp, checkNewPassword, checkNewUsername } from './policy';
import { setPasswordHash } from './store/credentials';

export const usernameTaken = (username: string) => new ConflictError(`The username "${username}" is taken: choose another.`, 'username_taken');

/** A person makes an account: a registered user named after its username, with a password. */
export async function signUp(allowSignup: boolean, username: string, password: string): Promise<UserRecord> {
  authorizeSignUp(allowSignup);
  checkNewUsername(username);
  checkNewPassword(password);
  // Hashed before the transaction: 19 MiB and tens of ms of work must not hold the writer lock.
  const passwordHash = await hashPassword(password);
  try {
    return await inTransaction(async (transaction) => {
      // Usernames are unique regardless of case (users/update.ts): checked one at a time.
      await lockRenames(transaction);
      if (await usernameTakenByOther(username, -1, transaction)) throw usernameTaken(username);
      const user = await insertUser({ uuid: randomUUID(), username, name: username, isRegistered: true }, transaction);
      await setPasswordHash(user.id, passwordHash, transaction);
      return user;
    });
  } catch (err) {
    if (err instanceof UniqueViolationError) throw usernameTaken(username);
    throw err;
  }
}
