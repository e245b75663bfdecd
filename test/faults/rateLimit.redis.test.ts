import { randomBytes } from 'node:crypto';
import test from 'ava';
import { spawnServer, type ClusterInstance } from '../helpers/cluster';
import { createTestDatabase } from '../helpers/env';
import { request } from '../helpers/http';
import { startProxy } from '../helpers/proxy';
import { eventually, isolatedRedis, teardownSteps } from './support';

// The Redis rate-limit store (rate-limiter-flexible): while Redis is away each instance counts in its
// own memory (the insurance limiter), with one warning per outage (not one per request) and one
// recovery line; its keys carry REDIS_PREFIX so that two deployments can share one Redis database.
const teardown = teardownSteps(test);

const UNAVAILABLE = "rate limit store unavailable, counting in this instance's memory until Redis answers again";
const RECOVERED = 'rate limit store recovered';
const uniquePrefix = (name: string) => `t${randomBytes(4).toString('hex')}-${name}:`;

/** An instance (own process, own database) with the given Redis and env; logs at info. */
async function instance(redisUrl: string, env: Record<string, string>): Promise<ClusterInstance> {
  const database = await createTestDatabase();
  teardown.push(() => database.drop());
  const server = await spawnServer({
    DATABASE_URL: database.databaseUrl ?? '',
    DATA_DIR: database.dataDir,
    REDIS_URL: redisUrl,
    PUSHER_APP_SECRET: 'test-pusher-secret-0123456789',
    GUESTS_PER_HOUR: '100000',
    RATE_LIMIT_PER_MINUTE: '1000000',
    AUTH_FAILURES_PER_MINUTE: '1000000',
    SHUTDOWN_TIMEOUT_MS: '2000',
    ...env,
  });
  teardown.push(() => server.stop('SIGKILL'));
  return server;
}

function logLines(output: string): Array<{ level: number; msg: string; [field: string]: unknown }> {
  return output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
}

async function newGuest(base: string): Promise<string> {
  const res = await request(`${base}/api/1.0/user`, 'POST');
  if (res.status !== 201) throw new Error(`guest creation failed: ${res.status} ${res.text}`);
  return res.body.data as string;
}

/** An instance whose Redis goes through a proxy the test can cut and restore. */
async function behindProxy(env: Record<string, string>) {
  const redis = await isolatedRedis();
  teardown.push(() => redis.close());
  const target = new URL(redis.url);
  const proxy = await startProxy(target.hostname, Number(target.port || 6379));
  teardown.push(() => proxy.close());
  const viaProxy = new URL(redis.url);
  viaProxy.port = String(proxy.port);
  const prefix = uniquePrefix('outage');
  const server = await instance(viaProxy.toString(), { REDIS_PREFIX: prefix, ...env });
  return { redis, proxy, server, prefix };
}

const recoveries = (server: ClusterInstance) => logLines(server.output()).filter((l) => l.msg === RECOVERED).length;

test.serial('Redis cut twice: requests are counted in memory meanwhile, each outage logs one warning and one recovery', async (t) => {
  // Every hit counted one by one (RATE_LIMIT_LEASE_MAX=1): with leases, a hit sent before the instance
  // noticed the cut could be spent from its lease, already counted in Redis, and the tally below would be
  // one short. What leases do in an outage: test/faults/rateLimit.leases.test.ts.
  const { proxy, server } = await behindProxy({ RATE_LIMIT_LEASE_MAX: '1' });
  const key = await newGuest(server.url);
  const me = () => request(`${server.url}/api/1.0/user`, 'GET', { key });
  t.truthy((await me()).headers.get('ratelimit-limit'), 'counted in Redis before the outage');

  const OUTAGES = 2;
  const PER_OUTAGE = { known: 20, unknown: 10, guests: 5 };
  for (let outage = 1; outage <= OUTAGES; outage++) {
    await proxy.cut();
    // Every limiter keeps counting, in memory: the key limit (GET /user), failed keys (auth.ts), guest creation.
    for (let i = 0; i < PER_OUTAGE.known; i++) {
      const res = await me();
      t.is(res.status, 200, `GET /user ${i} during outage ${outage}`);
      t.truthy(res.headers.get('ratelimit-remaining'), 'still counted (in memory): RateLimit headers');
    }
    for (let i = 0; i < PER_OUTAGE.unknown; i++) {
      const res = await request(`${server.url}/api/1.0/room`, 'GET', { key: 'dk_unknownunknownunknownunknownunknownunknownu' });
      t.is(res.status, 401, `an unknown key is still refused during outage ${outage}`);
    }
    for (let i = 0; i < PER_OUTAGE.guests; i++) t.is((await request(`${server.url}/api/1.0/user`, 'POST')).status, 201);
    await proxy.restore();
    const counted = await eventually(async () => (await me()).status === 200 && recoveries(server) === outage, 20_000, 200);
    t.true(counted, `counted in Redis again after outage ${outage}`);
  }

  const lines = logLines(server.output());
  const rateLimitLines = lines.filter((l) => /rate limit/.test(l.msg));
  t.deepEqual(
    rateLimitLines.map((l) => l.msg),
    Array.from({ length: OUTAGES }, () => [UNAVAILABLE, RECOVERED]).flat(),
    'per outage: one warning, then one recovery line; nothing per request',
  );
  for (const line of rateLimitLines.filter((l) => l.msg === UNAVAILABLE)) t.is(line.level, 40, 'the outage is a warning');
  const perOutage = PER_OUTAGE.known + PER_OUTAGE.unknown + PER_OUTAGE.guests;
  for (const line of rateLimitLines.filter((l) => l.msg === RECOVERED)) {
    t.is(line.level, 30, 'the recovery is info');
    // At least the requests sent while cut; the polls before ioredis reconnected were counted in memory too.
    t.true(Number(line.inMemory) >= perOutage, `${line.inMemory} hits counted in memory reported, ${perOutage} sent during the outage`);
    t.true(Number(line.outageMs) > 0, 'the outage length is reported');
  }
  t.log(rateLimitLines.map((l) => JSON.stringify({ msg: l.msg, inMemory: l.inMemory, outageMs: l.outageMs })).join('\n'));
  t.is(server.child.exitCode, null, 'the instance never crashed');
});

test.serial("while Redis is cut the limits still hold, in the instance's memory; back in Redis afterwards", async (t) => {
  const LIMIT = 5;
  const { redis, proxy, server, prefix } = await behindProxy({ RATE_LIMIT_PER_MINUTE: String(LIMIT) });
  const key = await newGuest(server.url);
  const me = () => request(`${server.url}/api/1.0/user`, 'GET', { key });
  t.is((await me()).headers.get('ratelimit-remaining'), String(LIMIT - 1), 'one hit in Redis');
  await proxy.cut();
  // A fresh window in memory: the whole budget, then 429 with Retry-After.
  const remaining: string[] = [];
  for (let i = 0; i < LIMIT; i++) {
    const res = await me();
    t.is(res.status, 200);
    remaining.push(res.headers.get('ratelimit-remaining') ?? '');
  }
  t.deepEqual(
    remaining,
    Array.from({ length: LIMIT }, (_, i) => String(LIMIT - 1 - i)),
  );
  const limited = await me();
  t.is(limited.status, 429, 'limited by the insurance limiter while Redis is away');
  t.is(limited.body.data.code, 'rate_limited');
  t.true(Number(limited.headers.get('retry-after')) > 0);
  await proxy.restore();
  // Redis's window still holds its one hit: the next counted there says so (LIMIT - 2 left).
  const back = await eventually(
    async () => {
      const res = await me();
      return recoveries(server) === 1 ? res : null;
    },
    20_000,
    200,
  );
  t.truthy(back, 'counted in Redis again');
  const [counter] = await redis.client.keys(`${prefix}ratelimit:key:*`);
  t.truthy(counter);
  t.true(Number(await redis.client.get(counter!)) >= 2, 'the hits after the outage went to the Redis counter');
});

test.serial('two deployments on one Redis database keep their own counters under their REDIS_PREFIX', async (t) => {
  const redis = await isolatedRedis();
  teardown.push(() => redis.close());
  const LIMIT = 3;
  const prefixes = [uniquePrefix('a'), uniquePrefix('b')] as const;
  const [a, b] = await Promise.all(prefixes.map((p) => instance(redis.url, { REDIS_PREFIX: p, RATE_LIMIT_PER_MINUTE: String(LIMIT) })));
  const [keyA, keyB] = [await newGuest(a!.url), await newGuest(b!.url)];

  // Each deployment's first key has the same row id: unprefixed, the two would spend one budget.
  for (let i = 0; i < LIMIT; i++) t.is((await request(`${a!.url}/api/1.0/user`, 'GET', { key: keyA })).status, 200);
  t.is((await request(`${a!.url}/api/1.0/user`, 'GET', { key: keyA })).status, 429, 'deployment a spent its budget');
  const onB = await request(`${b!.url}/api/1.0/user`, 'GET', { key: keyB });
  t.is(onB.status, 200, 'deployment b still has its own');
  t.is(onB.headers.get('ratelimit-remaining'), String(LIMIT - 1));

  const [keysA, keysB] = await Promise.all(prefixes.map((p) => redis.client.keys(`${p}*`)));
  t.log({ a: keysA, b: keysB });
  for (const [p, keys] of [
    [prefixes[0], keysA!],
    [prefixes[1], keysB!],
  ] as const) {
    t.true(
      keys.some((k) => k.startsWith(`${p}ratelimit:guest:`)),
      `guest counter under ${p}`,
    );
    t.true(
      keys.some((k) => k.startsWith(`${p}ratelimit:key:`)),
      `per-key counter under ${p}`,
    );
  }
  const keyCounters = (p: string, keys: string[]) => keys.filter((k) => k.startsWith(`${p}ratelimit:key:`)).map((k) => k.slice(p.length));
  t.deepEqual(keyCounters(prefixes[0], keysA!), keyCounters(prefixes[1], keysB!), 'the same counter name in both deployments, told apart only by the prefix');
  const [counterA] = keysA!.filter((k) => k.startsWith(`${prefixes[0]}ratelimit:key:`));
  const [counterB] = keysB!.filter((k) => k.startsWith(`${prefixes[1]}ratelimit:key:`));
  t.is(await redis.client.get(counterA!), String(LIMIT + 1));
  t.is(await redis.client.get(counterB!), '1');
  t.deepEqual(await redis.client.keys('ratelimit:*'), [], 'no rate-limit key without a prefix');
});
