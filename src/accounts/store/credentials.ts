import { QueryTypes } from 'sequelize';
import { db } from '../../db';
import { asBool } from '../../db/sql';
import type { Transaction } from '../../users/store';

/**
 * users.password_hash: read and written only here (the users store's records never carry it, so no
 * presenter or log line can show it). The hash is an argon2id PHC string (accounts/passwords.ts).
 */

export interface Credentials {
  userId: number;
  isRegistered: boolean;
  passwordHash: string | null;
}

/** A user's credentials by username, exact case as the unique index holds it; null when there is no such user. */
export async function findCredentialsByUsername(username: string): Promise<Credentials | null> {
  const rows = await db().sequelize.query<{ id: number; is_registered: unknown; password_hash: string | null }>(
    'SELECT id, is_registered, password_hash FROM users WHERE username = :username',
    { replacements: { username }, type: QueryTypes.SELECT },
  );
  const row = rows[0];
  return row ? { userId: Number(row.id), isRegistered: asBool(row.is_registered), passwordHash: row.password_hash } : null;
}

export async function findPasswordHash(userId: number, transaction?: Transaction): Promise<string | null> {
  const rows = await db().sequelize.query<{ password_hash: string | null }>('SELECT password_hash FROM users WHERE id = :userId', {
    replacements: { userId },
    type: QueryTypes.SELECT,
    transaction,
  });
  return rows[0]?.password_hash ?? null;
}

export async function setPasswordHash(userId: number, passwordHash: string, transaction?: Transaction): Promise<void> {
  await db().sequelize.query('UPDATE users SET password_hash = :passwordHash, updated_at = :now WHERE id = :userId', {
    replacements: { passwordHash, userId, now: new Date() },
    transaction,
  });
}

/** A guest becomes a registered user: its username and password, in the claim's transaction (the caller locked and checked the row). */
export async function registerGuest(userId: number, username: string, passwordHash: string, transaction: Transaction): Promise<void> {
  await db().sequelize.query(
    'UPDATE users SET username = :username, password_hash = :passwordHash, is_registered = :yes, updated_at = :now WHERE id = :userId',
    {
      replacements: { username, passwordHash, userId, now: new Date(), yes: true },
      transaction,
    },
  );
}
