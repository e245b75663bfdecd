import { db } from '../../db';
import type { Query, Row } from '../../db/sql';
import {
  insertWebSessionKeyWith,
  liveWebSessionKeyIds,
  revokeKeyIdsWith,
  revokeWebSessionKeysWith,
  toUser,
  userColumns,
  type NewApiKey,
  type UserRecord,
} from '../../users/store';

/**
 * The sessions store: the only code that reads or writes the `sessions` table. A session is found by
 * the sha256 of its token (accounts/sessions.ts makes both); the token itself is never stored. Writes
 * run as transactions, which on SQLite take the database's one writer lock (db/index.ts).
 *
 * A session's page keys (api_keys.web_session_id, accounts/pageKey.ts) are revoked in the transaction
 * that deletes the session, through the users store: every deletion here answers the ids of the keys
 * it revoked, for the caller to announce (caches and open sockets) once committed.
 */

export interface SessionOwner {
  sessionId: number;
  expiresMs: number;
  user: UserRecord;
}

const ids = (rows: Array<{ id: unknown }>) => rows.map((r) => Number(r.id));

/**
 * Delete the sessions `select` names and revoke their page keys. The rows go first (DELETE ...
 * RETURNING): on PostgreSQL that waits for a page key being issued to the session to commit (it holds
 * the session's row: issuePageKey), so the revocation below sees that key too.
 */
async function deleteSessions(query: Query, where: string, params: readonly unknown[]): Promise<number[]> {
  const gone = ids(await query<{ id: unknown }>(`DELETE FROM sessions WHERE ${where} RETURNING id`, params));
  return gone.length ? revokeWebSessionKeysWith(query, gone) : [];
}

/**
 * A new session; in the same transaction the user's expired sessions go, and the oldest beyond
 * `keep`, so the table holds what can still be used. Answers the page keys revoked with them.
 */
export async function insertSession(userId: number, tokenHash: string, now: number, expiresMs: number, keep: number): Promise<number[]> {
  return db().sql.transaction(async (query) => {
    const expired = await deleteSessions(query, 'user_id = $1 AND expires_ms <= $2', [userId, now]);
    await query('INSERT INTO sessions (token_hash, user_id, created_ms, expires_ms) VALUES ($1, $2, $3, $4)', [tokenHash, userId, now, expiresMs]);
    const beyond = await deleteSessions(query, 'user_id = $1 AND id NOT IN (SELECT id FROM sessions WHERE user_id = $1 ORDER BY id DESC LIMIT $2)', [
      userId,
      keep,
    ]);
    return [...expired, ...beyond];
  });
}

const FIND = `SELECT s.id AS "sessionId", s.expires_ms AS "expiresMs", ${userColumns('u')} FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = $1 AND s.expires_ms > $2`;

/** The live session with this token hash and its user, or null (unknown or expired). */
export async function findSessionByHash(tokenHash: string, now: number): Promise<SessionOwner | null> {
  const [row] = await db().sql.query<Row & { sessionId: unknown; expiresMs: unknown }>(FIND, [tokenHash, now]);
  return row ? { sessionId: Number(row.sessionId), expiresMs: Number(row.expiresMs), user: toUser(row) } : null;
}

/** Sign-out: the session and its page keys (the revoked keys' ids). */
export async function deleteSessionByHash(tokenHash: string): Promise<number[]> {
  return db().sql.transaction((query) => deleteSessions(query, 'token_hash = $1', [tokenHash]));
}

/** Every session of a user (password change: everyone signed in as them is signed out), and their page keys. */
export async function deleteUserSessions(userId: number): Promise<number[]> {
  return db().sql.transaction((query) => deleteSessions(query, 'user_id = $1', [userId]));
}

/**
 * A page key for a live session: its row (hash and shown prefix), bound to the session and expiring
 * with it. Beyond `keep` live keys for the session the oldest are revoked (their ids answered).
 * Null when the session is gone (ended meanwhile). The session's row is held (PostgreSQL: FOR
 * UPDATE; SQLite's one writer serializes already), so a sign-out at the same moment either comes
 * first (no key) or waits and revokes this key too.
 */
export async function insertPageKey(sessionId: number, key: NewApiKey, now: number, keep: number): Promise<{ keyId: number; revoked: number[] } | null> {
  const lock = db().dialect === 'postgres' ? ' FOR UPDATE' : '';
  return db().sql.transaction(async (query) => {
    const [session] = await query<{ expiresMs: unknown }>(`SELECT expires_ms AS "expiresMs" FROM sessions WHERE id = $1 AND expires_ms > $2${lock}`, [
      sessionId,
      now,
    ]);
    if (!session) return null;
    const live = await liveWebSessionKeyIds(query, sessionId);
    const revoked = live.length >= keep ? await revokeKeyIdsWith(query, live.slice(0, live.length - keep + 1)) : [];
    const keyId = await insertWebSessionKeyWith(query, { ...key, webSessionId: sessionId, expiresMs: Number(session.expiresMs) });
    return { keyId, revoked };
  });
}
