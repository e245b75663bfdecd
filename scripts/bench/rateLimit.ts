/**
 * The Redis rate-limit store (src/http/rateLimit.ts): counting every hit in Redis (rate-limiter-flexible,
 * RATE_LIMIT_LEASE_MAX=1, as before leases) against leases (blocks reserved in Redis and spent in this
 * process, RATE_LIMIT_LEASE_MAX=64), with the project's own script it once replaced as the baseline
 * (INCR, PEXPIRE on the first hit, PTTL, one EVALSHA): same Redis, same process, in alternating rounds.
 *
 *   npx tsx scripts/bench/rateLimit.ts [hits per round, default 20000]
 *   BENCH_REDIS_URL=redis://127.0.0.1:6379 (default) or BENCH_REDIS_CLUSTER_NODES=host:port,...; BENCH_ROUNDS (5)
 *
 * Two loads, 50 hits in flight (as concurrent requests would be):
 * - far from the limit: 100 keys, a limit none reaches (an API key's everyday traffic), 100 hits per key;
 * - through the limit: 10 keys with a limit of 1,200 a window, 20% more hits than the 10 budgets hold
 *   (keys spending their whole budget, then refused).
 * Each round counts in fresh windows (new keys), so leases start from nothing every round.
 * Prints hits per second, round trips per hit (scripts run: EVALSHA/EVAL calls), Redis commands per hit
 * (INFO commandstats, the scripts' own commands included), Redis's own CPU
 * per hit (µs), this process's CPU per hit (µs: what the server spends in the limiter, Redis client
 * included) and the admitted hits, with ratios to the baseline. Use a Redis of its own (commandstats
 * count everyone's commands).
 */
import { Redis } from 'ioredis';
import { createRedis, isCluster, type RedisClient, type RedisTarget } from '../../src/lib/redis';
import { RedisRateLimitStore } from '../../src/http/rateLimit';
import { createLogger } from '../../src/logger';
import { ownCpuMicros } from './lib/processes';
import { median } from './lib/stats';

const HITS = Number(process.argv[2] ?? 20_000);
const IN_FLIGHT = 50;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

interface Load {
  name: string;
  keys: number;
  limit: number;
  /** Hits per round; the through-the-limit load is sized by its budgets. */
  hits: number;
}
const LOADS: Load[] = [
  { name: 'far from the limit', keys: 100, limit: 1_000_000, hits: HITS },
  { name: 'through the limit', keys: 10, limit: 1200, hits: Math.round(10 * 1200 * 1.2) },
];

const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}`;

interface Store {
  hit(key: string, windowMs: number, limit: number): Promise<{ count: number; resetMs: number }>;
}

/** The project's former single-script store, kept as the baseline. */
function baselineStore(redis: RedisClient, prefix: string): Store {
  redis.defineCommand('benchRateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  const hit = (redis as unknown as { benchRateLimitHit(key: string, windowMs: number): Promise<[number, number]> }).benchRateLimitHit.bind(redis);
  return {
    async hit(key, windowMs) {
      const [count, resetMs] = await hit(`${prefix}ratelimit:${key}`, windowMs);
      return { count, resetMs };
    },
  };
}

/** One round: hits per second and how many were admitted. `tag` gives the round keys (and windows) of its own. */
async function run(store: Store, load: Load, tag: string): Promise<{ rate: number; admitted: number }> {
  let next = 0;
  let admitted = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < load.hits) {
        const i = next++;
        const { count } = await store.hit(`key:${tag}:${i % load.keys}`, 60_000, load.limit);
        if (count <= load.limit) admitted += 1;
      }
    }),
  );
  return { rate: load.hits / ((performance.now() - start) / 1000), admitted };
}

/** Commands Redis ran so far and the CPU (µs) they took, over every master (our own INFO calls left out). */
async function redisStats(client: RedisClient): Promise<{ scripts: number; calls: number; micros: number }> {
  const nodes: Redis[] = isCluster(client) ? client.nodes('master') : [client as Redis];
  let scripts = 0;
  let calls = 0;
  let micros = 0;
  for (const node of nodes) {
    const stats = await node.info('commandstats');
    for (const m of stats.matchAll(/cmdstat_([a-z|]+):calls=(\d+),usec=(\d+)/g)) {
      if (m[1] === 'info') continue;
      if (m[1] === 'eval' || m[1] === 'evalsha') scripts += Number(m[2]);
      calls += Number(m[2]);
      micros += Number(m[3]);
    }
  }
  return { scripts, calls, micros };
}

async function main() {
  const target: RedisTarget = process.env.BENCH_REDIS_CLUSTER_NODES
    ? {
        clusterNodes: process.env.BENCH_REDIS_CLUSTER_NODES.split(',').map((n) => ({
          host: n.slice(0, n.lastIndexOf(':')),
          port: Number(n.slice(n.lastIndexOf(':') + 1)),
        })),
      }
    : { url: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379' };
  const logger = createLogger('warn');
  const redis = createRedis(target, logger, 'bench');
  await redis.connect();
  const prefix = `bench${process.pid}:`;
  const stores: Array<[string, Store]> = [
    ['own script (baseline)', baselineStore(redis, `${prefix}a:`)],
    ['per hit (lease max 1)', new RedisRateLimitStore(redis, `${prefix}b:`, logger, 1)],
    ['leases (lease max 64)', new RedisRateLimitStore(redis, `${prefix}c:`, logger, 64)],
  ];
  console.log(`${'url' in target ? 'one Redis' : 'Redis Cluster'}: ${IN_FLIGHT} in flight, median of ${ROUNDS} rounds`);
  for (const [l, load] of LOADS.entries()) {
    type Row = { rates: number[]; trips: number[]; commands: number[]; redisMicros: number[]; cpuMicros: number[]; admitted: number[] };
    const results = new Map<string, Row>(stores.map(([name]) => [name, { rates: [], trips: [], commands: [], redisMicros: [], cpuMicros: [], admitted: [] }]));
    // Warm-up (scripts loaded, connections open), then alternating rounds.
    for (const [, store] of stores) await run(store, { ...load, hits: Math.min(load.hits, 2000) }, `l${l}warm`);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, store] of stores) {
        const before = await redisStats(redis);
        const cpu = ownCpuMicros();
        const { rate, admitted } = await run(store, load, `l${l}r${round}`);
        const used = ownCpuMicros(cpu);
        const after = await redisStats(redis);
        const row = results.get(name)!;
        row.rates.push(rate);
        row.trips.push((after.scripts - before.scripts) / load.hits);
        row.commands.push((after.calls - before.calls) / load.hits);
        row.redisMicros.push((after.micros - before.micros) / load.hits);
        row.cpuMicros.push(used / load.hits);
        row.admitted.push(admitted);
      }
    }
    const base = results.get(stores[0]![0])!;
    const ratio = (x: number, b: number) => (b > 0 ? (x / b).toFixed(2) : '-').padStart(6);
    console.log(`\n${load.name}: ${load.hits} hits per round over ${load.keys} keys, limit ${load.limit} per key and window`);
    console.log(
      'store'.padEnd(24),
      'hits/s'.padStart(8),
      'ratio',
      'trips/hit'.padStart(9),
      'ratio',
      'cmds/hit'.padStart(9),
      'Redis µs/hit'.padStart(13),
      'ratio',
      'CPU µs/hit'.padStart(11),
      'ratio',
      'admitted'.padStart(9),
    );
    for (const [name] of stores) {
      const r = results.get(name)!;
      console.log(
        name.padEnd(24),
        median(r.rates).toFixed(0).padStart(8),
        ratio(median(r.rates), median(base.rates)),
        median(r.trips).toFixed(3).padStart(9),
        ratio(median(r.trips), median(base.trips)),
        median(r.commands).toFixed(3).padStart(9),
        median(r.redisMicros).toFixed(2).padStart(13),
        ratio(median(r.redisMicros), median(base.redisMicros)),
        median(r.cpuMicros).toFixed(1).padStart(11),
        ratio(median(r.cpuMicros), median(base.cpuMicros)),
        String(median(r.admitted)).padStart(9),
      );
    }
  }
  // Clean up this run's counters.
  const nodes: Redis[] = isCluster(redis) ? redis.nodes('master') : [redis as Redis];
  for (const node of nodes) {
    const keys = await node.keys(`${prefix}*`);
    for (const key of keys) await redis.del(key);
  }
  redis.disconnect();
}

await main();
