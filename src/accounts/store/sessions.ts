import { db } from '../../db';
import { toUser, userColumns, type UserRecord } from '../../users/store';
import type { Row } from '../../db/sql';

/**
 * The sessions store: the only code that reads or writes the `sessions` table. A session is found by
 * the sha256 of its token (accounts/sessions.ts makes both); the token itself is never stored. Writes
 * run as transactions, which on SQLite take the database's one writer lock (db/index.ts).
 */

const write = (text: string, params: readonly unknown[]) => db().sql.transaction((query) => query(text, params));

export interface SessionOwner {
  sessionId: number;
  user: UserRecord;
}

/**
 * A new session; in the same transaction the user's expired sessions go, and the oldest beyond
 * `keep`, so the table holds what can still be used.
 */
export async function insertSession(userId: number, tokenHash: string, now: number, expiresMs: number, keep: number): Promise<void> {
  await db().sql.transaction(async (query) => {
    await query('DELETE FROM sessions WHERE user_id = $1 AND expires_ms <= $2', [userId, now]);
    await query('INSERT INTO sessions (token_hash, user_id, created_ms, expires_ms) VALUES ($1, $2, $3, $4)', [tokenHash, userId, now, expiresMs]);
    await query('DELETE FROM sessions WHERE user_id = $1 AND id NOT IN (SELECT id FROM sessions WHERE user_id = $1 ORDER BY id DESC LIMIT $2)', [userId, keep]);
  });
}

const FIND = `SELECT s.id AS "sessionId", ${userColumns('u')} FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = $1 AND s.expires_ms > $2`;

/** The live session with this token hash and its user, or null (unknown or expired). */
export async function findSessionByHash(tokenHash: string, now: number): Promise<SessionOwner | null> {
  const [row] = await db().sql.query<Row & { sessionId: unknown }>(FIND, [tokenHash, now]);
  return row ? { sessionId: Number(row.sessionId), user: toUser(row) } : null;
}

export async function deleteSessionByHash(tokenHash: string): Promise<void> {
  await write('DELETE FROM sessions WHERE token_hash = $1', [tokenHash]);
}

/** Every session of a user (password change: everyone signed in as them is signed out). */
export async function deleteUserSessions(userId: number): Promise<void> {
  await write('DELETE FROM sessions WHERE user_id = $1', [userId]);
}
