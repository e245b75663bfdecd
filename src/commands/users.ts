import { randomBytes, randomUUID } from 'node:crypto';
import { Op, QueryTypes, UniqueConstraintError, col, fn, where } from 'sequelize';
import { db } from '../db';
import { ConflictError, ValidationError } from '../errors';
import { displayNameProblem, normalizeDisplayName } from '../lib/displayName';
import { User } from '../db/models';
import { issueApiKey } from './apiKeys';

/** A guest: a throw-away account with one key, so a browser can roll without signing up. */
export async function createGuest(): Promise<{ user: User; key: string }> {
  const suffix = randomBytes(4).toString('hex');
  return db().transaction(async (transaction) => {
    const user = await User.create({ uuid: randomUUID(), username: `guest-${suffix}`, name: `Guest ${suffix.slice(0, 4).toUpperCase()}`, isRegistered: false }, { transaction });
    const { key } = await issueApiKey(user, 'guest', transaction);
    return { user, key };
  });
}

/** Longest display name of a user (the column is 255 characters). */
export const USER_NAME_MAX = 255;

/** A registered user (operators' CLI). The display name is normalized and checked as participants' are. */
export async function createRegisteredUser(username: string, name = username): Promise<User> {
  const displayName = normalizeDisplayName(name);
  const problem = displayNameProblem(displayName, USER_NAME_MAX);
  if (problem !== null) throw new ValidationError([{ path: 'name', message: `NAME ${problem}` }]);
  const existing = await User.findOne({ where: { username } });
  if (existing) throw new ConflictError(`A user named "${username}" already exists.`);
  return User.create({ uuid: randomUUID(), username, name: displayName, isRegistered: true });
}

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
export async function updateOwnUser(user: User, changes: UserChanges): Promise<User> {
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
    return await db().transaction(async (transaction) => {
      if (username !== undefined && username !== user.username) {
        // The unique index is case-sensitive: renames check case-insensitively one at a time
        // (renames are rare; SQLite runs write transactions one at a time already).
        if (db().dialect === 'postgres') await db().sequelize.query('SELECT pg_advisory_xact_lock(:namespace, 0)', { replacements: { namespace: RENAME_LOCK }, transaction, type: QueryTypes.SELECT });
        const other = await User.findOne({ where: { [Op.and]: [where(fn('lower', col('username')), username.toLowerCase()), { id: { [Op.ne]: user.id } }] }, attributes: ['id'], transaction });
        if (other) throw taken(username);
      }
      return user.update(fields, { transaction });
    });
  } catch (err) {
    // A guest or an operator's CLI creating that exact name at the same moment: the unique index settles it.
    if (err instanceof UniqueConstraintError && username !== undefined) throw taken(username);
    throw err;
  }
}

/** Advisory lock namespace of renames; quotas use 7467, theme ids 7466, migrations 727274. */
const RENAME_LOCK = 7468;
