import { ConflictError, ValidationError } from '../errors';
import { UniqueViolationError } from '../db/errors';
import { displayNameProblem, normalizeDisplayName } from '../lib/displayName';
import { USER_NAME_MAX } from './create';
import { invalidate } from '../lib/invalidation';
import { inTransaction, lockRenames, updateUser, usernameTakenByOther, type UserRecord } from './store';

export interface UserChanges {
  name?: string;
  username?: string;
}

/** Guest usernames are made by createGuest: nobody may take one, or a future guest would collide. */
const GUEST_PREFIX = 'guest-';

const taken = (username: string) => new ConflictError(`The username "${username}" is taken: choose another.`, 'username_taken');

/**
 * A user changes their own name or username. Usernames are unique regardless of case, so that
 * "Alice" cannot pass for "alice"; the `guest-` prefix belongs to guests.
 */
export async function updateOwnUser(user: UserRecord, changes: UserChanges): Promise<UserRecord> {
  const username = changes.username;
  if (username !== undefined && username !== user.username && username.toLowerCase().startsWith(GUEST_PREFIX)) {
    throw new ValidationError([{ path: 'username', message: `username may not start with "${GUEST_PREFIX}": that prefix names guests.` }]);
  }
  // The same rules as every display name (lib/displayName.ts): NFKC, nothing invisible, no text-direction controls.
  const name = changes.name === undefined ? undefined : normalizeDisplayName(changes.name);
  const problem = name === undefined ? null : displayNameProblem(name, USER_NAME_MAX);
  if (problem !== null) throw new ValidationError([{ path: 'name', message: `name ${problem}` }]);
  const fields = { ...(name !== undefined ? { name } : {}), ...(username !== undefined ? { username } : {}) };
  try {
    const updated = await inTransaction(async (transaction) => {
      if (username !== undefined && username !== user.username) {
        // The unique index is case-sensitive: renames check case-insensitively one at a time.
        await lockRenames(transaction);
        if (await usernameTakenByOther(username, user.id, transaction)) throw taken(username);
      }
      return updateUser(user, fields, transaction);
    });
    // The user rides in cached keys and rooms (their name on rolls): drop them everywhere before answering.
    await invalidate({ users: [user.id] });
    return updated;
  } catch (err) {
    // A guest or an operator's CLI creating that exact name at the same moment: the unique index settles it.
    if (err instanceof UniqueViolationError && username !== undefined) throw taken(username);
    throw err;
  }
}
