import { randomUUID } from 'node:crypto';
import { db } from '../../db';
import { asDate, num, placeholders, type Query } from '../../db/sql';
import { BatchTree, LEAVES, newSecrets } from '../crypto';

/**
 * The only code that touches fairness_ledgers and fairness_batches (and reads roll_values' leaf columns
 * for the publication). Batches never change once written, so they are cached in process by
 * (ledger, number) with their trees: every instance reads the same bytes.
 */

export interface LedgerRecord {
  id: number;
  uuid: string;
  scope: string;
  roomId: number | null;
  userId: number | null;
}

export interface BatchRecord {
  ledgerId: number;
  number: number;
  secrets: Buffer;
  root: Buffer;
  createdAt: Date;
  /** built on first use: the commitments and every level up to the root */
  tree?: BatchTree;
}

export const roomScope = (roomId: number) => `room:${roomId}`;
export const userScope = (userId: number) => `user:${userId}`;

/**
 * The process's caches, one set per open database: ids are a database's own, so a process that opens
 * another database (tests start servers one after the other) must not find the first one's ledgers.
 * Ledgers are never deleted while their room or user exists, and their ids never change.
 */
interface Caches {
  ledgers: Map<string, LedgerRecord>;
  batches: Map<string, BatchRecord>;
  uuidsById: Map<number, string>;
}
const cachesByDatabase = new WeakMap<object, Caches>();
function caches(): Caches {
  const database = db();
  let found = cachesByDatabase.get(database);
  if (!found) cachesByDatabase.set(database, (found = { ledgers: new Map(), batches: new Map(), uuidsById: new Map() }));
  return found;
}
const LEDGER_CACHE = 10_000;

/** The ledger of this scope, created (with its first two batches) when it has none yet. */
export async function ensureLedger(scope: string, roomId: number | null, userId: number | null): Promise<LedgerRecord> {
  const { ledgers } = caches();
  const cached = ledgers.get(scope);
  if (cached) return cached;
  let ledger = await findLedger(scope);
  if (!ledger) {
    const now = new Date();
    // A write goes through a transaction: on SQLite that is the writer's turn (db/index.ts).
    ledger = await db().sql.transaction(async (tx) => {
      await tx(
        `INSERT INTO fairness_ledgers (uuid, scope, room_id, user_id, next_draw, batches, created_at, updated_at)
         VALUES ($1, $2, $3, $4, 0, 0, $5, $5) ON CONFLICT (scope) DO NOTHING`,
        [randomUUID(), scope, roomId, userId, now],
      );
      return (await findLedger(scope, tx))!;
    });
  }
  // A fresh ledger publishes its first batch and the one after before anything is drawn from it.
  await topUp(ledger.id, 0);
  if (ledgers.size >= LEDGER_CACHE) ledgers.clear();
  ledgers.set(scope, ledger);
  return ledger;
}

export async function findLedger(scope: string, query: Query = db().sql.query): Promise<LedgerRecord | null> {
  const [row] = await query<Record<string, unknown>>(
    'SELECT id, uuid, scope, room_id AS "roomId", user_id AS "userId" FROM fairness_ledgers WHERE scope = $1',
    [scope],
  );
  return row
    ? {
        id: num(row.id),
        uuid: String(row.uuid),
        scope: String(row.scope),
        roomId: row.roomId == null ? null : num(row.roomId),
        userId: row.userId == null ? null : num(row.userId),
      }
    : null;
}

export interface LedgerState {
  nextDraw: number;
  batches: number;
}

/**
 * The ledger's position, its row held until the caller's transaction ends (PostgreSQL: FOR UPDATE;
 * SQLite's single writer serializes already): draws are claimed in order, across instances.
 */
export async function lockLedger(tx: Query, ledgerId: number): Promise<LedgerState> {
  const lock = db().dialect === 'postgres' ? ' FOR UPDATE' : '';
  const [row] = await tx<{ nextDraw: unknown; batches: unknown }>(`SELECT next_draw AS "nextDraw", batches FROM fairness_ledgers WHERE id = $1${lock}`, [
    ledgerId,
  ]);
  if (!row) throw new Error(`fairness ledger ${ledgerId} is gone`);
  return { nextDraw: num(row.nextDraw), batches: num(row.batches) };
}

export async function advanceLedger(tx: Query, ledgerId: number, nextDraw: number, now: Date): Promise<void> {
  await tx('UPDATE fairness_ledgers SET next_draw = $1, updated_at = $2 WHERE id = $3', [nextDraw, now, ledgerId]);
}

/** The ledger's position, read without a lock: the optimistic draw of draws.ts checks it when it writes. */
export async function readLedgerState(ledgerId: number): Promise<LedgerState> {
  const [row] = await db().sql.query<{ nextDraw: unknown; batches: unknown }>('SELECT next_draw AS "nextDraw", batches FROM fairness_ledgers WHERE id = $1', [
    ledgerId,
  ]);
  if (!row) throw new Error(`fairness ledger ${ledgerId} is gone`);
  return { nextDraw: num(row.nextDraw), batches: num(row.batches) };
}

/**
 * The UPDATE that moves a ledger from `from` to `to` only if it is still at `from` (PostgreSQL, as a
 * data-modifying CTE of the statement that writes what was drawn): it answers the ledger's id when it
 * moved it and no row when another writer had moved it first. Under READ COMMITTED a concurrent writer
 * waits for the row and then finds `next_draw` changed, so two statements never claim the same leaves.
 * Pushes its parameters onto `params`.
 */
export function advanceLedgerCte(params: unknown[], ledgerId: number, from: number, to: number, now: Date): string {
  const at = params.length + 1;
  params.push(to, now, ledgerId, from);
  return `UPDATE fairness_ledgers SET next_draw = $${at}, updated_at = $${at + 1} WHERE id = $${at + 2} AND next_draw = $${at + 3} RETURNING id`;
}

/**
 * Create batches, each committed (and so published) on its own, until at least `ahead` leaves past the
 * ledger's position are unused and published, and never fewer than two batches. Under the ledger's
 * lock, so instances topping up together create each batch once.
 */
export async function topUp(ledgerId: number, ahead: number): Promise<void> {
  await db().sql.transaction(async (tx) => {
    const state = await lockLedger(tx, ledgerId);
    const want = Math.max(2, Math.ceil((state.nextDraw + ahead) / LEAVES));
    for (let n = state.batches; n < want; n++) {
      const secrets = newSecrets();
      const tree = new BatchTree(secrets);
      const createdAt = new Date();
      await tx('INSERT INTO fairness_batches (ledger_id, number, root, secrets, created_at) VALUES ($1, $2, $3, $4, $5)', [
        ledgerId,
        n,
        tree.root,
        secrets,
        createdAt,
      ]);
      remember({ ledgerId, number: n, secrets, root: tree.root, createdAt, tree });
    }
    if (want > state.batches) await tx('UPDATE fairness_ledgers SET batches = $1, updated_at = $2 WHERE id = $3', [want, new Date(), ledgerId]);
  });
}

// ~24 KiB a batch with its tree: 512 of them bound the cache near 12 MiB.
const BATCH_CACHE = 512;

function remember(batch: BatchRecord): void {
  const { batches } = caches();
  if (batches.size >= BATCH_CACHE) batches.delete(batches.keys().next().value!);
  batches.set(`${batch.ledgerId}:${batch.number}`, batch);
}

/** These batches of a ledger (those that exist), from the cache or one query. */
export async function loadBatches(ledgerId: number, numbers: readonly number[], query: Query = db().sql.query): Promise<Map<number, BatchRecord>> {
  const out = new Map<number, BatchRecord>();
  const missing: number[] = [];
  const { batches } = caches();
  for (const n of new Set(numbers)) {
    const hit = batches.get(`${ledgerId}:${n}`);
    if (hit) out.set(n, hit);
    else missing.push(n);
  }
  if (missing.length) {
    const rows = await query<Record<string, unknown>>(
      `SELECT number, root, secrets, created_at AS "createdAt" FROM fairness_batches WHERE ledger_id = $1 AND number IN (${placeholders(missing.length, 2)})`,
      [ledgerId, ...missing],
    );
    for (const row of rows) {
      const batch: BatchRecord = {
        ledgerId,
        number: num(row.number),
        secrets: asBuffer(row.secrets),
        root: asBuffer(row.root),
        createdAt: asDate(row.createdAt),
      };
      remember(batch);
      out.set(batch.number, batch);
    }
  }
  return out;
}

/** Batches of several ledgers at once: `wanted` maps ledger id to batch numbers. */
export async function loadBatchesOf(wanted: Map<number, Set<number>>): Promise<Map<string, BatchRecord>> {
  const out = new Map<string, BatchRecord>();
  await Promise.all(
    [...wanted].map(async ([ledgerId, numbers]) => {
      for (const [n, b] of await loadBatches(ledgerId, [...numbers])) out.set(`${ledgerId}:${n}`, b);
    }),
  );
  return out;
}

export function treeOf(batch: BatchRecord): BatchTree {
  return (batch.tree ??= new BatchTree(batch.secrets));
}

function asBuffer(value: unknown): Buffer {
  if (Buffer.isBuffer(value)) return value;
  if (value instanceof Uint8Array) return Buffer.from(value);
  throw new Error('fairness: a binary column came back as text');
}

/** Ledger uuids by id (a roll's `fairness.ledger`), cached: they never change. */
export async function ledgerUuids(ids: readonly number[]): Promise<Map<number, string>> {
  const { uuidsById } = caches();
  const missing = [...new Set(ids)].filter((id) => !uuidsById.has(id));
  if (missing.length) {
    const rows = await db().sql.query<{ id: unknown; uuid: unknown }>(
      `SELECT id, uuid FROM fairness_ledgers WHERE id IN (${placeholders(missing.length)})`,
      missing,
    );
    if (uuidsById.size >= LEDGER_CACHE) uuidsById.clear();
    for (const r of rows) uuidsById.set(num(r.id), String(r.uuid));
  }
  return new Map(ids.flatMap((id) => (uuidsById.has(id) ? [[id, uuidsById.get(id)!] as const] : [])));
}

export function rememberLedgerUuid(id: number, uuid: string): void {
  caches().uuidsById.set(id, uuid);
}

// --- publication ------------------------------------------------------------------------------

export interface PublishedBatch {
  number: number;
  root: Buffer;
  createdAt: Date;
}

export interface LedgerPublication {
  ledger: LedgerRecord;
  nextDraw: number;
  batches: PublishedBatch[];
}

/** A ledger's position and the roots of its batches (newest first, at most `limit`, numbered below `before`). */
export async function readPublication(ledger: LedgerRecord, limit: number, before?: number): Promise<LedgerPublication> {
  const query = db().sql.query;
  const [state] = await query<{ nextDraw: unknown }>('SELECT next_draw AS "nextDraw" FROM fairness_ledgers WHERE id = $1', [ledger.id]);
  const rows = await query<Record<string, unknown>>(
    `SELECT number, root, created_at AS "createdAt" FROM fairness_batches WHERE ledger_id = $1${before === undefined ? '' : ' AND number < $3'} ORDER BY number DESC LIMIT $2`,
    before === undefined ? [ledger.id, limit] : [ledger.id, limit, before],
  );
  return {
    ledger,
    nextDraw: num(state!.nextDraw),
    batches: rows.map((r) => ({ number: num(r.number), root: asBuffer(r.root), createdAt: asDate(r.createdAt) })),
  };
}

export interface LeafUse {
  draw: number;
  valueUuid: string;
  rollUuid: string;
}

/** Which roll values used the leaves of one batch (by draw, the ledger's leaf position). */
export async function readLeafUses(ledgerId: number, batch: number): Promise<LeafUse[]> {
  const rows = await db().sql.query<Record<string, unknown>>(
    `SELECT v.draw, v.uuid AS "valueUuid", r.uuid AS "rollUuid" FROM roll_values v JOIN rolls r ON r.id = v.roll_id
      WHERE v.ledger_id = $1 AND v.draw >= $2 AND v.draw < $3 ORDER BY v.draw`,
    [ledgerId, batch * LEAVES, (batch + 1) * LEAVES],
  );
  return rows.map((r) => ({ draw: num(r.draw), valueUuid: String(r.valueUuid), rollUuid: String(r.rollUuid) }));
}
