import type { ChildProcess } from 'node:child_process';
import test, { type ExecutionContext } from 'ava';
import { Redis } from 'ioredis';
import type { TestDatabase } from '../helpers/env';
import { ownRedisSetup, spawnServer, type ClusterInstance } from '../helpers/cluster';
import { burstOfUserReads, request } from '../helpers/http';
import { killRedis } from '../helpers/redisServer';
import { eventually } from './support';

// Rate-limit leases (src/http/rateLimitLeases.ts): two instances sharing a Redis of this test's own
// (its INFO commandstats count only theirs) reserve a key's points in blocks and spend them locally:
// Redis sees far fewer commands than requests, and while it is away no lease is spent. The limit
// across instances under concurrency: test/cluster/rateLimit.leases.test.ts (also on a Redis Cluster).
// Each test uses its own key, so their windows are apart.
const LIMIT = 200;
const INSTANCES = 2;

let redis: ChildProcess;
let redisPort: number;
let database: TestDatabase;
let client: Redis;
const instances: ClusterInstance[] = [];

test.before(async () => {
  let env: Record<string, string>;
  ({ redis, port: redisPort, database, env } = await ownRedisSetup({ RATE_LIMIT_PER_MINUTE: String(LIMIT) }));
  for (let i = 0; i < INSTANCES; i++) instances.push(await spawnServer(env));
  client = new Redis({ port: redisPort, host: '127.0.0.1', maxRetriesPerRequest: 0, lazyConnect: true });
  client.on('error', () => undefined);
  await client.connect();
});

test.after.always(async () => {
  client?.disconnect();
  await Promise.allSettled(instances.map((i) => i.stop('SIGKILL')));
  redis?.kill('SIGKILL');
  await database?.drop();
});

async function newKey(): Promise<string> {
  const res = await request(`${instances[0]!.url}/api/1.0/user`, 'POST');
  if (res.status !== 201) throw new Error(`guest creation failed: ${res.status} ${res.text}`);
  return res.body.data as string;
}

const burst = (key: string, total: number, inFlight: number, over = instances) =>
  burstOfUserReads(
    over.map((i) => i.url),
    key,
    total,
    inFlight,
  );

/** The rate-limit script's runs so far (rate-limiter-flexible's one Lua script, sent as EVALSHA). */
async function scriptCalls(): Promise<number> {
  const stats = await client.info('commandstats');
  let calls = 0;
  for (const m of stats.matchAll(/cmdstat_(?:eval|evalsha):calls=(\d+)/g)) calls += Number(m[1]);
  return calls;
}

/** The service's Redis rate-limit store (leases of up to 64) on this test's Redis, under `prefix`, outside any instance. */
async function storeOnOwnRedis(t: ExecutionContext, prefix: string) {
  const { createRedis } = await import('../../src/lib/redis');
  const { createLogger } = await import('../../src/logger');
  const { RedisRateLimitStore } = await import('../../src/http/rateLimit');
  const redisClient = createRedis(`redis://127.0.0.1:${redisPort}`, createLogger('silent'), 'test');
  await redisClient.connect();
  t.teardown(() => redisClient.disconnect());
  return new RedisRateLimitStore(redisClient, prefix, createLogger('silent'), 64);
}

test.serial('with leases Redis runs the rate-limit script far fewer times than there are requests', async (t) => {
  const REQUESTS = LIMIT / 2; // within the limit: every request admitted
  const key = await newKey();
  const before = await scriptCalls();
  const answers = await burst(key, REQUESTS, 20);
  const calls = (await scriptCalls()) - before;
  t.log(`${calls} rate-limit scripts run in Redis for ${REQUESTS} requests over ${INSTANCES} instances`);
  t.true(
    answers.every((a) => a.status === 200),
    'all within the limit',
  );
  // Per request, as without leases, would be REQUESTS scripts; with blocks of up to 25, a handful.
  t.true(calls <= REQUESTS / 5, `${calls} scripts for ${REQUESTS} requests`);
  t.true(calls >= 1, 'counted in Redis all the same');
});

test.serial('a key past its limit: the refusals after the first on each instance cost no round trip', async (t) => {
  const key = await newKey();
  const before = await scriptCalls();
  const answers = await burst(key, LIMIT * 3, 20);
  const calls = (await scriptCalls()) - before;
  const refused = answers.filter((a) => a.status === 429);
  t.log(`${calls} rate-limit scripts for ${answers.length} requests, ${refused.length} refused`);
  t.true(refused.length >= LIMIT * 2, 'the limit held');
  // Counting each refusal in Redis (as per-request counting does) would be at least the refusals' number.
  t.true(calls < refused.length / 4, `${calls} scripts for ${refused.length} refusals`);
  for (const res of refused) t.true(Number(res.headers.get('retry-after')) >= 1);
});

test.serial('a flood of distinct keys: the leases kept stay bounded, every hit still counted', async (t) => {
  const store = await storeOnOwnRedis(t, 'flood:');
  const KEYS = 12_000; // past the 10,000 leases kept
  let next = 0;
  let admitted = 0;
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (next < KEYS) {
        const { count } = await store.hit(`flood:${next++}`, 60_000, 1000);
        if (count === 1) admitted += 1;
      }
    }),
  );
  t.log(`${store.leaseCount} leases kept after ${KEYS} keys`);
  t.is(admitted, KEYS, "each key's first hit is its first point");
  t.true(store.leaseCount <= 10_000, `${store.leaseCount} leases kept`);
  // A key whose lease was let go still counts on from Redis: its unspent points are not handed out twice.
  const again = await store.hit('flood:0', 60_000, 1000);
  t.true(again.count >= 2, `flood:0 counts on (${again.count})`);
});

test.serial('the next block is reserved ahead: while Redis is paused, a hot key spends it without waiting', async (t) => {
  const store = await storeOnOwnRedis(t, 'ahead:');
  const hit = () => store.hit('ahead:key', 60_000, LIMIT);
  // Blocks (docs/reliability.md, "Leases"): the first is min(64, 200 / 8) = 25 points; the hit that
  // leaves floor(25 / 4) = 6 of them (the 19th) reserves the next, floor((200 - 25) / 8) = 21 points.
  const FIRST = 25;
  const LOW = Math.floor(FIRST / 4);
  const AHEAD = Math.floor((LIMIT - FIRST) / 8);
  for (let i = 1; i <= FIRST - LOW; i++) t.is((await hit()).count, i);
  const [counter] = await client.keys('ahead:*');
  const counted = async () => Number(await client.get(counter!));
  for (let i = 0; i < 50 && (await counted()) < FIRST + AHEAD; i++) await new Promise((r) => setTimeout(r, 20));
  t.is(await counted(), FIRST + AHEAD, 'the block ahead is counted in Redis');

  await client.call('CLIENT', 'PAUSE', '2000', 'ALL');
  const paused = Date.now();
  const during: number[] = [];
  for (;;) {
    const left = paused + 1500 - Date.now();
    const answer = await Promise.race([hit(), new Promise<null>((r) => setTimeout(() => r(null), Math.max(0, left)))]);
    if (!answer) break;
    during.push(answer.count);
  }
  // Without the block ahead, only the 6 points left would have been spent before Redis answered again.
  t.deepEqual(
    during.slice(0, LOW + AHEAD),
    Array.from({ length: LOW + AHEAD }, (_, i) => FIRST - LOW + 1 + i),
    'the rest of the block, then the block reserved ahead, spent while Redis was paused',
  );
  // Then no hit waits for Redis longer than REDIS_ANSWER_MS: counted in this instance's memory (the insurance).
  const inMemory = during.slice(LOW + AHEAD);
  t.true(inMemory.length > 0, 'hits past the leases are answered while Redis is still paused');
  t.deepEqual(
    inMemory,
    inMemory.map((_, i) => i + 1),
    'counted in memory from 1',
  );
  await new Promise((r) => setTimeout(r, Math.max(0, paused + 2100 - Date.now())));
  t.true((await hit()).count > FIRST + AHEAD, 'counting goes on once Redis answers');
});

test.serial('Redis gone: each instance counts every request in memory, the leases it held are not spent', async (t) => {
  const key = await newKey();
  // A lease on each instance, then Redis goes.
  t.true((await burst(key, 4, 1)).every((a) => a.status === 200));
  await killRedis(redis);
  const [one] = instances;
  // Until its Redis client sees the connection gone the instance rightly spends what it reserved;
  // from then on (its readiness says so) every request is counted in memory.
  const noticed = await eventually(async () => (await request(`${one!.url}/readyz`, 'GET')).status === 503, 10_000, 100);
  t.true(noticed, 'the instance reports Redis unreachable');
  const answers = await burst(key, LIMIT + 20, 10, [one!]);
  const admitted = answers.filter((a) => a.status === 200).length;
  t.log(`${admitted} admitted by one instance with Redis gone (limit ${LIMIT})`);
  // A fresh window in memory: the whole limit on this instance, and not one more (its Redis lease is left alone).
  t.is(admitted, LIMIT);
  const refused = answers.filter((a) => a.status === 429);
  t.is(refused.length, 20);
  for (const res of refused) t.true(Number(res.headers.get('retry-after')) >= 1);
  t.regex(one!.output(), /rate limit store unavailable, counting in this instance's memory/);
});
