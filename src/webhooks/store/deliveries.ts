import { db } from '../../db';
import { chunks } from '../../db/inList';
import { num, numOrNull, placeholders, type Query, type Row } from '../../db/sql';

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
  /** The seq the realtime layer gave the event in its room (docs/realtime.md), once known. */
  seq: number | null;
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
    seq: numOrNull(row.seq),
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

/** The webhooks `audience` names (a WHERE condition on `w`, its parameters appended to `params`). */
function audienceMatch(a: Audience, params: unknown[]): string {
  if ('webhookId' in a) {
    params.push(a.webhookId);
    return `w.id = $${params.length}`;
  }
  if ('rollerId' in a) {
    params.push(a.rollerId);
    const own = `(w.room_id IS NULL AND w.user_id = $${params.length})`;
    if (a.roomId === null) return own;
    params.push(a.roomId);
    return `(${own} OR w.room_id = $${params.length})`;
  }
  params.push(a.roomId);
  return `w.room_id = $${params.length}`;
}

/** Webhooks that take events of type `$n` (a short JSON array of names: the LIKE finds `"roll.created"` or `"*"` in it). */
function takes(n: number): string {
  return `(w.events LIKE $${n} OR w.events LIKE '%"*"%')`;
}

const DELIVERY_COLUMNS = 'webhook_id, event_id, event_type, payload, status, attempts, next_attempt_ms, created_ms';

/**
 * Record `event` for delivery to every active webhook it is for, in one statement run by `query` (the
 * change's own transaction: events/record.ts), no read first: it writes nothing when no webhook listens.
 * An event recorded twice (a roll's command and the outbox's safety net) is one row: (webhook_id,
 * event_id) is unique. `dueMs`: when it may first be sent (later than now while it waits for its seq).
 * Answers how many deliveries were recorded.
 */
export async function enqueueIn(query: Query, event: NewEvent, nowMs = Date.now(), dueMs = nowMs): Promise<number> {
  const params: unknown[] = [event.eventId, event.type, JSON.stringify(event.payload), dueMs, nowMs, true];
  const forOne = 'webhookId' in event.audience;
  // A test event goes to its webhook whatever it takes; PostgreSQL refuses a parameter no statement uses.
  if (!forOne) params.push(`%"${event.type}"%`);
  const match = audienceMatch(event.audience, params);
  const events = forOne ? '' : ` AND ${takes(7)}`;
  const rows = await query(
    `INSERT INTO webhook_deliveries (${DELIVERY_COLUMNS})
     SELECT w.id, $1, $2, $3, 'pending', 0, $4, $5 FROM webhooks w WHERE w.is_active = $6 AND ${match}${events}
     ON CONFLICT (webhook_id, event_id) DO NOTHING RETURNING id`,
    params,
  );
  return rows.length;
}

/** enqueueIn() as a statement of its own. */
export function enqueueEvent(event: NewEvent, nowMs = Date.now(), dueMs = nowMs): Promise<number> {
  if (db().dialect === 'postgres') return enqueueIn(db().sql.query, event, nowMs, dueMs);
  return db().sql.transaction((query) => enqueueIn(query, event, nowMs, dueMs));
}

/**
 * `roll.updated` of each of `rollIds`, event ids `<idPrefix><roll id>`, in one statement per 500 rolls:
 * each roll's audience (its room's webhooks, its roller's own) read by the statement itself.
 * `dueMs(inRoom)`: when a roll's event may first be sent. Answers the event ids recorded.
 */
export async function enqueueRollUpdatesIn(
  query: Query,
  idPrefix: string,
  rollIds: readonly number[],
  nowMs: number,
  dueMs: (inRoom: boolean) => number,
): Promise<Set<string>> {
  const recorded = new Set<string>();
  for (const ids of chunks([...rollIds])) {
    const params: unknown[] = [idPrefix, '%"roll.updated"%', dueMs(false), dueMs(true), nowMs, true, ...ids];
    const rows = await query<{ event_id: unknown }>(
      `INSERT INTO webhook_deliveries (${DELIVERY_COLUMNS})
       SELECT w.id, CAST($1 AS TEXT) || CAST(r.id AS TEXT), 'roll.updated', '{"rollId":' || CAST(r.id AS TEXT) || '}', 'pending', 0,
         CASE WHEN r.room_id IS NULL THEN CAST($3 AS BIGINT) ELSE CAST($4 AS BIGINT) END, $5
       FROM rolls r JOIN webhooks w ON (w.room_id = r.room_id OR (w.room_id IS NULL AND w.user_id = r.user_id))
       WHERE r.id IN (${placeholders(ids.length, 7)}) AND w.is_active = $6 AND ${takes(2)}
       ON CONFLICT (webhook_id, event_id) DO NOTHING RETURNING event_id`,
      params,
    );
    for (const row of rows) recorded.add(String(row.event_id));
  }
  return recorded;
}

/**
 * Several events of one type for one room's webhooks (a cleared table: one per roll), in one statement
 * per 200. Answers the event ids recorded.
 */
export async function enqueueRoomEventsIn(
  query: Query,
  type: string,
  roomId: number,
  items: readonly { eventId: string; payload: Record<string, unknown> }[],
  nowMs: number,
  dueMs: number,
): Promise<Set<string>> {
  const recorded = new Set<string>();
  for (let at = 0; at < items.length; at += 200) {
    const part = items.slice(at, at + 200);
    const params: unknown[] = [type, `%"${type}"%`, dueMs, nowMs, true, roomId];
    const tuples = part.map((item) => {
      params.push(item.eventId, JSON.stringify(item.payload));
      return `(CAST($${params.length - 1} AS TEXT), CAST($${params.length} AS TEXT))`;
    });
    const rows = await query<{ event_id: unknown }>(
      `INSERT INTO webhook_deliveries (${DELIVERY_COLUMNS})
       SELECT w.id, v.column1, $1, v.column2, 'pending', 0, $3, $4 FROM webhooks w, (VALUES ${tuples.join(', ')}) AS v
       WHERE w.is_active = $5 AND w.room_id = $6 AND ${takes(2)}
       ON CONFLICT (webhook_id, event_id) DO NOTHING RETURNING event_id`,
      params,
    );
    for (const row of rows) recorded.add(String(row.event_id));
  }
  return recorded;
}

/**
 * The realtime layer numbered the events `eventIds` with `seq`: their pending deliveries carry it, and
 * those that waited for it (not attempted yet) are due now. Answers how many rows took it.
 */
export async function setSeq(eventIds: readonly string[], seq: number, nowMs = Date.now()): Promise<number> {
  let n = 0;
  for (const ids of chunks([...eventIds])) {
    const rows = await write(
      `UPDATE webhook_deliveries SET seq = $1, next_attempt_ms = CASE WHEN attempts = 0 AND next_attempt_ms > $2 THEN $2 ELSE next_attempt_ms END
       WHERE event_id IN (${placeholders(ids.length, 3)}) AND status = 'pending' AND seq IS NULL RETURNING id`,
      [seq, nowMs, ...ids],
    );
    n += rows.length;
  }
  return n;
}

/**
 * A roll's `roll.created` deliveries as a data-modifying CTE of the statement that inserts the roll
 * (PostgreSQL; `rollAlias` names the roll's CTE, whose `id` the payload takes): recorded with the roll
 * itself, atomically, and in no round trip of their own. The event id is rollCreatedEventId() of the
 * roll's id (src/events/record.ts), computed by the statement: sha256, base64url, 22 characters.
 * `dueMs`: when it may first be sent. Pushes its parameters onto `params`.
 */
export function rollCreatedDeliveriesCte(params: unknown[], rollAlias: string, rollerId: number, roomId: number | null, nowMs: number, dueMs: number): string {
  const at = params.length + 1;
  params.push(nowMs, dueMs, rollerId, roomId);
  const eventId = `'msg_' || substr(translate(encode(sha256(convert_to('roll.created:' || ${rollAlias}.id::text, 'UTF8')), 'base64'), '+/', '-_'), 1, 22)`;
  return `INSERT INTO webhook_deliveries (${DELIVERY_COLUMNS})
     SELECT w.id, ${eventId}, 'roll.created', json_build_object('rollId', ${rollAlias}.id)::text, 'pending', 0, $${at + 1}::bigint, $${at}::bigint
     FROM webhooks w, ${rollAlias} WHERE w.is_active = true AND ((w.room_id IS NULL AND w.user_id = $${at + 2}) OR w.room_id = $${at + 3})
       AND (w.events LIKE '%"roll.created"%' OR w.events LIKE '%"*"%')
     ON CONFLICT (webhook_id, event_id) DO NOTHING RETURNING id`;
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
  const [row] = await db().sql.query<{ n: unknown; oldest: unknown }>(
    `SELECT COUNT(*) AS n, MIN(created_ms) AS oldest FROM webhook_deliveries WHERE status = 'pending'`,
  );
  const oldest = numOrNull(row?.oldest);
  return { pending: num(row?.n ?? 0), oldestAgeMs: oldest === null ? 0 : Math.max(0, nowMs - oldest) };
}

/**
 * Delivery log rows finished before `beforeMs` are forgotten (the log is bounded in time), a batch at a time.
 */
export async function pruneDeliveries(beforeMs: number, limit = 1000): Promise<number> {
  const rows = await write(
    `DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries WHERE status <> 'pending' AND finished_ms < $1 ORDER BY id LIMIT $2) RETURNING id`,
    [beforeMs, limit],
  );
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
  const rows = await write(`UPDATE webhook_deliveries SET claimed_until_ms = $1 WHERE id = $2 AND claimed_until_ms = $3 AND status = 'pending' RETURNING id`, [
    until,
    delivery.id,
    delivery.claimedUntilMs,
  ]);
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
