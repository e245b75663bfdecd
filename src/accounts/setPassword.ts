import { ConflictError } from '../errors';
import { inTransaction, type UserRecord } from '../users/store';
import { hashPassword } from './passwords';
import { checkNewPassword } from './policy';
import { endAllSessions } from './sessions';
import { setPasswordHash } from './store/credentials';

/**
 * An operator sets a registered user's password (the CLI's user:password): how a user made by the CLI
 * gets one, and how a forgotten one is replaced. Every session of the user ends. A guest has no
 * username of its own choosing yet: it claims its account instead (/claim).
 */
export async function setPasswordByOperator(user: UserRecord, password: string): Promise<void> {
  if (!user.isRegistered) throw new ConflictError(`"${user.username}" is a guest: it keeps its account on the /claim page, with a username and password of its own.`, 'guest');
  checkNewPassword(password);
  const passwordHash = await hashPassword(password);
  await inTransaction((transaction) => setPasswordHash(user.id, passwordHash, transaction));
  await endAllSessions(user.id);
}
