import { db } from '../../db';
import { num, numOrNull, type Row } from '../../db/sql';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'skipped';

/** A row of the delivery queue and log (migration 0019). */
export interface DeliveryRecord {
  id: number;
  webhookId: number;
  eventId: string;
  eventType: string;
  payload: Record<string, unknown>;
  body: string | null;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptMs: number | null;
  claimedUntilMs: number | null;
  lastStatusCode: number | null;
  lastError: string | null;
  lastResponse: string | null;
  durationMs: number | null;
  createdMs: number;
  finishedMs: number | null;
}

/**
 * One writing statement: on its own on PostgreSQL (autocommit: one round trip, not BEGIN and COMMIT
 * around it), under the writer lock on SQLite (db/index.ts: one write transaction at a time).
 */
function write(text: string, params: readonly unknown[]): Promise<Row[]> {
  if (db().dialect === 'postgres') return db().sql.query(text, params);
  return db().sql.transaction((query) => query(text, params));
}

function toDelivery(row: Row): DeliveryRecord {
  let payload: Record<string, unknown>;
  try {
    payload = JSON.parse(String(row.payload)) as Record<string, unknown>;
  } catch {
    payload = {};
  }
  return {
    id: num(row.id),
    webhookId: num(row.webhook_id),
    eventId: String(row.event_id),
    eventType: String(row.event_type),
    payload,
    body: row.body == null ? null : String(row.body),
    status: String(row.status) as DeliveryStatus,
    attempts: num(row.attempts),
    nextAttemptMs: numOrNull(row.next_attempt_ms),
    claimedUntilMs: numOrNull(row.claimed_until_ms),
    lastStatusCode: numOrNull(row.last_status_code),
    lastError: row.last_error == null ? null : String(row.last_error),
    lastResponse: row.last_response == null ? null : String(row.last_response),
    durationMs: numOrNull(row.duration_ms),
    createdMs: num(row.created_ms),
    finishedMs: numOrNull(row.finished_ms),
  };
}

/** Which webhooks an event is for. */
export type Audience =
  /** A roll's event: the room's webhooks, and its roller's webhooks without a room. */
  | { roomId: number | null; rollerId: number }
  /** A room's event: the room's webhooks. */
  | { roomId: number }
  /** One webhook (its test event). */
  | { webhookId: number };

export interface NewEvent {
  eventId: string;
  type: string;
  payload: Record<string, unknown>;
  audience: Audience;
}

/**
 * Record `event` for delivery to every active webhook it is for, in one statement (no read first: the
 * hot path of a roll pays one INSERT, which writes nothing when no webhook listens). An event recorded
 * twice (its command and the outbox's safety net) is one row: (webhook_id, event_id) is unique.
 * Answers how many deliveries were recorded.
 */
export async function enqueueEvent(event: NewEvent, nowMs = Date.now()): Promise<number> {
  const params: unknown[] = [event.eventId, event.type, JSON.stringify(event.payload), nowMs, true];
  let match: string;
  const a = event.audience;
  // Events are a short JSON array of names: the LIKE finds `"roll.created"` or `"*"` in it.
  if (!('webhookId' in a)) params.push(`%"${event.type}"%`);
  if ('webhookId' in a) {
    params.push(a.webhookId);
    match = `w.id = $${params.length}`;
  } else if ('rollerId' in a) {
    params.push(a.rollerId);
    match = `(w.room_id IS NULL AND w.user_id = $${params.length})`;
    if (a.roomId !== null) {
      params.push(a.roomId);
      match = `(${match} OR w.room_id = $${params.length})`;
    }
  } else {
    params.push(a.roomId);
    match = `w.room_id = $${params.length}`;
  }
  const events = 'webhookId' in a ? '' : ` AND (w.events LIKE $6 OR w.events LIKE '%"*"%')`;
  const rows = await write(
      `INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, payload, status, attempts, next_attempt_ms, created_ms)
       SELECT w.id, $1, $2, $3, 'pending', 0, $4, $4 FROM webhooks w WHERE w.is_active = $5 AND ${match}${events}
       ON CONFLICT (webhook_id, event_id) DO NOTHING RETURNING id`,
      params,
  );
  return rows.length;
}

/**
 * Due deliveries of active webhooks that nobody holds, claimed until `nowMs + leaseMs` (up to `limit`,
 * oldest first). PostgreSQL: `FOR UPDATE SKIP LOCKED`, so instances claiming together never take the
 * same row; SQLite: one process holds the database. An instance that dies holding rows lets the lease
 * expire: another takes them then.
 */
export async function claimDeliveries(limit: number, leaseMs: number, nowMs = Date.now()): Promise<DeliveryRecord[]> {
  const skipLocked = db().dialect === 'postgres' ? ' FOR UPDATE OF d SKIP LOCKED' : '';
  const rows = await write(
      `UPDATE webhook_deliveries SET claimed_until_ms = $1 WHERE id IN (
         SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
         WHERE d.status = 'pending' AND d.next_attempt_ms <= $2 AND (d.claimed_until_ms IS NULL OR d.claimed_until_ms < $2) AND w.is_active = $4
         ORDER BY d.id LIMIT $3${skipLocked}
       ) RETURNING *`,
      [nowMs + leaseMs, nowMs, limit, true],
  );
  return rows.map(toDelivery).sort((x, y) => x.id - y.id);
}

export interface AttemptResult {
  status: DeliveryStatus;
  nextAttemptMs: number | null;
  statusCode: number | null;
  error: string | null;
  response: string | null;
  durationMs: number | null;
  body: string | null;
  /** Counted as an attempt (a delivery skipped before sending is not). */
  attempted: boolean;
}

/**
 * Write an attempt's result, provided this instance still holds the row (`claimedUntilMs`, its lease):
 * an attempt that outlived its lease does not overwrite what the instance that took the row over wrote.
 */
export async function finishAttempt(delivery: DeliveryRecord, result: AttemptResult, nowMs = Date.now()): Promise<boolean> {
  const done = result.status !== 'pending';
  const rows = await write(
      `UPDATE webhook_deliveries SET status = $1, attempts = attempts + $2, next_attempt_ms = $3, claimed_until_ms = NULL,
         last_status_code = $4, last_error = $5, last_response = $6, duration_ms = $7, body = COALESCE(body, $8), finished_ms = $9
       WHERE id = $10 AND claimed_until_ms = $11 RETURNING id`,
      [
        result.status,
        result.attempted ? 1 : 0,
        result.nextAttemptMs,
        result.statusCode,
        result.error?.slice(0, 255) ?? null,
        result.response,
        result.durationMs,
        result.body,
        done ? nowMs : null,
        delivery.id,
        delivery.claimedUntilMs,
      ],
  );
  return rows.length > 0;
}

/** A webhook's log, newest first, one page, and how many rows it has. */
export async function listDeliveries(webhookId: number, offset: number, limit: number): Promise<{ items: DeliveryRecord[]; total: number }> {
  const query = db().sql.query;
  const [rows, [count]] = await Promise.all([
    query(`SELECT * FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY id DESC LIMIT $2 OFFSET $3`, [webhookId, limit, offset]),
    query<{ n: unknown }>('SELECT COUNT(*) AS n FROM webhook_deliveries WHERE webhook_id = $1', [webhookId]),
  ]);
  return { items: rows.map(toDelivery), total: num(count!.n) };
}

/** Pending deliveries and the age of the oldest (metrics, operators). */
export async function queueDepth(nowMs = Date.now()): Promise<{ pending: number; oldestAgeMs: number }> {
  const [row] = await db().sql.query<{ n: unknown; oldest: unknown }>(`SELECT COUNT(*) AS n, MIN(created_ms) AS oldest FROM webhook_deliveries WHERE status = 'pending'`);
  const oldest = numOrNull(row?.oldest);
  return { pending: num(row?.n ?? 0), oldestAgeMs: oldest === null ? 0 : Math.max(0, nowMs - oldest) };
}

/**
 * Delivery log rows finished before `beforeMs` are forgotten (the log is bounded in time), a batch at a time.
 */
export async function pruneDeliveries(beforeMs: number, limit = 1000): Promise<number> {
  const rows = await write(`DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries WHERE status <> 'pending' AND finished_ms < $1 ORDER BY id LIMIT $2) RETURNING id`, [beforeMs, limit]);
  return rows.length;
}

/** The delivery of event `eventId` to webhook `webhookId`, or null. */
export async function findDelivery(webhookId: number, eventId: string): Promise<DeliveryRecord | null> {
  const [row] = await db().sql.query('SELECT * FROM webhook_deliveries WHERE webhook_id = $1 AND event_id = $2', [webhookId, eventId]);
  return row ? toDelivery(row) : null;
}

/**
 * Hold `delivery` for `leaseMs` more, provided nobody took it over since it was claimed (its lease is
 * the one this instance wrote). Answers the delivery with its new lease, or null: leave it.
 */
export async function extendLease(delivery: DeliveryRecord, leaseMs: number, nowMs = Date.now()): Promise<DeliveryRecord | null> {
  const until = nowMs + leaseMs;
  const rows = await write(`UPDATE webhook_deliveries SET claimed_until_ms = $1 WHERE id = $2 AND claimed_until_ms = $3 AND status = 'pending' RETURNING id`, [until, delivery.id, delivery.claimedUntilMs]);
  return rows.length ? { ...delivery, claimedUntilMs: until } : null;
}

/**
 * When the next pending delivery of an active webhook comes due (its next attempt, or the end of a
 * lease it is held under), in epoch ms; null when none is pending.
 */
export async function nextDueMs(): Promise<number | null> {
  const [row] = await db().sql.query<{ due: unknown }>(
    `SELECT MIN(CASE WHEN d.claimed_until_ms IS NOT NULL AND d.claimed_until_ms > d.next_attempt_ms THEN d.claimed_until_ms ELSE d.next_attempt_ms END) AS due
     FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE d.status = 'pending' AND w.is_active = $1`,
    [true],
  );
  return numOrNull(row?.due);
}
