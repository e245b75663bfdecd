import { db } from '../../db';
import { asBool, num, numOrNull, type Query, type Row } from '../../db/sql';

/** A webhook as stored (migration 0019), with its room's slug. */
export interface WebhookRecord {
  id: number;
  uuid: string;
  userId: number;
  roomId: number | null;
  roomSlug: string | null;
  url: string;
  events: string[];
  format: 'standard' | 'discord';
  visibility: 'owner' | 'public';
  secret: string;
  previousSecret: string | null;
  previousSecretUntilMs: number | null;
  isActive: boolean;
  disabledReason: string | null;
  failedInRow: number;
  createdMs: number;
  updatedMs: number;
}

const SELECT = `SELECT w.*, r.slug AS room_slug FROM webhooks w LEFT JOIN rooms r ON r.id = w.room_id`;

function toWebhook(row: Row): WebhookRecord {
  let events: string[];
  try {
    events = JSON.parse(String(row.events)) as string[];
  } catch {
    events = [];
  }
  return {
    id: num(row.id),
    uuid: String(row.uuid),
    userId: num(row.user_id),
    roomId: numOrNull(row.room_id),
    roomSlug: row.room_slug == null ? null : String(row.room_slug),
    url: String(row.url),
    events,
    format: row.format === 'discord' ? 'discord' : 'standard',
    visibility: row.visibility === 'public' ? 'public' : 'owner',
    secret: String(row.secret),
    previousSecret: row.previous_secret == null ? null : String(row.previous_secret),
    previousSecretUntilMs: numOrNull(row.previous_secret_until_ms),
    isActive: asBool(row.is_active),
    disabledReason: row.disabled_reason == null ? null : String(row.disabled_reason),
    failedInRow: num(row.failed_in_row),
    createdMs: num(row.created_ms),
    updatedMs: num(row.updated_ms),
  };
}

export type NewWebhook = Pick<WebhookRecord, 'uuid' | 'userId' | 'roomId' | 'url' | 'events' | 'format' | 'visibility' | 'secret'>;

/**
 * Insert a webhook unless its user already has `max`: counted and written in one transaction under a
 * lock on the user's row (PostgreSQL; SQLite has one writer), so concurrent creations cannot overshoot.
 * Answers null when the quota is reached.
 */
export async function insertWebhook(hook: NewWebhook, max: number, nowMs = Date.now()): Promise<WebhookRecord | null> {
  return db().sql.transaction(async (query) => {
    if (db().dialect === 'postgres') await query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [hook.userId]);
    const [count] = await query<{ n: unknown }>('SELECT COUNT(*) AS n FROM webhooks WHERE user_id = $1', [hook.userId]);
    if (num(count!.n) >= max) return null;
    const [row] = await query<{ id: unknown }>(
      `INSERT INTO webhooks (uuid, user_id, room_id, url, events, format, visibility, secret, is_active, failed_in_row, created_ms, updated_ms)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 0, $10, $10) RETURNING id`,
      [hook.uuid, hook.userId, hook.roomId, hook.url, JSON.stringify(hook.events), hook.format, hook.visibility, hook.secret, true, nowMs],
    );
    return (await readWebhook(query, 'w.id', num(row!.id)))!;
  });
}

async function readWebhook(query: Query, column: 'w.id' | 'w.uuid', key: number | string): Promise<WebhookRecord | null> {
  const [row] = await query(`${SELECT} WHERE ${column} = $1`, [key]);
  return row ? toWebhook(row) : null;
}

export function findWebhookByUuid(uuid: string): Promise<WebhookRecord | null> {
  return readWebhook(db().sql.query, 'w.uuid', uuid);
}

export function findWebhookById(id: number): Promise<WebhookRecord | null> {
  return readWebhook(db().sql.query, 'w.id', id);
}

/** A user's webhooks, oldest first, one page, and how many there are. */
export async function listWebhooks(userId: number, offset: number, limit: number): Promise<{ items: WebhookRecord[]; total: number }> {
  const query = db().sql.query;
  const [rows, [count]] = await Promise.all([
    query(`${SELECT} WHERE w.user_id = $1 ORDER BY w.id LIMIT $2 OFFSET $3`, [userId, limit, offset]),
    query<{ n: unknown }>('SELECT COUNT(*) AS n FROM webhooks WHERE user_id = $1', [userId]),
  ]);
  return { items: rows.map(toWebhook), total: num(count!.n) };
}

export interface WebhookChange {
  url?: string;
  events?: string[];
  format?: 'standard' | 'discord';
  visibility?: 'owner' | 'public';
  isActive?: boolean;
  disabledReason?: string | null;
  secret?: string;
  previousSecret?: string | null;
  previousSecretUntilMs?: number | null;
  failedInRow?: number;
}

const COLUMNS: Record<keyof WebhookChange, string> = {
  url: 'url',
  events: 'events',
  format: 'format',
  visibility: 'visibility',
  isActive: 'is_active',
  disabledReason: 'disabled_reason',
  secret: 'secret',
  previousSecret: 'previous_secret',
  previousSecretUntilMs: 'previous_secret_until_ms',
  failedInRow: 'failed_in_row',
};

/** Change these fields of webhook `id`; answers it as it is now (null: gone). */
export async function updateWebhook(id: number, change: WebhookChange, nowMs = Date.now()): Promise<WebhookRecord | null> {
  const sets: string[] = [];
  const params: unknown[] = [];
  for (const [key, column] of Object.entries(COLUMNS) as [keyof WebhookChange, string][]) {
    if (change[key] === undefined) continue;
    params.push(key === 'events' ? JSON.stringify(change[key]) : change[key]);
    sets.push(`${column} = $${params.length}`);
  }
  params.push(nowMs, id);
  return db().sql.transaction(async (query) => {
    await query(`UPDATE webhooks SET ${[...sets, `updated_ms = $${params.length - 1}`].join(', ')} WHERE id = $${params.length}`, params);
    return readWebhook(query, 'w.id', id);
  });
}

export async function deleteWebhook(id: number): Promise<void> {
  await db().sql.transaction(async (query) => {
    // SQLite does not enforce the foreign key's cascade unless told to: the log goes with its webhook either way.
    await query('DELETE FROM webhook_deliveries WHERE webhook_id = $1', [id]);
    await query('DELETE FROM webhooks WHERE id = $1', [id]);
  });
}

/**
 * An event's result on webhook `id`: delivered resets its run of failures; failed lengthens it and
 * disables the webhook (with `reason`) once it reaches `disableAfter`. Answers whether it was disabled now.
 */
export async function recordOutcome(id: number, delivered: boolean, disableAfter: number, reason: string, nowMs = Date.now()): Promise<boolean> {
  if (delivered) {
    await db().sql.transaction((query) => query('UPDATE webhooks SET failed_in_row = 0 WHERE id = $1 AND failed_in_row <> 0', [id]));
    return false;
  }
  const rows = await db().sql.transaction((query) =>
    query(
      `UPDATE webhooks SET failed_in_row = failed_in_row + 1,
         is_active = CASE WHEN failed_in_row + 1 >= $2 THEN $3 ELSE is_active END,
         disabled_reason = CASE WHEN failed_in_row + 1 >= $2 AND is_active = $5 THEN $4 ELSE disabled_reason END,
         updated_ms = $6
       WHERE id = $1 RETURNING failed_in_row, is_active`,
      [id, disableAfter, false, reason, true, nowMs],
    ),
  );
  const row = rows[0];
  return Boolean(row && num(row.failed_in_row) === disableAfter && !asBool(row.is_active));
}

/** Disable webhook `id` at once (a 410 from its receiver). */
export async function disableWebhook(id: number, reason: string, nowMs = Date.now()): Promise<void> {
  await db().sql.transaction((query) =>
    query('UPDATE webhooks SET is_active = $2, disabled_reason = $3, updated_ms = $4 WHERE id = $1', [id, false, reason, nowMs]),
  );
}

/** The webhooks `ids` (one query for a batch of deliveries), by id. */
export async function findWebhooksByIds(ids: readonly number[]): Promise<Map<number, WebhookRecord>> {
  const unique = [...new Set(ids)];
  if (!unique.length) return new Map();
  const rows = await db().sql.query(`${SELECT} WHERE w.id IN (${unique.map((_, i) => `$${i + 1}`).join(', ')})`, unique);
  return new Map(rows.map((row) => [num(row.id), toWebhook(row)]));
}
