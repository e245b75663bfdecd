import test from 'ava';
import type { ChildProcess } from 'node:child_process';
import { startRedis } from '../helpers/redisServer';
import type { TestDatabase } from '../helpers/env';
import { ownRedisSetup, spawnServer, type ClusterInstance } from '../helpers/cluster';
import { closeAll, connectRoom, connectWelcomed, type Client } from '../helpers/sockets';

// Redis goes away under two running instances and comes back empty. A Redis of this test's own
// (test/helpers/redisServer.ts), so the shared one stays up for the other tests.
let redis: ChildProcess | null = null;
let port = 0;
let database: TestDatabase;
const instances: ClusterInstance[] = [];
const clients: Client[] = [];

test.before(async () => {
  let env: Record<string, string>;
  ({ port, redis, database, env } = await ownRedisSetup());
  instances.push(await spawnServer(env));
  instances.push(await spawnServer(env));
});

test.after.always(async () => {
  closeAll(...clients);
  await Promise.all(instances.map((i) => i.stop()));
  redis?.kill('SIGKILL');
  await database?.drop();
});

test('Redis down: no crash, REST answers, sockets stay; Redis back (empty): sockets told to replay, events flow again', async (t) => {
  const [A, B] = instances as [ClusterInstance, ClusterInstance];
  const key = (await A.api.post('/user')).body.data as string;
  const other = (await B.api.post('/user')).body.data as string;
  const slug = (await A.api.as(key).post('/room', { name: 'Outage' })).body.data.slug as string;
  t.is((await B.api.as(other).post(`/room/${slug}/participant`, {})).status, 200);
  const onB = await connectWelcomed(B.url, slug, { token: other }, clients);
  const dice = { dice: [{ type: 'd6', theme: 'standard' }], room: slug };
  const before = await A.api.as(key).post('/roll', dice);
  await onB.waitFor('RollCreateEvent', (p) => p.data.uuid === before.body.data.uuid);

  redis!.kill('SIGKILL');
  await new Promise((r) => redis!.once('exit', r));
  for (const instance of [A, B]) {
    t.is((await instance.api.as(key).get('/user')).status, 200);
    t.is((await instance.api.as(key).post('/roll', dice)).status, 201, 'rolls are still made');
    t.is((await instance.api.as(key).get(`/room/${slug}`)).status, 200);
  }
  // A socket may even connect meanwhile (it is counted in once Redis is back).
  const lateOnA = await connectWelcomed(A.url, slug, { token: key }, clients);
  t.true(onB.socket.connected);
  t.is(A.child.exitCode, null, 'instance A is alive');
  t.is(B.child.exitCode, null, 'instance B is alive');

  // Listening before Redis is back: the two sockets are told and closed at about the same moment, so
  // one may be gone before the other's wait ends.
  const closed = new Map([onB, lateOnA].map((c) => [c, c.waitForDisconnect(30_000)] as const));
  redis = await startRedis(port);
  // Back: each instance may have missed events, so it tells its room sockets to replay and closes
  // their connection (docs/realtime.md, ReplayRequiredEvent). These test clients do not reconnect
  // by themselves: they do it by hand, as src/client/realtime.ts would, with the last roll they saw.
  for (const socket of [onB, lateOnA]) {
    const told = await socket.waitFor('ReplayRequiredEvent', () => true, 15_000);
    t.is(told.data.reason, 'redis_reconnected');
    t.is(await closed.get(socket), 'transport close');
  }
  const lastSeen = (c: Client) => c.of('RollCreateEvent').at(-1)?.data.uuid as string | undefined;
  const againOnB = await connectRoom(B.url, slug, { token: other, since: lastSeen(onB) });
  const againOnA = await connectRoom(A.url, slug, { token: key });
  clients.push(againOnB, againOnA);
  // Events flow again once the instances have reconnected (ioredis retries every 2 s at most).
  let delivered = false;
  for (let i = 0; i < 40 && !delivered; i++) {
    const res = await A.api.as(key).post('/roll', dice);
    t.is(res.status, 201);
    delivered = await againOnB
      .waitFor('RollCreateEvent', (p) => p.data.uuid === res.body.data.uuid, 500)
      .then(
        () => true,
        () => false,
      );
  }
  t.true(delivered, 'a roll made on A reaches B again');
  // The namespace A created while Redis was away is subscribed now too: B's events reach it.
  let reached = false;
  for (let i = 0; i < 20 && !reached; i++) {
    const res = await B.api.as(other).post('/roll', dice);
    reached = await againOnA
      .waitFor('RollCreateEvent', (p) => p.data.uuid === res.body.data.uuid, 500)
      .then(
        () => true,
        () => false,
      );
  }
  t.true(reached, 'a roll made on B reaches the socket that connected to A during the outage');
  for (const instance of [A, B]) {
    t.false(instance.output().includes('"level":60'), 'no fatal log line');
    for (const line of instance.output().split('\n')) if (line.includes('unhandled rejection')) t.log(line.slice(0, 600));
    t.false(instance.output().includes('unhandled rejection'), 'every Redis failure is handled');
  }
});
