/** The tables of bench:rooms: per phase, the ratios many rooms / 10 rooms against the targets, memory. */
import { CONTAINERS, type Subscriptions } from './redisStats';
import { perRoll, type Memory, type PhaseResult } from './roomsPhase';
import { ratio } from './stats';
import { fmt, printTable } from './table';

export interface AdapterRun {
  /** The REDIS_PUBSUB value the instances got. */
  adapter: string;
  /** 10 rooms, many rooms, 10 rooms again. */
  phases: PhaseResult[];
  /** Subscriptions with the instances up and no room live; with 10 again; with every socket gone. */
  base: Subscriptions;
  back: Subscriptions;
  empty: Subscriptions;
  /** Both instances' memory with a third of the rooms live (null when that is not above 10). */
  midMemory: [Memory, Memory] | null;
}

/** The target: within 1.3x of 10 rooms. */
const TARGET = 1.3;
const KIB = 1024;

const label = (p: PhaseResult) => `${p.adapter} (runs ${p.fabric}), ${p.rooms} rooms`;
const mean = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) ? (a + b) / 2 : Number.isFinite(a) ? a : b);

export function printRoomsReport(runs: AdapterRun[], o: { rolls: number; rate: number; rooms: number; small: number; redisVersion: string }) {
  const phases = runs.flatMap((r) => r.phases);
  printTable(
    `Each phase: ${o.rolls} rolls at ${o.rate}/s into one room through instance A, heard on B (Redis ${o.redisVersion}; µs of Redis per roll net of the idle rate)`,
    [
      'phase',
      'patterns',
      'channels',
      'shard ch.',
      'rolls',
      'publishes/roll',
      'µs/publish',
      'commands µs/roll',
      'Redis CPU µs/roll',
      'idle Redis CPU ms/s',
      'p50 ms',
      'p99 ms',
      'max ms',
      'lost',
      'dup',
      'failed',
      'load (1 min)',
    ],
    phases.map((p) => {
      const r = perRoll(p);
      return [
        label(p),
        String(p.subs.patterns),
        String(p.subs.channels),
        String(p.subs.shardChannels),
        String(p.posted),
        fmt(r.publishes, 2),
        fmt(r.usPerPublish, 1),
        fmt(r.commandUs),
        fmt(r.cpuUs),
        fmt(r.idleCpuUsPerS / 1000, 2),
        fmt(p.latency.p50),
        fmt(p.latency.p99),
        fmt(p.latency.max),
        String(p.lost),
        String(p.duplicated),
        String(p.failures.length),
        p.load.split(' ')[2] ?? '',
      ];
    }),
  );

  // Which commands a roll costs (the same commands in every phase; their time is what moves).
  const names = [...new Set(phases.flatMap((p) => [...p.busy.commands.keys()]))].sort();
  printTable(
    'Redis commands per roll (calls / µs per roll; EXEC and scripts include the commands they ran, which are also counted under their own names)',
    ['phase', ...names.map((n) => (CONTAINERS.test(n) ? `[${n}]` : n))],
    phases.map((p) => {
      const n = Math.max(1, p.posted);
      return [
        label(p),
        ...names.map((c) => {
          const s = p.busy.commands.get(c);
          return s ? `${fmt(s.calls / n, 2)} / ${fmt(s.usec / n, 1)}` : '-';
        }),
      ];
    }),
  );

  const verdicts: string[] = [];
  printTable(
    `Ratios: ${o.rooms} rooms / the mean of the two ${o.small}-room phases around it (target: within ${TARGET}x)`,
    ['adapter', 'µs/publish', 'commands µs/roll', 'Redis CPU µs/roll', 'p50', 'p99', 'lost', 'duplicated', 'verdict'],
    runs.map((run) => {
      const [s1, big, s2] = run.phases.map(perRoll);
      const [p1, pb, p2] = run.phases;
      const x = (f: (r: ReturnType<typeof perRoll>) => number) => ratio(f(big!), mean(f(s1!), f(s2!)));
      const within = (a: number, b: number) => Number.isFinite(a) && Number.isFinite(b) && a <= TARGET * b;
      const lost = run.phases.reduce((n, p) => n + p.lost, 0);
      const dup = run.phases.reduce((n, p) => n + p.duplicated, 0);
      // Redis CPU from INFO cpu (getrusage): commandstats' usec are wall-clock time inside the command,
      // which on a machine with more runnable processes than cores includes time Redis waited for one.
      const cpuOk = within(big!.cpuUs, mean(s1!.cpuUs, s2!.cpuUs));
      const commandsOk = within(big!.commandUs, mean(s1!.commandUs, s2!.commandUs));
      const p99Ok = within(pb!.latency.p99, mean(p1!.latency.p99, p2!.latency.p99));
      const ok = cpuOk && p99Ok && lost === 0 && dup === 0;
      verdicts.push(
        `${run.adapter}: ${ok ? 'met' : 'MISSED'} (Redis CPU per roll ${cpuOk ? 'within' : 'NOT within'}, commandstats per roll ${commandsOk ? 'within' : 'NOT within'}, p99 ${p99Ok ? 'within' : 'NOT within'}; lost ${lost}, duplicated ${dup})`,
      );
      return [
        `${run.adapter} (runs ${pb!.fabric})`,
        x((r) => r.usPerPublish),
        x((r) => r.commandUs),
        x((r) => r.cpuUs),
        ratio(pb!.latency.p50, mean(p1!.latency.p50, p2!.latency.p50)),
        ratio(pb!.latency.p99, mean(p1!.latency.p99, p2!.latency.p99)),
        String(lost),
        String(dup),
        ok ? 'met' : 'MISSED',
      ];
    }),
  );
  if (runs.length > 1) {
    const big = (run: AdapterRun) => perRoll(run.phases[1]!);
    const [first, ...rest] = runs;
    for (const other of rest)
      console.log(
        `${other.adapter} / ${first!.adapter} at ${o.rooms} rooms: Redis CPU per roll ${ratio(big(other).cpuUs, big(first!).cpuUs)}, commands per roll ${ratio(big(other).commandUs, big(first!).commandUs)}, p99 ${ratio(other.phases[1]!.latency.p99, first!.phases[1]!.latency.p99)}`,
      );
  }
  console.log(`targets (Redis CPU per roll and p99 within ${TARGET}x of ${o.small} rooms, 0 lost, 0 duplicated): ${verdicts.join('; ')}`);

  // Memory of an idle live room (its one socket included): the many-rooms phase minus the first 10.
  printTable(
    `Memory per idle live room with its one socket (after full GC; ${o.rooms - o.small} rooms more, about half on each instance)`,
    [
      'adapter',
      'instance',
      'rooms (sockets) there',
      'namespaces (back at 10)',
      'rss MiB',
      'rss KiB/room',
      'rss KiB/room from a third of the rooms',
      'heap KiB/room',
      'heap KiB/room once back to 10',
      'Redis used_memory B/room',
      'Redis subscriptions/room',
    ],
    runs.flatMap((run) => {
      const [s1, big, s2] = run.phases;
      const redisPerRoom = (big!.redisMemory - s1!.redisMemory) / (big!.rooms - s1!.rooms);
      const subsPerRoom =
        (big!.subs.patterns + big!.subs.channels + big!.subs.shardChannels - s1!.subs.patterns - s1!.subs.channels - s1!.subs.shardChannels) /
        (big!.rooms - s1!.rooms);
      return [0, 1].map((i) => {
        const m1 = s1!.memory[i]!,
          mb = big!.memory[i]!,
          m2 = s2!.memory[i]!;
        const rooms = mb.sockets - m1.sockets;
        const mm = run.midMemory?.[i];
        const fromMid = mm ? fmt((mb.rss - mm.rss) / (mb.sockets - mm.sockets) / KIB) : 'n/a';
        return [
          run.adapter,
          i === 0 ? 'A' : 'B',
          String(mb.sockets),
          `${mb.namespaces} (${m2.namespaces})`,
          fmt(mb.rss / KIB / KIB),
          fmt((mb.rss - m1.rss) / rooms / KIB),
          fromMid,
          fmt((mb.heapUsed - m1.heapUsed) / rooms / KIB),
          fmt((m2.heapUsed - m1.heapUsed) / rooms / KIB),
          fmt(redisPerRoom, 0),
          fmt(subsPerRoom, 2),
        ];
      });
    }),
  );
  for (const run of runs) {
    const held = (s: Subscriptions) => `${s.patterns} patterns, ${s.channels} channels, ${s.shardChannels} shard channels`;
    console.log(
      `${run.adapter}: Redis held ${held(run.base)} with no room live; ${held(run.back)} back at ${o.small} rooms; ${held(run.empty)} once every socket had gone`,
    );
  }
}
