/**
 * The measured blocks of bench:fanout: a block of rolls posted to the service (Socket.IO or Pusher
 * audience) and a block of bare emits, each on the same schedule and observed the same way (the
 * clients' process collected first, what other processes took meanwhile, the instances' collections
 * and, with BENCH_TRACE_SLOW_MS, every event-loop gap). fanout.ts alternates them in rounds.
 */
import type { Api } from '../../../test/helpers/http';
import type { Audience } from './audienceProcess';
import type { BenchDatabase } from './database';
import { describeStall, type Stall } from './child';
import { QUIET_MS, settle, steady, type Delivery } from './delivery';
import { cpuOf, interference, readProcesses, type Interference, type Reading } from './interference';
import { TRACE_SLOW_MS } from './load';
import type { ChildHandle } from './processes';
import { summarize } from './stats';
import { fmt } from './table';

export interface Fanout {
  a: ChildHandle;
  b: ChildHandle;
  /**
   * Where the roller posts, in turn: the two instances holding the sockets, or (FANOUT_API_INSTANCE)
   * a third instance that holds none, so that A and B only write frames, as the bare servers do.
   */
  postUrls: string[];
  /** That third instance (FANOUT_API_INSTANCE): its CPU is the service's too, and is also shown apart. */
  api: ChildHandle | null;
  roller: { key: string; api: Api };
  body: unknown;
  database: BenchDatabase;
  serverCores: string;
  rate: number;
  /**
   * Sends (rolls, or bare emits) on the block's schedule just before its measured ones, unmeasured.
   * Blocks alternate, so each side's servers sit idle through the other's block (13 s or more), and
   * V8 shrinks an idle process's young generation: the first half second of a block after that ran
   * a scavenge every 30-50 ms of 5-25 ms each on the service's instances, where its slowest rolls
   * were (docs/scaling.md, "Node flags"). The measured p99 is a steady state's, as in one long phase.
   */
  warmup: number;
  maxSettleMs: number;
  /** the bare servers (set once they run): their CPU and collections are read beside the instances' */
  bare: ChildHandle[];
  /** this process's own event-loop gaps (the roller's) since the last call */
  ownStalls: () => Stall[];
}

/** One block's result; `perRoll` and `fromAnswer` only for rolls (the service). */
export interface Block {
  delivery: Delivery;
  outside: Interference;
  settleMs: number;
  failures: string[];
  /** each roll: created_at -> the roller's 201, and -> its slowest delivery (ms), and when it was created (s into the block) */
  perRoll: Array<{ toAnswer: number; slowest: number; at: number }>;
  /** each delivery timed from the roller's 201 instead of created_at */
  fromAnswer: number[];
  /** CPU seconds over the block (warm-up included) of the servers under test, PostgreSQL and Redis, and how many sends that was */
  cpu: Cpu;
}

export interface Cpu {
  servers: number;
  /** the other side's servers, idle meanwhile: what servers holding 1,000 sockets spend doing nothing for a block's length */
  idleServers: number;
  postgres: number;
  redis: number;
  sends: number;
  /** of `servers`, the API instance's (FANOUT_API_INSTANCE; 0 without one) */
  api: number;
}

/** What the servers (`pids`), the other side's (`idle`), PostgreSQL and Redis spent between two readings, for `sends` sends. */
function serverCpu(before: Reading, after: Reading, pids: number[], idle: number[], sends: number, apiPid = -1): Cpu {
  return {
    servers: cpuOf(before, after, (pid) => pids.includes(pid)),
    api: cpuOf(before, after, (pid) => pid === apiPid),
    idleServers: cpuOf(before, after, (pid) => idle.includes(pid)),
    postgres: cpuOf(before, after, (_, comm) => comm === 'postgres'),
    redis: cpuOf(before, after, (_, comm) => comm === 'redis-server'),
    sends,
  };
}

/**
 * Every measured block starts with its audience's process fully collected (and the stall watches
 * reset): the garbage a block leaves (200,000 parsed events) must not be collected during the next
 * one, whose clients would then read their events late.
 */
async function startBlock(f: Fanout, audience: Audience, stamp: 'created_at' | 'sentAt'): Promise<void> {
  await audience.startBlock(stamp);
  f.ownStalls();
}

/** The audience's own event-loop gaps during the block, and the roller's. */
function printClientStalls(f: Fanout, audience: Audience, stalls: Stall[], start: number): void {
  if (!TRACE_SLOW_MS) return;
  const mine = f.ownStalls().filter(([at]) => at >= start);
  console.log(
    `    the clients late by over ${TRACE_SLOW_MS} ms (s into the block: gap ms, of which the main thread ran, waited for the core, other threads ran): audience ${audience.label}: ${stalls.map(describeStall(start)).join(', ') || 'never'}; the roller's process: ${mine.map(describeStall(start)).join(', ') || 'never'}`,
  );
}

/**
 * Post `rolls` rolls at the fanout's rate, alternating instances, to an audience recording into
 * `audience`; wait until the deliveries stop, and count them.
 */
export async function rollBlock(f: Fanout, name: string, audience: Audience, rolls: number): Promise<Block> {
  const { a, b } = f;
  const answeredAt = new Map<string, number>();
  const createdAt = new Map<string, number>();
  const failures: string[] = [];
  await Promise.all([a.ask({ cmd: 'pauses' }), b.ask({ cmd: 'pauses' })]); // from here: this block's collections
  // BENCH_TRACE_SLOW_MS: the instances time their own requests (from the first byte to the last).
  if (TRACE_SLOW_MS) await Promise.all([a.ask({ cmd: 'slow-requests' }), b.ask({ cmd: 'slow-requests' })]);
  // The database is part of the service under test: where its backends run, the service pays for them.
  await f.database.pinBackends(f.serverCores);
  await startBlock(f, audience, 'created_at');
  const procsBefore = readProcesses();
  let postStart = Date.now();
  await steady(f.warmup + rolls, f.rate, async (i) => {
    if (i === f.warmup) postStart = Date.now();
    try {
      const res = await f.roller.api.as(f.roller.key).post(`${f.postUrls[i % f.postUrls.length]}/api/1.0/roll`, f.body);
      if (i < f.warmup) return;
      if (res.status === 201) {
        answeredAt.set(res.body.data.uuid, Date.now());
        createdAt.set(res.body.data.uuid, Date.parse(res.body.data.created_at));
      } else failures.push(`${res.status} ${res.text.slice(0, 100)}`);
    } catch (err) {
      failures.push(`${(err as Error).message} ${String((err as { cause?: unknown }).cause ?? '')}`);
    }
  });
  const postedMs = Date.now() - postStart;
  const settleMs = await settle(() => audience.count(), f.maxSettleMs);
  const procsAfter = readProcesses();
  const outside = interference(procsBefore, procsAfter);
  const cpu = serverCpu(procsBefore, procsAfter, servicePids(f), barePids(f), f.warmup + rolls, f.api?.pid);
  for (const [label, c] of [
    ['A', a],
    ['B', b],
  ] as const) {
    if (c.child.exitCode !== null || c.child.signalCode !== null)
      console.log(`! instance ${label} died (${c.child.exitCode ?? c.child.signalCode}):\n${c.output().slice(-3000)}`);
  }
  const { delivery, fromAnswer, slowest, stalls } = await audience.tally([...createdAt.keys()], postedMs, answeredAt);
  const slowestOf = new Map(slowest);
  const perRoll = [...createdAt]
    .filter(([id]) => answeredAt.has(id) && slowestOf.has(id))
    .map(([id, c]) => ({ toAnswer: answeredAt.get(id)! - c, slowest: slowestOf.get(id)! - c, at: (c - postStart) / 1000 }));
  printBlock(name, delivery, failures, settleMs);
  printClientStalls(f, audience, stalls, postStart);
  await printServiceSide(f, postStart);
  return { delivery, outside, settleMs, failures, perRoll, fromAnswer, cpu };
}

/** Send `emits` bare emits (alternating the two bare servers) at the fanout's rate; count their deliveries. */
export async function emitBlock(f: Fanout, name: string, audience: Audience, emits: number, emit: (i: number, id: string) => void): Promise<Block> {
  const ids: string[] = [];
  await Promise.all(f.bare.map((c) => c.ask({ cmd: 'pauses' }))); // from here: this block's collections
  await startBlock(f, audience, 'sentAt');
  const procsBefore = readProcesses();
  let start = Date.now();
  await steady(f.warmup + emits, f.rate, async (i) => {
    if (i === f.warmup) start = Date.now();
    const id = `${name}-${i < f.warmup ? 'warmup-' : ''}${i}`;
    if (i >= f.warmup) ids.push(id);
    // Fire and forget: a saturated server must fall behind in what it delivers, not stall the schedule.
    emit(i, id);
  });
  const wallMs = Date.now() - start;
  const settleMs = await settle(() => audience.count(), f.maxSettleMs);
  const procsAfter = readProcesses();
  const outside = interference(procsBefore, procsAfter);
  const cpu = serverCpu(procsBefore, procsAfter, barePids(f), servicePids(f), f.warmup + emits);
  const { delivery, stalls } = await audience.tally(ids, wallMs);
  printBlock(name, delivery, [], settleMs);
  printClientStalls(f, audience, stalls, start);
  await printCollections('the bare servers', f.bare, start);
  return { delivery, outside, settleMs, failures: [], perRoll: [], fromAnswer: [], cpu };
}

/** The service's processes on the servers' core: the two instances, and the API instance when there is one. */
const servicePids = (f: Fanout) => [f.a.pid, f.b.pid, ...(f.api ? [f.api.pid] : [])];
const barePids = (f: Fanout) => f.bare.map((c) => c.pid);

/** Blocks of one kind as one: their deliveries pooled (the p99 of the whole sample, not a mean of p99s). */
export function pool(blocks: readonly Block[]): Block {
  const sum = (f: (b: Block) => number) => blocks.reduce((n, b) => n + f(b), 0);
  const outsides = blocks.map((b) => b.outside);
  return {
    delivery: {
      latencies: blocks.flatMap((b) => b.delivery.latencies),
      lost: sum((b) => b.delivery.lost),
      duplicated: sum((b) => b.delivery.duplicated),
      expected: sum((b) => b.delivery.expected),
      wallMs: sum((b) => b.delivery.wallMs),
      spans: blocks.flatMap((b) => b.delivery.spans),
    },
    // The pool is clean when every block was; its share is the worst block's.
    outside: outsides.reduce((worst, o) => (o.share + o.stealShare > worst.share + worst.stealShare ? o : worst), outsides[0]!),
    settleMs: Math.max(...blocks.map((b) => b.settleMs)),
    failures: blocks.flatMap((b) => b.failures),
    perRoll: blocks.flatMap((b) => b.perRoll),
    fromAnswer: blocks.flatMap((b) => b.fromAnswer),
    cpu: {
      servers: sum((b) => b.cpu.servers),
      api: sum((b) => b.cpu.api),
      idleServers: sum((b) => b.cpu.idleServers),
      postgres: sum((b) => b.cpu.postgres),
      redis: sum((b) => b.cpu.redis),
      sends: sum((b) => b.cpu.sends),
    },
  };
}

export const allClean = (blocks: readonly Block[]) => blocks.every((b) => b.outside.clean);

function printBlock(name: string, d: Delivery, failures: string[], settleMs: number): void {
  const m = summarize(d.latencies);
  console.log(
    `  ${name}: ${m.count} of ${d.expected} deliveries, p50 ${fmt(m.p50)} ms, p99 ${fmt(m.p99)} ms, max ${fmt(m.max)} ms, lost ${d.lost}, duplicated ${d.duplicated}; posting took ${(d.wallMs / 1000).toFixed(1)} s, the last delivery ${((settleMs - QUIET_MS) / 1000).toFixed(1)} s after it${failures.length ? `, ${failures.length} failed posts` : ''}`,
  );
}

/**
 * Each instance's collections during the block (major ones, and minor ones over 4 ms) by when they
 * started: lined up with the slowest rolls' created_at, they tell a collection's stall apart. With
 * BENCH_TRACE_SLOW_MS also every event-loop gap (instances and clients) and the slow requests.
 */
async function printServiceSide(f: Fanout, postStart: number): Promise<void> {
  const at = (epoch: number) => ((epoch - postStart) / 1000).toFixed(2);
  const pauses = await printCollections('the instances', [f.a, f.b], postStart);
  if (!TRACE_SLOW_MS) return;
  const stalls = pauses.map((p, i) => `${'AB'[i]}: ${p.stalls.map(describeStall(postStart)).join(', ') || 'none'}`);
  console.log(
    `    the instances' event loops late by over ${TRACE_SLOW_MS} ms (s into the block: gap ms, of which the main thread ran, waited for the core, other threads ran) ${stalls.join('; ')}`,
  );
  for (const [label, c] of [
    ['A', f.a],
    ['B', f.b],
  ] as const) {
    const own = await c.ask<{ seen: number; slow: Array<[number, number]> }>({ cmd: 'slow-requests', overMs: TRACE_SLOW_MS });
    console.log(
      `    ${label} answered ${own.slow.length} of its ${own.seen} requests in over ${TRACE_SLOW_MS} ms: ${own.slow.map(([t, ms]) => `${at(t)}: ${ms}`).join(', ')}`,
    );
  }
}

interface Pauses {
  gc: Record<string, { n: number; totalMs: number; maxMs: number }>;
  timeline: Array<[number, string, number]>;
  stalls: Stall[];
  threads: { mainRanMs: number; mainWaitedMs: number; othersRanMs: number } | null;
}

/**
 * Each server's collections since the block began (lib/child.ts answerPauses): every kind's count and
 * total, and the major ones and minor ones over 4 ms by when they started. Printed for both sides, so a
 * block's pauses compare with the other side's; lined up with the slowest rolls' created_at, they tell
 * a collection's stall apart.
 */
async function printCollections(label: string, servers: ChildHandle[], start: number): Promise<Pauses[]> {
  const at = (epoch: number) => ((epoch - start) / 1000).toFixed(2);
  const pauses = await Promise.all(servers.map((c) => c.ask<Pauses>({ cmd: 'pauses' })));
  const each = pauses.map((p, i) => {
    const kinds =
      Object.entries(p.gc)
        .map(([kind, g]) => `${g.n} ${kind} ${fmt(g.totalMs, 0)} ms (max ${g.maxMs})`)
        .join(', ') || 'none';
    const timeline = p.timeline.map(([t, kind, ms]) => `${at(t)} s ${kind} ${ms}`).join(', ') || 'none';
    const t = p.threads;
    const threads = t ? `main thread ran ${fmt(t.mainRanMs, 0)} ms, waited ${fmt(t.mainWaitedMs, 0)} ms, other threads ran ${fmt(t.othersRanMs, 0)} ms; ` : '';
    return `${'AB'[i]}: ${threads}${kinds}; ${timeline}`;
  });
  console.log(
    `    ${label}' collections (threads' CPU; each kind's count and total; then s into the block, kind, ms, minor ones only over 4 ms): ${each.join(' | ')}`,
  );
  return pauses;
}
