import { randomBytes, randomUUID } from 'node:crypto';
import { db } from '../db';
import { ConflictError } from '../errors';
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

/** A registered user (operators' CLI). */
export async function createRegisteredUser(username: string, name = username): Promise<User> {
  const existing = await User.findOne({ where: { username } });
  if (existing) throw new ConflictError(`A user named "${username}" already exists.`);
  return User.create({ uuid: randomUUID(), username, name, isRegistered: true });
}
