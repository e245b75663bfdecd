import { randomBytes } from 'node:crypto';
import test from 'ava';
import { redisClient, redisKeys, useCluster } from '../helpers/cluster';

// Two instances sharing PostgreSQL and Redis; a prefix of this file's own, so no other run's counters meet ours.
const prefix = `pc${randomBytes(4).toString('hex')}:`;
const cluster = useCluster(test, 2, { PASSCODE_FAILURES_PER_HOUR: '3', REDIS_PREFIX: prefix });

test('wrong passcodes are one budget across instances (Redis), and right ones are given back there too', async (t) => {
  const [A, B] = cluster.current.instances.map((i) => i.api);
  const owner = await cluster.current.newUser(0);
  const room = (await owner.api.post('/room', { name: 'Vault', is_public: false, passcode: 'k3y5' })).body.data;
  const guesser = await cluster.current.newUser(1);
  const viewer = await cluster.current.newUser(0);
  const as = (api: typeof A, key: string) => api!.as(key);

  // Right passcodes through both instances, more than the budget: each one is counted and given back.
  for (let i = 0; i < 5; i++) t.is((await as(i % 2 ? B! : A!, viewer.key).get(`/room/${room.slug}?passcode=k3y5`)).status, 200);
  const redis = redisClient();
  t.teardown(() => redis.quit());
  const counters = await redisKeys(redis, `${prefix}ratelimit:passcode:*:${room.slug}`);
  t.is(counters.length, 1, "one counter: the viewer's, in Redis under the deployment's prefix");
  t.is(await redis.get(counters[0]!), '0', 'every right passcode was counted, then given back');
  t.true((await redis.pttl(counters[0]!)) > 0, 'the counter expires with its window');

  // Wrong ones alternate between the instances and spend one budget.
  t.is((await as(A!, guesser.key).post(`/room/${room.slug}/participant`, { passcode: 'aaaa' })).status, 403);
  t.is((await as(B!, guesser.key).post(`/room/${room.slug}/participant`, { passcode: 'bbbb' })).status, 403);
  t.is((await as(A!, guesser.key).get(`/room/${room.slug}?passcode=cccc`)).status, 403);
  const limited = [
    await as(B!, guesser.key).post(`/room/${room.slug}/participant`, { passcode: 'dddd' }),
    await as(A!, guesser.key).post(`/room/${room.slug}/participant`, { passcode: 'k3y5' }),
  ];
  for (const res of limited) {
    t.is(res.status, 429);
    t.is(res.body.data.code, 'rate_limited');
    t.true(Number(res.headers.get('retry-after')) > 3500, 'an hour window, just opened');
  }
  t.is((await as(B!, viewer.key).post(`/room/${room.slug}/participant`, { passcode: 'k3y5' })).status, 200, 'the viewer was never limited');
});
