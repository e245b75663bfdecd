/**
 * Drawing from a ledger: every value the server draws takes the ledger's next leaf, in order, with no
 * gaps and no reuse, across instances (docs/fairness.md). The leaves are claimed in the roll's own
 * transaction under the ledger's row lock, so a roll that fails claims nothing.
 *
 * The dice engine stays pure: it is handed a LeafRng, which answers each `int(n)` from the next leaf
 * (drawFace) and records which leaf it took; explosions and rerolls draw lazily, so exactly the leaves
 * used are claimed. A roll needs its leaves' secrets before it knows how many it needs, so the engine
 * runs inside the transaction, after the lock.
 *
 * Rolls on one ledger queue in process and go in groups: one transaction takes every roll waiting
 * when the previous one ends (a room's rolls are serialized by its ledger anyway; grouping keeps the
 * lock's cost per transaction, not per roll: docs/performance.md, "Fairness ledger").
 */
import { db } from '../db';
import type { Query } from '../db/sql';
import { drawFace, LEAVES, secretOf } from './crypto';
import { advanceLedger, ensureLedger, findLedger, loadBatches, lockLedger, topUp, type BatchRecord, type LedgerRecord } from './store/ledgers';

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

  constructor(from: number, private readonly end: number, private readonly batches: Map<number, BatchRecord>, private readonly clientSeed: string) {
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
const queues = new Map<number, Queue>();

/** Run `job` on `ledger`'s next leaves, in its transaction; answers its result and the draws it made. */
export function drawInLedger<R>(ledger: LedgerRecord, job: DrawJob<R>): Promise<{ result: R; draws: Draw[] }> {
  let queue = queues.get(ledger.id);
  if (!queue) queues.set(ledger.id, (queue = { ledger, pending: [], running: false }));
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
    else queues.delete(q.ledger.id);
  }
}

function takeGroup(pending: Pending[]): Pending[] {
  let n = 0;
  while (n < pending.length && n < MAX_GROUP && !pending[n]!.alone) n++;
  return pending.splice(0, n);
}

async function runGroup(q: Queue, group: Pending[]): Promise<void> {
  const done: { p: Pending; result: unknown; draws: Draw[] }[] = [];
  const refused: { p: Pending; err: unknown }[] = [];
  let starved: Pending[] = [];
  let later: Pending[] = [];
  let end = 0;
  let cursor = 0;
  try {
    await db().sql.transaction(async (tx) => {
      done.length = 0;
      refused.length = 0;
      starved = [];
      later = [];
      const state = await lockLedger(tx, q.ledger.id);
      cursor = state.nextDraw;
      end = state.batches * LEAVES;
      const first = Math.floor(cursor / LEAVES);
      const batches = await loadBatches(q.ledger.id, Array.from({ length: Math.max(0, state.batches - first) }, (_, i) => first + i), tx);
      let rows = 0;
      for (let i = 0; i < group.length; i++) {
        const p = group[i]!;
        const rng = new LeafRng(cursor, end, batches, p.job.clientSeed);
        try {
          const result = p.job.run(rng);
          const size = p.job.rows(result);
          if (done.length && rows + size > MAX_GROUP_ROWS) {
            // Drawn but not kept: the next group draws these leaves again, for this roll.
            later = group.slice(i);
            break;
          }
          rows += size;
          done.push({ p, result, draws: rng.draws });
          cursor += rng.draws.length;
        } catch (err) {
          if (err instanceof OutOfLeaves) {
            starved = group.slice(i);
            break;
          }
          refused.push({ p, err });
        }
      }
      // Each run of jobs sharing a writer is written at once, in group order.
      for (let i = 0; i < done.length; ) {
        const writeAll = done[i]!.p.job.writeAll;
        let j = i;
        while (j < done.length && done[j]!.p.job.writeAll === writeAll) j++;
        await writeAll(tx, done.slice(i, j).map((d) => d.result));
        i = j;
      }
      if (done.length) await advanceLedger(tx, q.ledger.id, cursor, new Date());
    });
  } catch (err) {
    // One roll's write failing must not fail the others: each is tried again alone.
    if (group.length > 1) {
      q.pending.unshift(...group.map((p) => ({ ...p, alone: true })));
      return;
    }
    group[0]!.reject(err);
    return;
  }
  for (const d of done) d.p.resolve({ result: d.result, draws: d.draws });
  for (const r of refused) r.p.reject(r.err);
  try {
    // Keep a whole batch published ahead of the position; a roll that ran past it gets what it may need
    // (a roll holds at most 1,000 values) before it is tried again.
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
  constructor(readonly scope: string, readonly roomId: number | null, readonly userId: number | null) {
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
  tx: Query, where: { ledgerId: number | null; scope: string; roomId: number | null; userId: number | null }, clientSeed: string, run: (rng: LeafRng) => R,
): Promise<{ result: R; draws: Draw[]; ledgerId: number }> {
  const ledgerId = where.ledgerId ?? (await findLedger(where.scope, tx))?.id;
  if (ledgerId === undefined) throw new LedgerNotReady(where.scope, where.roomId, where.userId);
  const state = await lockLedger(tx, ledgerId);
  const first = Math.floor(state.nextDraw / LEAVES);
  const batches = await loadBatches(ledgerId, Array.from({ length: Math.max(0, state.batches - first) }, (_, i) => first + i), tx);
  const rng = new LeafRng(state.nextDraw, state.batches * LEAVES, batches, clientSeed);
  let result: R;
  try {
    result = run(rng);
  } catch (err) {
    if (err instanceof OutOfLeaves) throw new LedgerNotReady(where.scope, where.roomId, where.userId);
    throw err;
  }
  if (rng.draws.length) await advanceLedger(tx, ledgerId, state.nextDraw + rng.draws.length, new Date());
  return { result, draws: rng.draws, ledgerId };
}
