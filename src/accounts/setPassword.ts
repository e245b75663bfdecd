import { ConflictError } from '../errors';
import { inTransaction, type UserRecord } from '../users/store';
import { hashPassword } from './passwords';
import { checkNewPassword } from './policy';
import { endAllSessions } from './sessions';
import { setPasswordHash } from './store/credentials';

/**
 * An operator sets a registered user's password (the CLI's user:password): how a user made by the CLI
 * gets one, and how a forgotten one is replaced. Every session of the user ends, with its page keys. A guest has no
 * username of its own choosing yet: it claims its account instead (/claim).
 */
export async function setPasswordByOperator(user: UserRecord, password: string): Promise<number[]> {
  if (!user.isRegistered)
    throw new ConflictError(`"${user.username}" is a guest: it keeps its account on the /claim page, with a username and password of its own.`, 'guest');
  checkNewPassword(password);
  const passwordHash = await hashPassword(password);
  await inTransaction((transaction) => setPasswordHash(user.id, passwordHash, transaction));
  // The ids of the page keys revoked with the sessions: the CLI tells the running servers.
  return endAllSessions(user.id);
}
