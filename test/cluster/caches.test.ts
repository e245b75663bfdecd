import test from 'ava';
import type { ChildProcess } from 'node:child_process';
import type { ManagerOptions, SocketOptions } from 'socket.io-client';
import { connectRoom as liveRoom } from '../../src/client/realtime';
import type { TestDatabase } from '../helpers/env';
import { ownRedisSetup, spawnServer, type ClusterInstance } from '../helpers/cluster';
import { runCli } from '../helpers/cli';
import { killRedis, startRedis } from '../helpers/redisServer';
import { Client } from '../helpers/sockets';

/**
 * The in-process caches across instances (docs/api.md, "Caches and bounded staleness"):
 * two instances on PostgreSQL and a redis-server of this test's own, which the last test stops.
 * A and B keep cached entries for 10 s (CACHE_TTL_MS, the maximum), so that a refusal well before
 * then (BEFORE_TTL_MS) can only be the pushed invalidation; C keeps them for 1 s, to show that the TTL
 * alone bounds a push lost while Redis is away. How long each took is logged, not asserted: the
 * behaviour is which mechanism refused, and half the TTL leaves a busy machine all the slack it needs.
 */
const LONG_TTL_MS = 10_000;
const BEFORE_TTL_MS = LONG_TTL_MS / 2;
const SHORT_TTL_MS = 1000;

let redis: ChildProcess | null = null;
let port = 0;
let database: TestDatabase;
let env: Record<string, string>;
let A: ClusterInstance;
let B: ClusterInstance;
let C: ClusterInstance;
const clients: Client[] = [];

test.before(async () => {
  ({ port, redis, database, env } = await ownRedisSetup({ REDIS_PREFIX: 'caches:', CACHE_TTL_MS: String(LONG_TTL_MS) }));
  A = await spawnServer(env);
  [B, C] = await Promise.all([spawnServer(env), spawnServer({ ...env, CACHE_TTL_MS: String(SHORT_TTL_MS) })]);
});

test.after.always(async () => {
  for (const c of clients) c.socket.disconnect();
  await Promise.all([A, B, C].filter(Boolean).map((i) => i.stop()));
  if (redis) await killRedis(redis);
  await database?.drop();
});

const SOCKET: Partial<ManagerOptions & SocketOptions> = { transports: ['websocket'], forceNew: true, reconnection: false };

async function inRoom(instance: ClusterInstance, slug: string, key: string): Promise<Client> {
  const client = new Client(liveRoom(instance.url, key, slug, { socket: SOCKET }) as unknown as Client['socket']);
  clients.push(client);
  await client.waitFor('RoomUpdateEvent');
  return client;
}

async function guest(instance: ClusterInstance) {
  const key = (await instance.api.post('/user')).body.data as string;
  return { key, uuid: (await instance.api.as(key).get('/user')).body.data.uuid as string, on: (i: ClusterInstance) => i.api.as(key) };
}

type Guest = Awaited<ReturnType<typeof guest>>;

const D6 = { dice: [{ type: 'd6', theme: 'standard' }] };

async function roomWith(owner: Guest, player: Guest) {
  const slug = (await owner.on(A).post('/room', { name: 'Cached', is_public: true })).body.data.slug as string;
  const joined = await player.on(A).post(`/room/${slug}/participant`, {});
  if (joined.status !== 200) throw new Error(`join failed: ${joined.status} ${joined.text}`);
  const seatId = (joined.body.data.participants as Array<{ id: number; user: { uuid: string } }>).find((p) => p.user.uuid === player.uuid)!.id;
  return { slug, seatId };
}

async function rolled(by: Guest, on: ClusterInstance, slug: string): Promise<string> {
  const res = await by.on(on).post('/roll', { ...D6, room: slug });
  if (res.status !== 201) throw new Error(`roll failed: ${res.status} ${res.text}`);
  return res.body.data.uuid as string;
}

/**
 * Ms from `since` until `ask()` answers `status` (asked again every 25 ms), or -1 when it still has
 * not after `limitMs`: how long an instance kept answering from what it had cached.
 */
async function answeredWithin(ask: () => Promise<{ status: number }>, status: number, since: number, limitMs: number): Promise<number | 'never'> {
  for (;;) {
    if ((await ask()).status === status) return Date.now() - since;
    if (Date.now() - since > limitMs) return 'never';
    await new Promise((r) => setTimeout(r, 25));
  }
}

test.serial('a key deleted through one instance is refused on the other well before the cache TTL', async (t) => {
  const me = await guest(A);
  const second = (await me.on(A).post('/user/key', { name: 'cached' })).body.data as { key: string; prefix: string };
  const onB = B.api.as(second.key);
  t.is((await onB.get('/user')).status, 200, 'B has the key cached');
  t.is((await onB.post('/roll', D6)).status, 201);
  t.is((await me.on(A).delete(`/user/key/${second.prefix}`)).status, 204);
  const answeredAt = Date.now();
  const ms = await answeredWithin(() => onB.get('/user'), 401, answeredAt, BEFORE_TTL_MS);
  t.log(`B refused the key ${ms} ms after A answered the DELETE`);
  t.not(ms, 'never', 'refused on B: the push, not the TTL');
  t.is((await onB.post('/roll', D6)).status, 401);
});

test.serial('key:revoke from the CLI: the key is refused on both instances well before the cache TTL', async (t) => {
  const player = await guest(A);
  for (const i of [A, B]) t.is((await player.on(i).get('/user')).status, 200);
  const out = await runCli(env, ['key:revoke', player.key]);
  const exitedAt = Date.now();
  t.is(out.code, 0, out.stdout + out.stderr);
  t.regex(out.stdout, /Their open sockets are being dropped on every instance/);
  const ms = await Promise.all([A, B].map((i) => answeredWithin(() => player.on(i).get('/user'), 401, exitedAt, BEFORE_TTL_MS)));
  t.log(`refused ${ms.join(' / ')} ms after key:revoke exited (A / B)`);
  t.false(ms.includes('never'), 'refused on A and B: the push, not the TTL');
});

test.serial('a removed participant can neither roll nor hear the room on either instance well before the cache TTL', async (t) => {
  const owner = await guest(A);
  const player = await guest(B);
  const { slug, seatId } = await roomWith(owner, player);
  const witness = await inRoom(A, slug, owner.key);
  const sockets = [await inRoom(A, slug, player.key), await inRoom(B, slug, player.key)];
  // Warm both instances' room caches with the player in the room (by slug, and by id through a GET).
  const before = await rolled(owner, A, slug);
  for (const i of [A, B]) {
    await rolled(player, i, slug);
    t.is((await player.on(i).get(`/roll/${before}`)).status, 200);
  }
  const dropped = sockets.map((s) => s.waitForDisconnect(BEFORE_TTL_MS).then(() => Date.now()));

  t.is((await owner.on(B).delete(`/room/${slug}/participant/${seatId}`)).status, 204);
  const answeredAt = Date.now();
  const rollMs = await Promise.all([A, B].map((i) => answeredWithin(() => player.on(i).post('/roll', { ...D6, room: slug }), 403, answeredAt, BEFORE_TTL_MS)));
  const readMs = await Promise.all([A, B].map((i) => answeredWithin(() => player.on(i).get(`/roll/${before}`), 404, answeredAt, BEFORE_TTL_MS)));
  const droppedMs = (await Promise.all(dropped)).map((at) => at - answeredAt);
  t.log(
    `after the removal answered: rolls refused ${rollMs.join(' / ')} ms, the room's rolls hidden ${readMs.join(' / ')} ms, sockets dropped ${droppedMs.join(' / ')} ms (A / B)`,
  );
  t.false(rollMs.includes('never'), 'no roll on either instance, well before the TTL');
  t.false(readMs.includes('never'), "no reading the room's rolls on either instance, well before the TTL");
  t.true(
    sockets.every((c) => !c.socket.connected),
    'the sockets on both instances were dropped',
  );
  const after = await rolled(owner, A, slug);
  await witness.waitFor('RollCreateEvent', (p) => p.data.uuid === after);
  for (const s of sockets)
    t.false(
      s.of('RollCreateEvent').some((p) => p.data.uuid === after),
      'no roll reaches the removed participant',
    );
});

test.serial('Redis stopped: a lost push is bounded by the TTL (C, 1 s), and caught up when Redis is back (B, 10 s)', async (t) => {
  const me = await guest(A);
  const second = (await me.on(A).post('/user/key', { name: 'cached' })).body.data as { key: string; prefix: string };
  const owner = await guest(A);
  const player = await guest(A);
  const { slug, seatId } = await roomWith(owner, player);
  // Warm B and C: the key, and the room with the player in it.
  for (const i of [B, C]) {
    t.is((await i.api.as(second.key).get('/user')).status, 200);
    await rolled(player, i, slug);
  }

  await killRedis(redis!);
  t.is((await me.on(A).delete(`/user/key/${second.prefix}`)).status, 204, 'the change is made and answered, its push lost');
  t.is((await owner.on(A).delete(`/room/${slug}/participant/${seatId}`)).status, 204);
  const changedAt = Date.now();
  // C forgets what it cached within its TTL, with no push to tell it.
  const keyMs = await answeredWithin(() => C.api.as(second.key).get('/user'), 401, changedAt, BEFORE_TTL_MS);
  const rollMs = await answeredWithin(() => player.on(C).post('/roll', { ...D6, room: slug }), 403, changedAt, BEFORE_TTL_MS);
  t.log(`C (TTL ${SHORT_TTL_MS} ms), Redis down: revoked key refused ${keyMs} ms, removed participant's roll refused ${rollMs} ms after the changes`);
  t.deepEqual(
    [keyMs, rollMs].filter((ms) => ms === 'never'),
    [],
    'C forgot them by its TTL, with no push',
  );
  // B, whose entries live 10 s, has heard nothing: the push was lost, and only its TTL bounds it...
  t.is((await B.api.as(second.key).get('/user')).status, 200, 'B still answers from its cache: no push reached it');

  // ...or Redis coming back: every instance whose subscriber reconnects drops everything it cached.
  redis = await startRedis(port);
  const backAt = Date.now();
  const backMs = await answeredWithin(() => B.api.as(second.key).get('/user'), 401, backAt, BEFORE_TTL_MS);
  t.log(`B refused the revoked key ${backMs} ms after Redis was back`);
  t.not(backMs, 'never', 'B refuses once Redis is back, long before its TTL');
  t.is((await player.on(B).post('/roll', { ...D6, room: slug })).status, 403);
});
