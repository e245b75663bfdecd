import type { ChildProcess } from 'node:child_process';
import test from 'ava';
import type { TestDatabase } from '../helpers/env';
import { ownRedisSetup, spawnServer, type ClusterInstance } from '../helpers/cluster';
import { scrape, valueOf } from '../helpers/metrics';
import { killRedis } from '../helpers/redisServer';

// A Redis of this test's own, taken away under a running instance: its failed PUBLISHes are counted.
const TOKEN = 'outage-metrics-token-0123456789';
let redis: ChildProcess | null = null;
let database: TestDatabase;
let instance: ClusterInstance;

test.before(async () => {
  let env: Record<string, string>;
  ({ redis, database, env } = await ownRedisSetup({ METRICS_TOKEN: TOKEN }));
  instance = await spawnServer(env);
});

test.after.always(async () => {
  await instance?.stop();
  redis?.kill('SIGKILL');
  await database?.drop();
});

test('with Redis gone, the realtime PUBLISHes of a roll are counted as failures', async (t) => {
  const metrics = () => scrape(`${instance.url}/metrics`, TOKEN);
  const key = (await instance.api.post('/user')).body.data as string;
  const slug = (await instance.api.as(key).post('/room', { name: 'Outage' })).body.data.slug as string;
  const dice = { dice: [{ type: 'd6', theme: 'standard' }], room: slug };
  t.is((await instance.api.as(key).post('/roll', dice)).status, 201);
  const before = await metrics();
  t.is(valueOf(before, 'dice_redis_publish_failures_total'), 0, 'none while Redis is up');
  t.true(valueOf(before, 'dice_redis_publish_duration_seconds_count') >= 1);

  await killRedis(redis!);
  t.is((await instance.api.as(key).post('/roll', dice)).status, 201, 'the roll is still made');
  let after = await metrics();
  for (let i = 0; i < 100 && valueOf(after, 'dice_redis_publish_failures_total') === 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    after = await metrics();
  }
  if (valueOf(after, 'dice_redis_publish_failures_total') === 0)
    t.log(
      instance.output().slice(-3000),
      after.filter((s) => s.name.startsWith('dice_redis') || s.name.startsWith('dice_realtime')),
    );
  t.true(valueOf(after, 'dice_redis_publish_failures_total') >= 1, 'the lost PUBLISH is counted');
  t.true(valueOf(after, 'dice_redis_publish_duration_seconds_count') > valueOf(before, 'dice_redis_publish_duration_seconds_count'), 'and timed');
  t.is(valueOf(after, 'dice_rolls_created_total'), 2);
});
