/**
 * The Redis rate-limit store (rate-limiter-flexible, src/http/rateLimit.ts) against the project's own
 * script it replaced (kept here as the baseline: INCR, PEXPIRE on the first hit, PTTL, one EVALSHA),
 * same Redis, same process, same keys, in alternating rounds.
 *
 *   npx tsx scripts/bench/rateLimit.ts [hits per round, default 20000]
 *   BENCH_REDIS_URL=redis://127.0.0.1:6379 (default) or BENCH_REDIS_CLUSTER_NODES=host:port,...; BENCH_ROUNDS (5)
 *
 * Prints hits per second (50 in flight, as concurrent requests would be) and the ratio to the
 * baseline, plus Redis's own CPU per hit when the server reports it (INFO commandstats).
 */
import { Redis } from 'ioredis';
import { createRedis, isCluster, type RedisClient, type RedisTarget } from '../../src/lib/redis';
import { RedisRateLimitStore } from '../../src/http/rateLimit';
import { createLogger } from '../../src/logger';

const HITS = Number(process.argv[2] ?? 20_000);
const IN_FLIGHT = 50;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const KEYS = 1000;

const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}`;

interface Store {
  hit(key: string, windowMs: number): Promise<{ count: number; resetMs: number }>;
}

/** The store as it was before issue 22. */
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

async function run(store: Store, hits: number): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < hits) {
        const i = next++;
        await store.hit(`key:${i % KEYS}`, 60_000);
      }
    }),
  );
  return hits / ((performance.now() - start) / 1000);
}

/** Redis CPU (µs) spent in EVAL/EVALSHA so far, over every master. */
async function redisScriptMicros(client: RedisClient): Promise<number> {
  const nodes: Redis[] = isCluster(client) ? client.nodes('master') : [client as Redis];
  let total = 0;
  for (const node of nodes) {
    const stats = await node.info('commandstats');
    for (const m of stats.matchAll(/cmdstat_(?:eval|evalsha):calls=\d+,usec=(\d+)/g)) total += Number(m[1]);
  }
  return total;
}

async function main() {
  const target: RedisTarget = process.env.BENCH_REDIS_CLUSTER_NODES
    ? { clusterNodes: process.env.BENCH_REDIS_CLUSTER_NODES.split(',').map((n) => ({ host: n.slice(0, n.lastIndexOf(':')), port: Number(n.slice(n.lastIndexOf(':') + 1)) })) }
    : { url: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379' };
  const logger = createLogger('warn');
  const redis = createRedis(target, logger, 'bench');
  await redis.connect();
  const prefix = `bench${process.pid}:`;
  const stores: Array<[string, Store]> = [
    ['own script (baseline)', baselineStore(redis, `${prefix}a:`)],
    ['rate-limiter-flexible', new RedisRateLimitStore(redis, `${prefix}b:`, logger)],
  ];
  const results = new Map<string, { rates: number[]; micros: number[] }>(stores.map(([name]) => [name, { rates: [], micros: [] }]));
  // Warm-up (scripts loaded, connections open), then alternating rounds.
  for (const [, store] of stores) await run(store, 2000);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, store] of stores) {
      const before = await redisScriptMicros(redis);
      const rate = await run(store, HITS);
      const micros = ((await redisScriptMicros(redis)) - before) / HITS;
      results.get(name)!.rates.push(rate);
      results.get(name)!.micros.push(micros);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  const base = results.get(stores[0]![0])!;
  console.log(`${'url' in target ? 'one Redis' : 'Redis Cluster'}: ${HITS} hits per round, ${IN_FLIGHT} in flight, ${KEYS} keys, median of ${ROUNDS} rounds`);
  console.log('store'.padEnd(24), 'hits/s'.padStart(9), 'ratio'.padStart(7), 'Redis µs/hit'.padStart(13), 'ratio'.padStart(7));
  for (const [name] of stores) {
    const r = results.get(name)!;
    console.log(
      name.padEnd(24),
      median(r.rates).toFixed(0).padStart(9),
      (median(r.rates) / median(base.rates)).toFixed(2).padStart(7),
      median(r.micros).toFixed(2).padStart(13),
      (median(r.micros) / median(base.micros)).toFixed(2).padStart(7),
    );
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
