import test from 'ava';
import type { ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { killRedis, startRedis } from '../helpers/redisServer';
import type { TestDatabase } from '../helpers/env';
import { ownRedisSetup, spawnServer, type ClusterInstance } from '../helpers/cluster';
import { Api } from '../helpers/http';
import { closeAllPusher, connectPusher } from '../helpers/pusher';

// Sharded pub/sub across a Redis restart: a room namespace created on A while Redis was away (here
// by a Pusher subscription, which, unlike a Socket.IO socket, is not closed and reopened when Redis
// comes back) could not SSUBSCRIBE then; once Redis is back A must SSUBSCRIBE it (server.ts
// resubscribeOnReconnect), or it never hears the room's events published elsewhere.
let redis: ChildProcess | null = null;
let port = 0;
let database: TestDatabase;
const instances: ClusterInstance[] = [];

test.before(async () => {
  let env: Record<string, string>;
  ({ port, redis, database, env } = await ownRedisSetup());
  instances.push(await spawnServer(env));
  instances.push(await spawnServer(env));
});

test.after.always(async () => {
  closeAllPusher();
  await Promise.all(instances.map((i) => i.stop()));
  if (redis) await killRedis(redis);
  await database?.drop();
});

test('a room namespace made during an outage is shard-subscribed once Redis is back: events from the other instance reach it', async (t) => {
  const [A, B] = instances as [ClusterInstance, ClusterInstance];
  const key = (await A.api.post('/user')).body.data as string;
  const slug = (await A.api.as(key).post('/room', { name: 'Outage' })).body.data.slug as string;
  const channel = `dice#/room/${slug}#`;

  await killRedis(redis!);
  // Nothing of this room exists on A yet: the subscription makes its namespace while Redis is away.
  const listener = await connectPusher(A.url, { key });
  await listener.subscribe(`presence-room.${slug}`);

  redis = await startRedis(port);
  const probe = new Redis({ port, host: '127.0.0.1' });
  t.teardown(() => probe.disconnect());
  const subscribers = async () => ((await probe.call('PUBSUB', 'SHARDNUMSUB', channel)) as [string, number])[1];
  const api = new Api(B.url).as(key);
  let heard = false;
  for (let i = 0; i < 40 && !heard; i++) {
    const roll = await api.post('/roll', { dice: [{ type: 'd6', theme: 'standard' }], room: slug });
    t.is(roll.status, 201);
    heard = await listener
      .waitFor('App\\Events\\RollCreateEvent', (m) => m.data.data.uuid === roll.body.data.uuid, 500)
      .then(
        () => true,
        () => false,
      );
  }
  t.true(heard, `a roll made through B reaches the subscription A took during the outage (shard channel subscribers: ${await subscribers()})`);
  t.is(await subscribers(), 1, "A's adapter holds the room's shard channel");
  for (const instance of instances) t.false(instance.output().includes('unhandled rejection'), 'every Redis failure is handled');
});
