/**
 * Drawing from a ledger: every value the server draws takes the ledger's next leaf, in order, with no
 * gaps and no reuse, across instances (docs/fairness.md). The leaves are claimed by the write that
 * stores the roll, so a roll that fails claims nothing: on PostgreSQL one statement that moves the
 * ledger only if it is still where the engines drew from (drawOptimistically), otherwise, and on SQLite,
 * a transaction under the ledger's row lock (drawUnderLock).
 *
 * The dice engine stays pure: it is handed a LeafRng, which answers each `int(n)` from the next leaf
 * (drawFace) and records which leaf it took; explosions and rerolls draw lazily, so exactly the leaves
 * used are claimed. A roll needs its leaves' secrets before it knows how many it needs, so the engine
 * runs between reading the position and writing.
 *
 * Rolls on one ledger queue in process and go in groups: one write takes every roll waiting when the
 * previous one ends (a room's rolls are serialized by its ledger anyway; grouping keeps the ledger's
 * cost per write, not per roll: docs/performance.md, "Fairness ledger").
 */
import { perApp } from '../lib/appContext';
import { db } from '../db';
import type { Query } from '../db/sql';
import { drawFace, LEAVES, secretOf } from './crypto';
import {
  advanceLedger,
  advanceLedgerCte,
  ensureLedger,
  findLedger,
  loadBatches,
  lockLedger,
  readLedgerState,
  topUp,
  type BatchRecord,
  type LedgerRecord,
  type LedgerState,
} from './store/ledgers';

/** One value's draw: the ledger's leaf position (batch = draw / 256, leaf = draw % 256) and N. */
export interface Draw {
  draw: number;
  faces: number;
}

/** Thrown by a LeafRng that ran past the published leaves: the writer publishes more, then retries. */
class OutOfLeaves extends Error {}

/** The engine's random source for one roll: leaf after leaf, from `from`, below `end`. */
export class LeafRng {
  readonly draws: Draw[] = [];
  private next: number;

  constructor(
    from: number,
    private readonly end: number,
    private readonly batches: Map<number, BatchRecord>,
    private readonly clientSeed: string,
  ) {
    this.next = from;
  }

  int(n: number): number {
    if (this.next >= this.end) throw new OutOfLeaves();
    const draw = this.next++;
    const batch = this.batches.get(Math.floor(draw / LEAVES));
    if (!batch) throw new Error(`fairness: batch ${Math.floor(draw / LEAVES)} was not loaded`);
    this.draws.push({ draw, faces: n });
    return drawFace(secretOf(batch.secrets, draw % LEAVES), this.clientSeed, n);
  }
}

/**
 * A roll's part in a group: `run` rolls with the given source (pure and synchronous; it may throw a
 * refusal, which claims nothing), `write` stores its result in the group's transaction.
 */
export interface DrawJob<R> {
  clientSeed: string;
  run(rng: LeafRng): R;
  /**
   * Stores the results of the group's jobs that share this function, all at once (rolls: one
   * statement for the whole group on PostgreSQL), in the group's transaction.
   */
  writeAll: (tx: Query, results: R[]) => Promise<void>;
  /** rows the result writes (a group stays under MAX_GROUP_ROWS: PostgreSQL's bound on parameters) */
  rows(result: R): number;
  /**
   * PostgreSQL: the same writes as writeAll, as ONE statement that also moves the ledger: `advance`
   * pushes its parameters and answers the text of a data-modifying CTE whose one row exists only when
   * the ledger was still where the engines drew from; nothing may be written without that row. Answers
   * false (nothing written) when it was not. Without it, groups always take the ledger's lock.
   */
  writeAllGuarded?: (query: Query, results: R[], advance: (params: unknown[]) => string) => Promise<boolean>;
}

interface Pending {
  job: DrawJob<unknown>;
  resolve(out: { result: unknown; draws: Draw[] }): void;
  reject(err: unknown): void;
  /** retried alone after its group's transaction failed: its own failure is its own */
  alone: boolean;
}

interface Queue {
  ledger: LedgerRecord;
  pending: Pending[];
  running: boolean;
}

/** Rolls per transaction at most: a group's lock is held while its engines run and its rows are written. */
const MAX_GROUP = 64;
/** Value rows per group at most: 2,000 rows of 26 columns stay under PostgreSQL's 65,535 parameters. */
const MAX_GROUP_ROWS = 2000;
const queues = perApp(() => new Map<number, Queue>());

/**
 * Where this process last left each ledger (PostgreSQL's optimistic path), per open database as the
 * ledger caches are (ids are a database's own). A stale position costs one refused statement, never a
 * wrong draw: the write checks it.
 */
const positionsByDatabase = new WeakMap<object, Map<number, LedgerState>>();
const POSITIONS = 10_000;
function positions(): Map<number, LedgerState> {
  const database = db();
  let found = positionsByDatabase.get(database);
  if (!found) positionsByDatabase.set(database, (found = new Map<number, LedgerState>()));
  return found;
}
function rememberPosition(ledgerId: number, state: LedgerState | null): void {
  const known = positions();
  if (!state) return void known.delete(ledgerId);
  if (known.size >= POSITIONS && !known.has(ledgerId)) known.clear();
  known.set(ledgerId, state);
}

/** Run `job` on `ledger`'s next leaves, in its transaction; answers its result and the draws it made. */
export function drawInLedger<R>(ledger: LedgerRecord, job: DrawJob<R>): Promise<{ result: R; draws: Draw[] }> {
  let queue = queues().get(ledger.id);
  if (!queue) queues().set(ledger.id, (queue = { ledger, pending: [], running: false }));
  const q = queue;
  return new Promise((resolve, reject) => {
    q.pending.push({ job: job as DrawJob<unknown>, resolve: resolve as Pending['resolve'], reject, alone: false });
    if (!q.running) void drain(q);
  });
}

async function drain(q: Queue): Promise<void> {
  q.running = true;
  try {
    while (q.pending.length) {
      const group = q.pending[0]!.alone ? q.pending.splice(0, 1) : takeGroup(q.pending);
      await runGroup(q, group);
    }
  } finally {
    q.running = false;
    if (q.pending.length) void drain(q);
    else queues().delete(q.ledger.id);
  }
}

function takeGroup(pending: Pending[]): Pending[] {
  let n = 0;
  while (n < pending.length && n < MAX_GROUP && !pending[n]!.alone) n++;
  return pending.splice(0, n);
}

/** What one pass of a group's engines drew: the kept results, the refusals, and who waits for later. */
interface GroupDraw {
  done: { p: Pending; result: unknown; draws: Draw[] }[];
  refused: { p: Pending; err: unknown }[];
  /** ran past the published leaves: tried again once more are published */
  starved: Pending[];
  /** past the group's row bound: the next group draws for them */
  later: Pending[];
  /** the ledger's position after the kept draws */
  cursor: number;
  /** the first leaf not published */
  end: number;
}

/** The group's engines, one after the other from `state`'s position (pure but for the batches' reads). */
async function drawGroup(ledgerId: number, group: Pending[], state: LedgerState, query?: Query): Promise<GroupDraw> {
  const out: GroupDraw = { done: [], refused: [], starved: [], later: [], cursor: state.nextDraw, end: state.batches * LEAVES };
  const first = Math.floor(out.cursor / LEAVES);
  const batches = await loadBatches(
    ledgerId,
    Array.from({ length: Math.max(0, state.batches - first) }, (_, i) => first + i),
    query,
  );
  let rows = 0;
  for (let i = 0; i < group.length; i++) {
    const p = group[i]!;
    const rng = new LeafRng(out.cursor, out.end, batches, p.job.clientSeed);
    try {
      const result = p.job.run(rng);
      const size = p.job.rows(result);
      if (out.done.length && rows + size > MAX_GROUP_ROWS) {
        // Drawn but not kept: the next group draws these leaves again, for this roll.
        out.later = group.slice(i);
        break;
      }
      rows += size;
      out.done.push({ p, result, draws: rng.draws });
      out.cursor += rng.draws.length;
    } catch (err) {
      if (err instanceof OutOfLeaves) {
        out.starved = group.slice(i);
        break;
      }
      out.refused.push({ p, err });
    }
  }
  return out;
}

/**
 * PostgreSQL's fast path: the position this process last left the ledger at (or read without a lock),
 * the engines, and ONE statement that writes the rolls and moves the ledger only if it had not moved
 * (advanceLedgerCte): no transaction, no lock held across round trips. Answers null when it does not
 * apply (SQLite, a group without one guarded writer) or when another writer moved the ledger first (an
 * other instance, dice added to a roll): the caller then takes the ledger's lock, which always succeeds.
 */
async function drawOptimistically(q: Queue, group: Pending[]): Promise<GroupDraw | null> {
  if (db().dialect !== 'postgres') return null;
  const writer = group[0]!.job.writeAllGuarded;
  if (!writer || group.some((p) => p.job.writeAllGuarded !== writer)) return null;
  const state = positions().get(q.ledger.id) ?? (await readLedgerState(q.ledger.id));
  const drawn = await drawGroup(q.ledger.id, group, state);
  if (!drawn.done.length) return drawn;
  const advance = (params: unknown[]) => advanceLedgerCte(params, q.ledger.id, state.nextDraw, drawn.cursor, new Date());
  if (
    !(await writer(
      db().sql.query,
      drawn.done.map((d) => d.result),
      advance,
    ))
  ) {
    rememberPosition(q.ledger.id, null);
    return null;
  }
  rememberPosition(q.ledger.id, { nextDraw: drawn.cursor, batches: state.batches });
  return drawn;
}

/** The ledger's row lock, the engines and the writes in one transaction: every dialect, every writer. */
async function drawUnderLock(q: Queue, group: Pending[]): Promise<GroupDraw> {
  const { d: drawn, state } = await db().sql.transaction(async (tx) => {
    const state = await lockLedger(tx, q.ledger.id);
    const d = await drawGroup(q.ledger.id, group, state, tx);
    // Each run of jobs sharing a writer is written at once, in group order.
    for (let i = 0; i < d.done.length;) {
      const writeAll = d.done[i]!.p.job.writeAll;
      let j = i;
      while (j < d.done.length && d.done[j]!.p.job.writeAll === writeAll) j++;
      await writeAll(
        tx,
        d.done.slice(i, j).map((x) => x.result),
      );
      i = j;
    }
    if (d.done.length) await advanceLedger(tx, q.ledger.id, d.cursor, new Date());
    return { d, state };
  });
  // Known once committed: a transaction that failed leaves the ledger where it was.
  rememberPosition(q.ledger.id, { nextDraw: drawn.cursor, batches: state.batches });
  return drawn;
}

async function runGroup(q: Queue, group: Pending[]): Promise<void> {
  let drawn: GroupDraw;
  try {
    drawn = (await drawOptimistically(q, group)) ?? (await drawUnderLock(q, group));
  } catch (err) {
    rememberPosition(q.ledger.id, null);
    // One roll's write failing must not fail the others: each is tried again alone.
    if (group.length > 1) {
      q.pending.unshift(...group.map((p) => ({ ...p, alone: true })));
      return;
    }
    group[0]!.reject(err);
    return;
  }
  const { done, refused, starved, later, cursor, end } = drawn;
  for (const d of done) d.p.resolve({ result: d.result, draws: d.draws });
  for (const r of refused) r.p.reject(r.err);
  try {
    // Keep a whole batch published ahead of the position; a roll that ran past it gets what it may need
    // (a roll holds at most 1,000 values) before it is tried again. Another instance may have published
    // more already: the next group reads the ledger again.
    if (starved.length || end - cursor < LEAVES) rememberPosition(q.ledger.id, null);
    if (starved.length) await topUp(q.ledger.id, 1024 + LEAVES);
    else if (end - cursor < LEAVES) await topUp(q.ledger.id, LEAVES);
  } catch (err) {
    for (const p of starved) p.reject(err);
    q.pending.unshift(...later);
    return;
  }
  q.pending.unshift(...starved, ...later);
}

/**
 * A ledger that cannot serve a draw inside the caller's transaction: it does not exist yet, or has too
 * few leaves published. Creating either takes a transaction of its own, so the caller ends its own,
 * calls prepareLedger(err) and tries again.
 */
export class LedgerNotReady extends Error {
  constructor(
    readonly scope: string,
    readonly roomId: number | null,
    readonly userId: number | null,
  ) {
    super('fairness ledger not ready');
  }
}

export async function prepareLedger(err: LedgerNotReady): Promise<void> {
  const ledger = await ensureLedger(err.scope, err.roomId, err.userId);
  await topUp(ledger.id, 1024 + LEAVES);
}

/**
 * Draws in the caller's transaction, for writes that have one already (dice added to a roll, which
 * holds the roll's lock): the ledger's lock, `run` on its next leaves, the ledger advanced.
 */
export async function drawInTransaction<R>(
  tx: Query,
  where: { ledgerId: number | null; scope: string; roomId: number | null; userId: number | null },
  clientSeed: string,
  run: (rng: LeafRng) => R,
): Promise<{ result: R; draws: Draw[]; ledgerId: number }> {
  const ledgerId = where.ledgerId ?? (await findLedger(where.scope, tx))?.id;
  if (ledgerId === undefined) throw new LedgerNotReady(where.scope, where.roomId, where.userId);
  const state = await lockLedger(tx, ledgerId);
  const first = Math.floor(state.nextDraw / LEAVES);
  const batches = await loadBatches(
    ledgerId,
    Array.from({ length: Math.max(0, state.batches - first) }, (_, i) => first + i),
    tx,
  );
  const rng = new LeafRng(state.nextDraw, state.batches * LEAVES, batches, clientSeed);
  let result: R;
  try {
    result = run(rng);
  } catch (err) {
    if (err instanceof OutOfLeaves) throw new LedgerNotReady(where.scope, where.roomId, where.userId);
    throw err;
  }
  if (rng.draws.length) {
    await advanceLedger(tx, ledgerId, state.nextDraw + rng.draws.length, new Date());
    rememberPosition(ledgerId, null);
  }
  return { result, draws: rng.draws, ledgerId };
}
