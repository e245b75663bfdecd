import test from 'ava';
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import calculateSlot from 'cluster-key-slot';
import { Redis } from 'ioredis';
import { createTestDatabase } from '../helpers/env';
import { spawnServer, TEST_PUSHER_SECRET, type ClusterInstance } from '../helpers/cluster';
import { closeAll, connectWelcomed, type Client } from '../helpers/sockets';
import { teardownSteps } from './support';

// A Redis Cluster whose master fails over to its replica while two instances run on it: the master
// that holds a room's slot (its shard channel, its event numbering, its presence) hands over with
// CLUSTER FAILOVER, as an operator's maintenance or a cluster manager does. Afterwards rolls must
// still be accepted and reach the room's sockets on both instances, numbered after those before it.
const run = promisify(execFile);
const script = path.resolve('scripts/redis-cluster.sh');
const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'dice-failover-')), 'cluster');
const teardown = teardownSteps(test);
const instances: ClusterInstance[] = [];
const clients: Client[] = [];
let nodes: Array<{ host: string; port: number }> = [];

test.before(async () => {
  teardown.push(() => run(script, ['stop', dir]));
  const { stdout } = await run(script, ['start', dir], { env: { ...process.env, REDIS_CLUSTER_REPLICAS: '1' } });
  const list = stdout.trim();
  nodes = list.split(',').map((n) => ({ host: n.split(':')[0]!, port: Number(n.split(':')[1]) }));
  const database = await createTestDatabase();
  teardown.push(() => database.drop());
  teardown.push(() => Promise.allSettled(instances.map((i) => i.stop())));
  teardown.push(async () => closeAll(...clients));
  const env = {
    DATABASE_URL: database.databaseUrl!,
    REDIS_CLUSTER_NODES: list,
    PUSHER_APP_SECRET: TEST_PUSHER_SECRET,
    DATA_DIR: database.dataDir,
    GUESTS_PER_HOUR: '100000',
    RATE_LIMIT_PER_MINUTE: '1000000',
    SHUTDOWN_TIMEOUT_MS: '2000',
  };
  instances.push(await spawnServer(env));
  instances.push(await spawnServer(env));
});

/** The master serving `slot` and its replica, from CLUSTER SLOTS (waiting for the replica to have joined and synced). */
async function shardOf(slot: number): Promise<{ master: number; replica: number }> {
  const probe = new Redis({ ...nodes[0]!, lazyConnect: true });
  try {
    await probe.connect();
    for (let i = 0; i < 150; i++) {
      const slots = (await probe.call('CLUSTER', 'SLOTS')) as Array<[number, number, ...Array<[string, number, string]>]>;
      const [, , master, replica] = slots.find(([from, to]) => from <= slot && slot <= to)!;
      if (master && replica) {
        const info = (await ask(replica[1], 'INFO', 'replication').catch(() => '')) as string;
        if (/master_link_status:up/.test(info)) return { master: master[1], replica: replica[1] };
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`slot ${slot} has no synced replica after 30 s`);
  } finally {
    probe.disconnect();
  }
}

/** One command to one node of the cluster, on a connection of its own. */
async function ask(port: number, ...command: [string, ...string[]]): Promise<unknown> {
  const r = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await r.connect();
    return await r.call(...command);
  } finally {
    r.disconnect();
  }
}

const role = async (port: number) => ((await ask(port, 'ROLE')) as [string])[0];

test('a master fails over to its replica: rolls are still accepted and reach the room on both instances, in order', async (t) => {
  const [A, B] = instances as [ClusterInstance, ClusterInstance];
  const key = (await A.api.post('/user')).body.data as string;
  const slug = (await A.api.as(key).post('/room', { name: 'Failover' })).body.data.slug as string;
  const onA = await connectWelcomed(A.url, slug, { token: key }, clients);
  const onB = await connectWelcomed(B.url, slug, { token: key }, clients);
  const roll = async (via: ClusterInstance) => {
    const res = await via.api.as(key).post('/roll', { dice: [{ type: 'd6', theme: 'standard' }], room: slug });
    t.is(res.status, 201, `POST /roll through ${via === A ? 'A' : 'B'}: ${res.text.slice(0, 200)}`);
    return res.body.data.uuid as string;
  };
  const before = await roll(B);
  for (const c of [onA, onB]) await c.waitFor('RollCreateEvent', (p) => p.data.uuid === before);

  // The shard that carries the room's events (its shard channel's slot: realtime/namespaces.ts).
  const { master, replica } = await shardOf(calculateSlot(`dice#/room/${slug}#`));
  t.is(await ask(replica, 'CLUSTER', 'FAILOVER'), 'OK');
  // The replica takes over first; the old master learns it from the cluster bus a moment later.
  for (let i = 0; i < 100 && ((await role(replica)) !== 'master' || (await role(master)) !== 'slave'); i++) await new Promise((r) => setTimeout(r, 100));
  t.is(await role(replica), 'master', 'the replica took over');
  t.is(await role(master), 'slave', 'the old master follows it');

  // Both instances' subscriptions to the room's shard channel, dropped by the old master, are back
  // on the new one (the subscribers re-read the slot map every second: lib/redis.ts).
  const channel = `dice#/room/${slug}#`;
  const subscribers = async () => ((await ask(replica, 'PUBSUB', 'SHARDNUMSUB', channel)) as [string, number])[1];
  const handedOver = Date.now();
  for (let i = 0; i < 100 && (await subscribers()) < 2; i++) await new Promise((r) => setTimeout(r, 100));
  t.is(await subscribers(), 2, 'both instances subscribe to the room on the new master');
  t.log(`subscriptions back ${Date.now() - handedOver} ms after the new master took over`);

  // Rolls through both instances after the handover: each must reach both instances' sockets.
  const after: string[] = [];
  for (const via of [A, B, A, B]) after.push(await roll(via));
  for (const c of [onA, onB]) {
    for (const uuid of after) await c.waitFor('RollCreateEvent', (p) => p.data.uuid === uuid, 15_000);
    const seen = c.of('RollCreateEvent').map((p) => p.data.uuid as string);
    t.deepEqual(seen.filter((u) => after.includes(u)).sort(), [...after].sort(), 'each roll once');
    // The room's numbering lives in the slot that failed over (replicated before the handover): every
    // roll after it is numbered after the roll before it, so a client's since_seq from before the
    // failover still replays what came after. (Rolls posted through different instances are not
    // ordered against each other, docs/realtime.md: compare each instance's own rolls.)
    const seqOf = (uuid: string) => c.of('RollCreateEvent').find((p) => p.data.uuid === uuid).seq as number;
    t.true(after.every((u) => seqOf(u) > seqOf(before)), 'numbered after the roll before the failover');
    for (const own of [[after[0]!, after[2]!], [after[1]!, after[3]!]]) t.true(seqOf(own[1]!) > seqOf(own[0]!), "one instance's rolls in the order posted");
  }
  for (const instance of instances) t.false(instance.output().includes('unhandled rejection'), 'every Redis failure is handled');
});
