import test from 'ava';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { connectRoom as liveRoom } from '../../src/client/realtime';
import type { TestDatabase } from '../helpers/env';
import { ownRedisSetup, spawnServer, type ClusterInstance } from '../helpers/cluster';
import { killRedis, startRedis } from '../helpers/redisServer';
import { Client, connectWelcomed } from '../helpers/sockets';

/**
 * Exact replay across a Redis restart: two instances on PostgreSQL and a redis-server of this test's
 * own, killed (SIGKILL) and started again. Rolls made while it is away are kept by the instance that
 * made them and sent once it is back (src/realtime/transport/redisBroadcaster.ts); the sockets, told to replay,
 * reconnect with the highest seq they received.
 * - With persistence (append-only file, fsync always): the counter and the log survive; since_seq
 *   alone replays exactly what was missed.
 * - Without: the counter starts again from the clock (above every earlier seq) with an empty log;
 *   since_seq alone replays nothing (documented), since (the uuid) beside it replays the missed rolls.
 */
let redis: ChildProcess | null = null;
let port = 0;
let database: TestDatabase;
let env: Record<string, string>;
const dir = mkdtempSync(path.join(tmpdir(), 'dice-seq-aof-'));
const instances: ClusterInstance[] = [];
const clients: Client[] = [];

test.before(async () => {
  ({ port, redis, database, env } = await ownRedisSetup());
  await killRedis(redis);
  redis = await startRedis(port, { persistIn: dir });
  instances.push(await spawnServer(env), await spawnServer(env));
});

test.after.always(async () => {
  for (const c of clients) c.socket.disconnect();
  await Promise.all(instances.map((i) => i.stop()));
  if (redis) await killRedis(redis);
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

async function guest(instance: ClusterInstance) {
  const key = (await instance.api.post('/user')).body.data as string;
  return { key, api: instance.api.as(key) };
}

async function roll(by: { api: ClusterInstance['api'] }, slug: string): Promise<string> {
  const res = await by.api.post('/roll', { dice: [{ type: 'd6', theme: 'standard' }], room: slug });
  if (res.status !== 201) throw new Error(`roll failed: ${res.status} ${res.text}`);
  return res.body.data.uuid as string;
}

const creates = (c: Client) => c.of('RollCreateEvent').map((p) => p.data.uuid as string);
const seqsOf = (c: Client) => c.of('RollCreateEvent').map((p) => p.seq as number);
const highest = (c: Client) => Math.max(...c.events.map((e) => e.payload?.seq).filter((s): s is number => typeof s === 'number'));
const increasing = (seqs: number[]) => seqs.every((seq, i) => i === 0 || seq > seqs[i - 1]!);

/** A room with its owner on A and a player on B, and a first roll every socket saw. */
async function scene() {
  const [A, B] = instances as [ClusterInstance, ClusterInstance];
  const owner = await guest(A);
  const player = await guest(B);
  const slug = (await owner.api.post('/room', { name: 'Outage', is_public: true })).body.data.slug as string;
  if ((await player.api.post(`/room/${slug}/participant`, {})).status !== 200) throw new Error('join failed');
  const onA = await connectWelcomed(A.url, slug, { token: player.key }, clients);
  const onB = await connectWelcomed(B.url, slug, { token: owner.key }, clients);
  const first = await roll(owner, slug);
  for (const c of [onA, onB]) await c.waitFor('RollCreateEvent', (p) => p.data.uuid === first);
  return { A, B, owner, player, slug, onA, onB, first };
}

/** Rolls through both instances, one after the other, while Redis is away. */
async function rollsDuringOutage(s: Awaited<ReturnType<typeof scene>>, n: number): Promise<string[]> {
  const missed: string[] = [];
  for (let i = 0; i < n; i++) missed.push(await roll(i % 2 ? s.player : s.owner, s.slug));
  return missed;
}

/** The room's log on the test's Redis: how many entries (the kept blocks land there once sent). */
async function logSize(slug: string): Promise<number> {
  const client = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
  try {
    return await client.zcard(`{dice#/room/${slug}#}:log`);
  } finally {
    client.disconnect();
  }
}

test.serial(
  'Redis restarted with its data (append-only file): since_seq alone replays exactly the rolls made during the outage, in seq order, once each; the project client too',
  async (t) => {
    const s = await scene();
    const project = new Client(
      liveRoom(s.B.url, s.player.key, s.slug, {
        socket: { transports: ['websocket'], forceNew: true, reconnectionDelay: 200, reconnectionDelayMax: 1000 },
      }) as unknown as Client['socket'],
    );
    clients.push(project);
    await project.waitFor('RollCreateEvent', (p) => p.data.uuid === s.first).catch(() => undefined);
    const since = { onA: highest(s.onA), onB: highest(s.onB) };

    await killRedis(redis!);
    const missed = await rollsDuringOutage(s, 12);
    redis = await startRedis(port, { persistIn: dir });
    const backAt = Date.now();

    // Told to replay and closed by the server; they come back with since_seq only.
    for (const c of [s.onA, s.onB])
      await c.until(() => (!c.socket.connected && c.of('ReplayRequiredEvent').length) || null, 'told to replay and closed', 15_000);
    const again = await Promise.all([
      connectWelcomed(s.A.url, s.slug, { token: s.player.key, since_seq: since.onA }, clients),
      connectWelcomed(s.B.url, s.slug, { token: s.owner.key, since_seq: since.onB }, clients),
    ]);
    for (const c of [...again, project]) await c.until(() => missed.every((u) => creates(c).includes(u)) || null, 'every missed roll', 20_000);
    t.log(`every missed roll back ${Date.now() - backAt} ms after Redis was`);
    const live = await roll(s.owner, s.slug);
    for (const c of [...again, project]) await c.waitFor('RollCreateEvent', (p) => p.data.uuid === live, 15_000);

    const [reA, reB] = again as [Client, Client];
    // Their order is the seqs' (each instance's kept rolls in the order made, the instances' in the order they sent them).
    t.deepEqual([...creates(reA)].sort(), [...missed, live].sort(), 'the missed rolls and the live one: nothing more, nothing missing');
    t.is(new Set(creates(reA)).size, creates(reA).length, 'each once');
    t.is(creates(reA).at(-1), live, 'the live one last');
    for (const byOne of [missed.filter((_, i) => i % 2 === 0), missed.filter((_, i) => i % 2 === 1)]) {
      t.deepEqual(
        creates(reA).filter((u) => byOne.includes(u)),
        byOne,
        "one instance's rolls in the order made",
      );
    }
    t.deepEqual(creates(reA), creates(reB), 'one order on both instances');
    t.deepEqual(seqsOf(reA), seqsOf(reB), 'one numbering');
    t.true(increasing(seqsOf(reA)), 'in seq order');
    t.true(seqsOf(reA)[0]! > since.onA, 'the counter did not go backwards');
    t.is(reA.of('RoomUpdateEvent')[0].seq, since.onA, 'the log covered since_seq: the stream goes on from it');
    const heard = creates(project);
    t.is(new Set(heard).size, heard.length, 'the project client: each roll once');
    t.true(increasing(seqsOf(project)), 'the project client: in seq order');
  },
);

test.serial(
  'Redis restarted empty (no persistence): the counter goes on above the old seqs; since_seq alone replays nothing, since beside it replays the missed rolls',
  async (t) => {
    const s = await scene();
    const since = highest(s.onB);
    await killRedis(redis!);
    const missed = await rollsDuringOutage(s, 6);
    rmSync(dir, { recursive: true, force: true });
    redis = await startRedis(port);
    for (const c of [s.onA, s.onB])
      await c.until(() => (!c.socket.connected && c.of('ReplayRequiredEvent').length) || null, 'told to replay and closed', 15_000);
    // The kept blocks reach the new Redis (and its new log) before anyone reconnects, so what follows does not race them.
    const deadline = Date.now() + 15_000;
    while ((await logSize(s.slug)) < missed.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    t.is(await logSize(s.slug), missed.length, 'the kept blocks were sent to the new Redis');

    const bare = await connectWelcomed(s.B.url, s.slug, { token: s.owner.key, since_seq: since }, clients);
    const both = await connectWelcomed(s.B.url, s.slug, { token: s.owner.key, since_seq: since, since: s.first }, clients);
    const live = await roll(s.owner, s.slug);
    for (const c of [bare, both]) await c.waitFor('RollCreateEvent', (p) => p.data.uuid === live, 15_000);
    t.deepEqual(creates(bare), [live], "since_seq below the new counter's start: not covered, nothing replayed");
    t.deepEqual(creates(both), [...missed, live], 'since (the uuid) beside it: the missed rolls, oldest first');
    const newSeq = bare.of('RollCreateEvent')[0].seq as number;
    t.true(newSeq > since, `the counter went on above the old seqs (${since} -> ${newSeq})`);
    t.true(bare.of('RoomUpdateEvent')[0].seq > since, "not covered: the welcome gives the room's new seq");
  },
);
