import test from 'ava';
import type { ChildProcess } from 'node:child_process';
import type { ManagerOptions, SocketOptions } from 'socket.io-client';
import { connectRoom as liveRoom, connectUser as liveUser } from '../../src/client/realtime';
import type { TestDatabase } from '../helpers/env';
import { ownRedisSetup, spawnServer, type ClusterInstance } from '../helpers/cluster';
import { runCli } from '../helpers/cli';
import { startProxy } from '../helpers/proxy';
import { killRedis, startRedis } from '../helpers/redisServer';
import { Client } from '../helpers/sockets';
import { withDeadline } from '../helpers/deadline';

/**
 * Who may hear a room after losing the right to: two instances on PostgreSQL and a
 * redis-server of this test's own, stopped and restarted. Sockets are the project's own client
 * (src/client/realtime.ts: socket.io-client, reconnecting, `since` kept), as an application uses it.
 *
 * Instance A re-validates its sockets every 2 s; instance B practically never (10 min), so what
 * happens to B's sockets after an outage is the work of the reconnection alone, not of the timer.
 */
const REVALIDATE_MS = 2000;
const NEVER_MS = 600_000;
/** ioredis retries every 2 s at most (src/lib/redis.ts): the longest an instance takes to notice Redis is back. */
const RECONNECT_MS = 2000;

let redis: ChildProcess | null = null;
let port = 0;
let database: TestDatabase;
let env: Record<string, string>;
const instances: ClusterInstance[] = [];
const clients: Client[] = [];

test.before(async () => {
  ({ port, redis, database, env } = await ownRedisSetup({ REDIS_PREFIX: 'access:', REALTIME_REVALIDATE_MS: String(REVALIDATE_MS) }));
  instances.push(await spawnServer(env));
  instances.push(await spawnServer({ ...env, REALTIME_REVALIDATE_MS: String(NEVER_MS) }));
});

test.after.always(async () => {
  for (const c of clients) c.socket.disconnect();
  await Promise.all(instances.map((i) => i.stop()));
  if (redis) await killRedis(redis);
  await database?.drop();
});

const SOCKET: Partial<ManagerOptions & SocketOptions> = { transports: ['websocket'], forceNew: true, reconnectionDelay: 200, reconnectionDelayMax: 1000 };

/** The project's client, connected (resolves at the first `connect`; it reconnects by itself after). */
function opened(socket: Client['socket']): Promise<Client> {
  const client = new Client(socket);
  clients.push(client);
  const connected = new Promise<Client>((resolve, reject) => {
    socket.once('connect', () => resolve(client));
    socket.once('connect_error', (err) => reject(new Error(`connect_error: ${err.message}`)));
  });
  return withDeadline(connected, 15_000, 'the socket to connect');
}

async function inRoom(instance: ClusterInstance, slug: string, key: string): Promise<Client> {
  const client = await opened(liveRoom(instance.url, key, slug, { socket: SOCKET }) as unknown as Client['socket']);
  await client.waitFor('RoomUpdateEvent');
  return client;
}

const inUser = (instance: ClusterInstance, key: string) => opened(liveUser(instance.url, key, SOCKET) as unknown as Client['socket']);

/**
 * Resolves with the time of the first disconnect (whatever comes after: a refused reconnection, say);
 * rejects when the socket is still connected 30 s on (longer than any outage these tests make).
 */
function droppedAt(client: Client): Promise<number> {
  const dropped = withDeadline(
    new Promise<number>((resolve) => client.socket.once('disconnect', () => resolve(Date.now()))),
    30_000,
    'the server to drop the socket',
  );
  dropped.catch(() => undefined); // awaited later by the test; not an unhandled rejection meanwhile
  return dropped;
}

async function guest(instance: ClusterInstance) {
  const key = (await instance.api.post('/user')).body.data as string;
  return { key, api: instance.api.as(key), uuid: (await instance.api.as(key).get('/user')).body.data.uuid as string };
}

type Guest = Awaited<ReturnType<typeof guest>>;

async function privateRoomWith(owner: Guest, player: Guest) {
  const created = await owner.api.post('/room', { name: 'Private', is_public: false });
  const slug = created.body.data.slug as string;
  const joined = await player.api.post(`/room/${slug}/participant`, { passcode: created.body.data.passcode });
  if (joined.status !== 200) throw new Error(`join failed: ${joined.status} ${joined.text}`);
  const seatId = (joined.body.data.participants as Array<{ id: number; user: { uuid: string } }>).find((p) => p.user.uuid === player.uuid)!.id;
  return { slug, seatId };
}

async function roll(by: Guest, slug: string): Promise<string> {
  const res = await by.api.post('/roll', { dice: [{ type: 'd6', theme: 'standard' }], room: slug });
  if (res.status !== 201) throw new Error(`roll failed: ${res.status} ${res.text}`);
  return res.body.data.uuid as string;
}

const rollsOf = (c: Client) => c.of('RollCreateEvent').map((p) => p.data.uuid as string);

/** Told to replay after an outage, and back: connected again and welcomed (a RoomUpdateEvent after the notice). */
function resynced(c: Client): Promise<unknown> {
  return c.until(
    () => {
      const told = c.events.findIndex((e) => e.event === 'ReplayRequiredEvent');
      return told >= 0 && c.socket.connected && c.events.slice(told).some((e) => e.event === 'RoomUpdateEvent');
    },
    'reconnected after ReplayRequiredEvent',
    15_000,
  );
}

async function redisDown() {
  await killRedis(redis!);
}

async function redisUp(): Promise<number> {
  redis = await startRedis(port);
  return Date.now();
}

test.serial(
  'Redis up: a removal or a passcode change through one instance drops the socket on the other (pushed through Redis); nothing more reaches it',
  async (t) => {
    const [A, B] = instances as [ClusterInstance, ClusterInstance];
    const owner = await guest(A);
    const removed = await guest(B);
    const reset = await guest(B);
    const one = await privateRoomWith(owner, removed);
    const two = await privateRoomWith(owner, reset);
    const witnessOne = await inRoom(A, one.slug, owner.key);
    const witnessTwo = await inRoom(A, two.slug, owner.key);
    const removedSocket = await inRoom(B, one.slug, removed.key);
    const resetSocket = await inRoom(B, two.slug, reset.key);

    const gone = [droppedAt(removedSocket), droppedAt(resetSocket)];
    const start = Date.now();
    t.is((await owner.api.delete(`/room/${one.slug}/participant/${one.seatId}`)).status, 204);
    const changedAt = Date.now();
    t.is((await owner.api.patch(`/room/${two.slug}`, { passcode: 'a-new-passcode' })).status, 200);
    const [removedAt, resetAt] = await Promise.all(gone);
    t.log(`dropped on the other instance ${removedAt! - start} ms after the removal was sent, ${resetAt! - changedAt} ms after the passcode change answered`);
    // B never re-validates by the clock: that it dropped them at all is the push; the times are logged above.

    const afterOne = await roll(owner, one.slug);
    const afterTwo = await roll(owner, two.slug);
    await witnessOne.waitFor('RollCreateEvent', (p) => p.data.uuid === afterOne);
    await witnessTwo.waitFor('RollCreateEvent', (p) => p.data.uuid === afterTwo);
    t.false(rollsOf(removedSocket).includes(afterOne));
    t.false(rollsOf(resetSocket).includes(afterTwo));
    t.false(removedSocket.socket.connected || resetSocket.socket.connected, 'and they stay out (no reconnection)');
  },
);

test.serial("Redis up: key:revoke drops the key's room and /user sockets on both instances", async (t) => {
  const [A, B] = instances as [ClusterInstance, ClusterInstance];
  const owner = await guest(A);
  const player = await guest(B);
  const { slug } = await privateRoomWith(owner, player);
  const witness = await inRoom(A, slug, owner.key);
  const sockets = [await inRoom(A, slug, player.key), await inRoom(B, slug, player.key), await inUser(B, player.key)];
  const gone = sockets.map(droppedAt);

  const out = await runCli(env, ['key:revoke', player.key]);
  const exitedAt = Date.now();
  t.is(out.code, 0, out.stdout + out.stderr);
  t.regex(out.stdout, /Their open sockets are being dropped on every instance/);
  t.log(`sockets dropped ${(await Promise.all(gone)).map((at) => at - exitedAt).join(', ')} ms after key:revoke exited (negative: before it had exited)`);
  const after = await roll(owner, slug);
  await witness.waitFor('RollCreateEvent', (p) => p.data.uuid === after);
  for (const s of sockets.slice(0, 2)) t.false(rollsOf(s).includes(after));
  t.is((await player.api.get('/user')).status, 401);
});

test.serial(
  "evictions during a Redis outage: the sockets on the other instance go as soon as Redis is back, the revoked key's within the interval; none hears a roll after",
  async (t) => {
    const [A, B] = instances as [ClusterInstance, ClusterInstance];
    const owner = await guest(A);
    const removed = await guest(B);
    const reset = await guest(B);
    const revoked = await guest(B);
    const one = await privateRoomWith(owner, removed);
    const two = await privateRoomWith(owner, reset);
    const three = await privateRoomWith(owner, revoked);
    const witnesses = [await inRoom(A, one.slug, owner.key), await inRoom(A, two.slug, owner.key)];
    // On B, which never re-validates by the clock: only Redis coming back can drop these.
    const onB = [
      await inRoom(B, one.slug, removed.key),
      await inRoom(B, two.slug, reset.key),
      await inRoom(B, three.slug, revoked.key),
      await inUser(B, revoked.key),
    ];
    // On A, which re-validates every 2 s, Redis or not.
    const revokedOnA = await inRoom(A, three.slug, revoked.key);
    const goneOnB = onB.map(droppedAt);
    const goneOnA = droppedAt(revokedOnA);
    const refusals = onB.slice(0, 3).map((c) => new Promise<string>((resolve) => c.socket.on('connect_error', (err) => resolve(err.message))));

    await redisDown();
    t.is((await owner.api.delete(`/room/${one.slug}/participant/${one.seatId}`)).status, 204);
    t.is((await owner.api.patch(`/room/${two.slug}`, { passcode: 'changed-in-the-dark' })).status, 200);
    const out = await runCli(env, ['key:revoke', revoked.key]);
    const revokedAt = Date.now();
    t.is(out.code, 0, out.stdout + out.stderr);
    t.regex(out.stdout, /Redis could not be reached/);
    const onA = await goneOnA;
    t.log(`the revoked key's socket on A dropped ${onA - revokedAt} ms after key:revoke exited, Redis still down (interval ${REVALIDATE_MS} ms)`);
    t.true(
      onB.every((c) => c.socket.connected),
      'B, cut off, has not heard of any of it yet',
    );

    const backAt = await redisUp();
    const gone = await Promise.all(goneOnB);
    t.log(
      `on B: dropped ${gone.map((at) => at - backAt).join(', ')} ms after Redis was back (room sockets of the removed, reset and revoked users; the revoked /user socket)`,
    );
    // At most one reconnection attempt away (plus a busy machine's slack): far within B's interval.
    for (const c of onB.slice(0, 3)) t.truthy(c.of('ReplayRequiredEvent').length, 'room sockets were told to replay');
    // Told to replay, they try again, and the handshake refuses them now.
    t.deepEqual(await Promise.all(refusals), ['forbidden', 'forbidden', 'unauthorized']);

    // The owner's sockets on A were told to replay too (A's subscriber reconnected): wait until they are back.
    await Promise.all(witnesses.map(resynced));
    const afterOne = await roll(owner, one.slug);
    const afterTwo = await roll(owner, two.slug);
    await witnesses[0]!.waitFor('RollCreateEvent', (p) => p.data.uuid === afterOne, 15_000);
    await witnesses[1]!.waitFor('RollCreateEvent', (p) => p.data.uuid === afterTwo, 15_000);
    t.false(
      onB.some((c) => c.socket.connected),
      'none of them is connected',
    );
    t.false(rollsOf(onB[0]!).includes(afterOne), 'the removed participant hears no roll after');
    t.false(rollsOf(onB[1]!).includes(afterTwo), 'the participant of the reset room hears no roll after');
    t.false(
      onB[1]!.of('RoomUpdateEvent').some((p) => p.data.passcode === 'changed-in-the-dark'),
      'nor the new passcode',
    );
    t.is((await reset.api.get(`/room/${two.slug}`)).status, 403);
  },
);

test.serial('key:revoke that cannot tell the instances (no Redis for the CLI): the re-validation drops the sockets within the interval', async (t) => {
  const [A] = instances as [ClusterInstance, ClusterInstance];
  const owner = await guest(A);
  const player = await guest(A);
  const { slug } = await privateRoomWith(owner, player);
  const sockets = [await inRoom(A, slug, player.key), await inUser(A, player.key)];
  const gone = sockets.map(droppedAt);
  const out = await runCli({ ...env, REDIS_URL: '' }, ['key:revoke', player.key]);
  const exitedAt = Date.now();
  t.is(out.code, 0, out.stdout + out.stderr);
  const at = await Promise.all(gone);
  t.log(`dropped ${at.map((ms) => ms - exitedAt).join(', ')} ms after key:revoke exited (interval ${REVALIDATE_MS} ms)`);
  t.true(
    sockets.every((c) => !c.socket.connected),
    'both sockets of the revoked key were dropped',
  );
});

test.serial('missed events after an outage: sockets are told to replay, reconnect with since and get every roll made meanwhile', async (t) => {
  const [A, B] = instances as [ClusterInstance, ClusterInstance];
  const owner = await guest(A);
  const player = await guest(B);
  const created = await owner.api.post('/room', { name: 'Replay', is_public: true });
  const slug = created.body.data.slug as string;
  t.is((await player.api.post(`/room/${slug}/participant`, {})).status, 200);
  const listener = await inRoom(B, slug, player.key);
  // With socket.io-client's reconnection turned off, the project's client reconnects by itself on the notice.
  const manual = await opened(liveRoom(B.url, player.key, slug, { socket: { ...SOCKET, reconnection: false } }) as unknown as Client['socket']);
  const first = await roll(owner, slug);
  await listener.waitFor('RollCreateEvent', (p) => p.data.uuid === first);
  await manual.waitFor('RollCreateEvent', (p) => p.data.uuid === first);

  await redisDown();
  const missed: string[] = [];
  for (let i = 0; i < 12; i++) missed.push(await roll(owner, slug), await roll(player, slug));
  const backAt = await redisUp();

  const told = await listener.waitFor('ReplayRequiredEvent', () => true, RECONNECT_MS + 5000);
  t.is(told.data.reason, 'redis_reconnected');
  const toldAt = listener.events.find((e) => e.event === 'ReplayRequiredEvent')!.at;
  await listener.until(() => missed.every((u) => rollsOf(listener).includes(u)), 'every missed roll', 20_000);
  t.log(`ReplayRequiredEvent ${toldAt - backAt} ms after Redis was back; all ${missed.length} missed rolls ${Date.now() - backAt} ms after`);
  await manual.until(() => missed.every((u) => rollsOf(manual).includes(u)), 'every missed roll (reconnection off)', 20_000);
  for (const c of [listener, manual]) {
    t.true(c.socket.connected, 'reconnected by itself');
    const seen = rollsOf(c);
    t.is(new Set(seen).size, seen.length, 'each roll once');
  }
  const live = await roll(owner, slug);
  await t.notThrowsAsync(
    listener.waitFor('RollCreateEvent', (p) => p.data.uuid === live, 15_000),
    'live again',
  );
  await t.notThrowsAsync(
    manual.waitFor('RollCreateEvent', (p) => p.data.uuid === live, 15_000),
    'live again (reconnection off)',
  );
});

test.serial(
  'an instance cut off alone from Redis: once back, it sends the events it kept, in order and once each (missed rolls delivered live, its eviction applied)',
  async (t) => {
    const [A, B] = instances as [ClusterInstance, ClusterInstance];
    // C reaches Redis through a proxy the test cuts: A and B never lose theirs, so only what C kept
    // and sends again once back brings their sockets C's events (src/realtime/transport/redisBroadcaster.ts).
    const proxy = await startProxy('127.0.0.1', port);
    t.teardown(() => proxy.close());
    const C = await spawnServer({ ...env, REDIS_URL: `redis://127.0.0.1:${proxy.port}` });
    instances.push(C);
    const owner = await guest(A);
    const player = await guest(B);
    const removed = await guest(B);
    const created = await owner.api.post('/room', { name: 'Cut off', is_public: true });
    const slug = created.body.data.slug as string;
    t.is((await player.api.post(`/room/${slug}/participant`, {})).status, 200);
    const joined = await removed.api.post(`/room/${slug}/participant`, {});
    const seatId = (joined.body.data.participants as Array<{ id: number; user: { uuid: string } }>).find((p) => p.user.uuid === removed.uuid)!.id;
    const listener = await inRoom(B, slug, player.key);
    const removedSocket = await inRoom(B, slug, removed.key);
    const evicted = new Promise<string>((resolve) => removedSocket.socket.on('disconnect', (reason) => resolve(reason)));
    const viaC = C.api.as(owner.key);
    // A roll seen before the cut: the client reconnects with it as `since`.
    const seen = (await viaC.post('/roll', { dice: [{ type: 'd6', theme: 'standard' }], room: slug })).body.data.uuid as string;
    await listener.waitFor('RollCreateEvent', (p) => p.data.uuid === seen);

    await proxy.cut();
    const missed: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await viaC.post('/roll', { dice: [{ type: 'd6', theme: 'standard' }], room: slug });
      t.is(res.status, 201);
      missed.push(res.body.data.uuid);
    }
    t.is((await viaC.delete(`/room/${slug}/participant/${seatId}`)).status, 204);
    t.false(
      missed.some((u) => rollsOf(listener).includes(u)),
      "B heard none of C's rolls while C was cut off",
    );
    t.true(removedSocket.socket.connected, 'nor of its eviction');
    await proxy.restore();
    const backAt = Date.now();

    await listener.until(() => missed.every((u) => rollsOf(listener).includes(u)), 'every roll C made while cut off', 20_000);
    t.log(`C back: all ${missed.length} missed rolls on B ${Date.now() - backAt} ms later`);
    t.deepEqual(rollsOf(listener), [seen, ...missed], 'live, in the order C made them, each once');
    t.false(
      listener.events.some((e) => e.event === 'ReplayRequiredEvent'),
      'nothing lost: no resync',
    );
    const seqs = listener.of('RollCreateEvent').map((p) => p.seq as number);
    t.true(
      seqs.every((seq, i) => i === 0 || seq > seqs[i - 1]!),
      'seqs strictly increasing',
    );
    t.is(await evicted, 'io server disconnect', "the removed participant's eviction, kept too, reaches B");
  },
);

test.serial(
  'an instance cut off alone that keeps more than REALTIME_MAX_KEPT_BLOCKS drops them: once back, it has the other instances resync those rooms, whose logs it cut (the replay falls back to since)',
  async (t) => {
    const [A, B] = instances as [ClusterInstance, ClusterInstance];
    const proxy = await startProxy('127.0.0.1', port);
    t.teardown(() => proxy.close());
    const E = await spawnServer({ ...env, REDIS_URL: `redis://127.0.0.1:${proxy.port}`, REALTIME_MAX_KEPT_BLOCKS: '2' });
    instances.push(E);
    const owner = await guest(A);
    const player = await guest(B);
    const created = await owner.api.post('/room', { name: 'Overflow', is_public: true });
    const slug = created.body.data.slug as string;
    t.is((await player.api.post(`/room/${slug}/participant`, {})).status, 200);
    const listener = await inRoom(B, slug, player.key);
    const viaE = E.api.as(owner.key);
    const seen = (await viaE.post('/roll', { dice: [{ type: 'd6', theme: 'standard' }], room: slug })).body.data.uuid as string;
    const seenEvent = await listener.waitFor('RollCreateEvent', (p) => p.data.uuid === seen);

    await proxy.cut();
    const missed: string[] = [];
    for (let i = 0; i < 6; i++) missed.push((await viaE.post('/roll', { dice: [{ type: 'd6', theme: 'standard' }], room: slug })).body.data.uuid);
    await proxy.restore();
    const told = await listener.waitFor('ReplayRequiredEvent', () => true, RECONNECT_MS + 5000);
    t.is(told.data.reason, 'events_lost');
    await listener.until(() => missed.every((u) => rollsOf(listener).includes(u)), 'every roll E made while cut off', 20_000);
    const welcomes = listener.of('RoomUpdateEvent');
    t.true(welcomes.at(-1).seq > seenEvent.seq, "the log was cut: since_seq not covered, the welcome gives the room's seq and since replays");
  },
);

test.serial(
  'an instance cut off alone from Redis drops its own evicted sockets at once (the kick it cannot publish falls back to its local sockets)',
  async (t) => {
    // D re-validates practically never: only the fallback of the failed publish can drop the socket in time.
    const proxy = await startProxy('127.0.0.1', port);
    t.teardown(() => proxy.close());
    const D = await spawnServer({ ...env, REDIS_URL: `redis://127.0.0.1:${proxy.port}`, REALTIME_REVALIDATE_MS: String(NEVER_MS) });
    instances.push(D);
    const owner = await guest(D);
    const player = await guest(D);
    const { slug, seatId } = await privateRoomWith(owner, player);
    const onD = await inRoom(D, slug, player.key);

    await proxy.cut();
    // A roll first: its event cannot reach Redis either and is kept, so the kick is queued behind it
    // (the kick must still drop the local socket at once, not when the queue reaches it).
    t.is((await D.api.as(owner.key).post('/roll', { dice: [{ type: 'd6', theme: 'standard' }], room: slug })).status, 201);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const dropped = droppedAt(onD);
    const removedAt = Date.now();
    t.is((await D.api.as(owner.key).delete(`/room/${slug}/participant/${seatId}`)).status, 204);
    // Awaited before Redis is reachable again: a kick queued behind the roll would never come.
    const at = await dropped;
    t.false(onD.socket.connected, "the removed participant's socket on the cut-off instance went, Redis unreachable");
    t.log(`dropped ${at - removedAt} ms after the removal, Redis unreachable`);
    await proxy.restore();
  },
);
