import { randomBytes, randomUUID } from 'node:crypto';
import { db } from '../db';
import { ConflictError, ValidationError } from '../errors';
import { displayNameProblem, normalizeDisplayName } from '../lib/displayName';
import { User } from '../models';
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
