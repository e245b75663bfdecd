import { randomBytes } from 'node:crypto';
import test from 'ava';
import { redisClient, redisKeys, useCluster } from '../helpers/cluster';
import { burstOfUserReads } from '../helpers/http';

// Rate-limit leases (src/http/rateLimitLeases.ts) across two instances on the pass's Redis (one
// server, or the Redis Cluster): many concurrent requests of one key, spread over both, never get
// more than the limit admitted, and at most the documented bound of it goes unused.
const LIMIT = 200;
const INSTANCES = 2;
/** docs/reliability.md, "Leases": at most (instances - 1) x (largest block + a quarter of it, reserved ahead) points unspent elsewhere at a refusal. */
const boundFor = (limit: number) => {
  const largestBlock = Math.min(64, Math.floor(limit / 8));
  return (INSTANCES - 1) * (largestBlock + Math.floor(largestBlock / 4));
};
const BOUND = boundFor(LIMIT);
const prefix = `rl${randomBytes(4).toString('hex')}:`;
const PASSCODE_LIMIT = 40;
const cluster = useCluster(test, INSTANCES, { REDIS_PREFIX: prefix, RATE_LIMIT_PER_MINUTE: String(LIMIT), PASSCODE_FAILURES_PER_HOUR: String(PASSCODE_LIMIT) });

const burst = (key: string, total: number, inFlight: number) =>
  burstOfUserReads(
    cluster.current.instances.map((i) => i.url),
    key,
    total,
    inFlight,
  );

test.serial('many concurrent requests over two instances: never more than the limit admitted, at most the bound left unused', async (t) => {
  const { key } = await cluster.current.newUser(0);
  const answers = await burst(key, LIMIT * 2, 40);
  const admitted = answers.filter((a) => a.status === 200);
  const refused = answers.filter((a) => a.status === 429);
  t.log(`${admitted.length} admitted of ${answers.length} (limit ${LIMIT}, bound ${BOUND})`);
  t.is(admitted.length + refused.length, answers.length, 'every answer a 200 or a 429');
  // newUser's own request (GET /user) spent one point already.
  t.true(admitted.length + 1 <= LIMIT, `${admitted.length} admitted: never more than the limit across instances`);
  t.true(admitted.length + 1 >= LIMIT - BOUND, `${admitted.length} admitted: at least the limit minus the bound (${BOUND})`);
  for (const res of refused) {
    const retryAfter = Number(res.headers.get('retry-after'));
    t.true(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter} within the window`);
    t.is(res.headers.get('ratelimit-remaining'), '0');
    t.is(res.body.data.code, 'rate_limited');
  }
  for (const res of admitted) {
    const remaining = Number(res.headers.get('ratelimit-remaining'));
    t.true(remaining >= 0 && remaining < LIMIT, `RateLimit-Remaining ${remaining}`);
  }
  const redis = redisClient();
  try {
    const counters = (await redisKeys(redis, `${prefix}ratelimit:key:*`)).filter((k) => k.startsWith(prefix));
    t.is(counters.length, 1);
    t.true(Number(await redis.get(counters[0]!)) >= LIMIT, 'the shared counter reached the limit');
  } finally {
    redis.disconnect();
  }
});

test.serial('passcodes with leases: right ones are given back (to the lease they came from), wrong ones stop at the limit', async (t) => {
  const [A, B] = cluster.current.instances.map((i) => i.api);
  const owner = await cluster.current.newUser(0);
  const room = (await owner.api.post('/room', { name: 'Vault', is_public: false, passcode: 'k3y5' })).body.data;
  const viewer = await cluster.current.newUser(1);
  const guesser = await cluster.current.newUser(0);
  // Half again the budget of right passcodes, over both instances: each counted, then given back.
  const right = [];
  for (let i = 0; i < PASSCODE_LIMIT * 1.5; i++) right.push((await (i % 2 ? B! : A!).as(viewer.key).get(`/room/${room.slug}?passcode=k3y5`)).status);
  t.deepEqual(
    right.filter((s) => s !== 200),
    [],
    'every right passcode given back: never limited',
  );
  // Wrong ones, 10 at a time over both instances: at most the limit compared (403), at least the limit minus the bound.
  const bound = boundFor(PASSCODE_LIMIT);
  const wrong: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (next < PASSCODE_LIMIT * 2) {
        const i = next++;
        wrong.push((await (i % 2 ? B! : A!).as(guesser.key).post(`/room/${room.slug}/participant`, { passcode: `w${i}` })).status);
      }
    }),
  );
  const compared = wrong.filter((s) => s === 403).length;
  t.log(`${compared} wrong passcodes compared of ${wrong.length} (limit ${PASSCODE_LIMIT}, bound ${bound})`);
  t.is(compared + wrong.filter((s) => s === 429).length, wrong.length);
  t.true(compared <= PASSCODE_LIMIT && compared >= PASSCODE_LIMIT - bound, `${compared} compared`);
});
