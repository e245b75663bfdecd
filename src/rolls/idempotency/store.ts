import { db } from '../../db';
import { asDate, num, numOrNull, type Query } from '../../db/sql';

/**
 * The `idempotency_keys` table (migration 0010), in plain SQL for both dialects: one row per user and
 * key, the first request's fingerprint, and its answer once it succeeded. Shared by every instance, so a
 * retry that reaches another instance gets the same answer.
 */

/** Every write in a transaction of its own: on SQLite that takes the database's one writer lock (db/index.ts). */
function write<T>(fn: (query: Query) => Promise<T>): Promise<T> {
  return db().sql.transaction(fn);
}

export interface StoredKey {
  id: number;
  fingerprint: string;
  /** null while the first request is in flight */
  status: number | null;
  /** the answer's JSON once it succeeded; while in flight, the random token of the request holding the key */
  body: string | null;
  createdAt: Date;
  expiresAt: Date;
}

/**
 * Take `key` for a new request: true when this request now holds it (no row, or only an expired one,
 * or one in flight since before `abandonedBefore`, which is taken over); false when another row holds
 * it (read it with findKey).
 */
export async function reserveKey(
  userId: number,
  key: string,
  fingerprint: string,
  holder: string,
  now: Date,
  expiresAt: Date,
  abandonedBefore: Date,
): Promise<boolean> {
  return write(async (query) => {
    const inserted = await query(
      `INSERT INTO idempotency_keys (user_id, key, fingerprint, status, body, created_at, expires_at)
       VALUES ($1, $2, $3, NULL, $6, $4, $5) ON CONFLICT (user_id, key) DO NOTHING RETURNING id`,
      [userId, key, fingerprint, now, expiresAt, holder],
    );
    if (inserted.length) return true;
    // Expired, or abandoned in flight (its instance died before answering): the key is free again.
    const taken = await query(
      `UPDATE idempotency_keys SET fingerprint = $3, status = NULL, body = $7, created_at = $4, expires_at = $5
       WHERE user_id = $1 AND key = $2 AND (expires_at <= $4 OR (status IS NULL AND created_at < $6)) RETURNING id`,
      [userId, key, fingerprint, now, expiresAt, abandonedBefore, holder],
    );
    return taken.length > 0;
  });
}

export async function findKey(userId: number, key: string): Promise<StoredKey | null> {
  const [row] = await db().sql.query<Record<string, unknown>>(
    'SELECT id, fingerprint, status, body, created_at AS "createdAt", expires_at AS "expiresAt" FROM idempotency_keys WHERE user_id = $1 AND key = $2',
    [userId, key],
  );
  if (!row) return null;
  return {
    id: num(row.id),
    fingerprint: row.fingerprint as string,
    status: numOrNull(row.status),
    body: (row.body as string | null) ?? null,
    createdAt: asDate(row.createdAt),
    expiresAt: asDate(row.expiresAt),
  };
}

/** Keep the answer of the request that holds the key (only while it still holds it). */
export async function completeKey(userId: number, key: string, holder: string, status: number, body: string): Promise<void> {
  await write((query) =>
    query('UPDATE idempotency_keys SET status = $4, body = $5 WHERE user_id = $1 AND key = $2 AND body = $3 AND status IS NULL', [
      userId,
      key,
      holder,
      status,
      body,
    ]),
  );
}

/** Give the key back: the request it was held for failed and changed nothing, so a retry may run. */
export async function releaseKey(userId: number, key: string, holder: string): Promise<void> {
  await write((query) => query('DELETE FROM idempotency_keys WHERE user_id = $1 AND key = $2 AND body = $3 AND status IS NULL', [userId, key, holder]));
}

/** Delete up to `limit` expired keys; answers how many went. */
export async function sweepExpiredKeys(now: Date, limit: number): Promise<number> {
  const rows = await write((query) =>
    query('DELETE FROM idempotency_keys WHERE id IN (SELECT id FROM idempotency_keys WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2) RETURNING id', [
      now,
      limit,
    ]),
  );
  return rows.length;
}
