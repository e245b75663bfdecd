import { db } from '../db';
import type { Query } from '../db/sql';

/**
 * The outbox table (migration 0009): announcements committed with the change they announce, deleted
 * once made. Generic: an event name and a JSON payload of ids; each kind of announcement registers
 * how it is made again (sweeper.ts).
 */
export interface OutboxEntry {
  id: number;
  event: string;
  payload: Record<string, unknown>;
}

/** The INSERT of a row in the caller's transaction; answers its id. */
export async function insertOutboxIn(query: Query, event: string, payload: Record<string, unknown>, nowMs = Date.now()): Promise<number> {
  const [row] = await query<{ id: unknown }>('INSERT INTO outbox (event, payload, created_ms) VALUES ($1, $2, $3) RETURNING id', [
    event,
    JSON.stringify(payload),
    nowMs,
  ]);
  return Number(row!.id);
}

/**
 * A data-modifying CTE (PostgreSQL) writing one row whose payload is `payloadSql` (a json expression over
 * `fromSql`), for statements that write their change in one round trip: the caller names it in its WITH.
 * `$event` and `$now` are the placeholders the caller binds to the event name and Date.now().
 */
export function outboxCte(event: string, now: string, payloadSql: string, fromSql: string): string {
  return `INSERT INTO outbox (event, payload, created_ms) SELECT ${event}, (${payloadSql})::text, ${now} FROM ${fromSql} RETURNING id`;
}

/**
 * Rows older than `graceMs` that no sweeper holds, claimed for `leaseMs` (up to `limit`, oldest first).
 * PostgreSQL: `FOR UPDATE SKIP LOCKED`, so instances sweeping together never claim the same row; on
 * SQLite one process holds the database.
 */
export async function claimDue(graceMs: number, leaseMs: number, limit: number, nowMs = Date.now()): Promise<OutboxEntry[]> {
  const skipLocked = db().dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
  const rows = await db().sql.query<{ id: unknown; event: unknown; payload: unknown }>(
    `UPDATE outbox SET claimed_until_ms = $1 WHERE id IN (
       SELECT id FROM outbox WHERE created_ms < $2 AND (claimed_until_ms IS NULL OR claimed_until_ms < $3) ORDER BY id LIMIT $4${skipLocked}
     ) RETURNING id, event, payload`,
    [nowMs + leaseMs, nowMs - graceMs, nowMs, limit],
  );
  return rows.map((row) => ({ id: Number(row.id), event: String(row.event), payload: parsePayload(row.payload) })).sort((a, b) => a.id - b.id);
}

/** The rows `ids` that are still there (a consumer reading what it must act on before they go). */
export async function readOutbox(ids: readonly number[]): Promise<OutboxEntry[]> {
  const out: OutboxEntry[] = [];
  for (let at = 0; at < ids.length; at += 500) {
    const part = ids.slice(at, at + 500);
    const rows = await db().sql.query<{ id: unknown; event: unknown; payload: unknown }>(
      `SELECT id, event, payload FROM outbox WHERE id IN (${part.map((_, i) => `$${i + 1}`).join(', ')})`,
      part,
    );
    out.push(...rows.map((row) => ({ id: Number(row.id), event: String(row.event), payload: parsePayload(row.payload) })));
  }
  return out;
}

/** Forget rows whose announcement was made. */
export async function deleteOutbox(ids: readonly number[]): Promise<void> {
  for (let at = 0; at < ids.length; at += 500) {
    const part = ids.slice(at, at + 500);
    await db().sql.query(`DELETE FROM outbox WHERE id IN (${part.map((_, i) => `$${i + 1}`).join(', ')})`, part);
  }
}

/** A stored payload, or {} when it is not a JSON object (its handler then finds no ids and drops it). */
function parsePayload(text: unknown): Record<string, unknown> {
  try {
    const value = JSON.parse(String(text)) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
