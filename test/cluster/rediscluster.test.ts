import { randomBytes } from 'node:crypto';
import test from 'ava';
import calculateSlot from 'cluster-key-slot';
import { Cluster as RedisCluster, type Redis } from 'ioredis';
import { clusterNodesOf, redisKeys, useCluster, type TestUser } from '../helpers/cluster';
import { runCli } from '../helpers/cli';
import { runMainExpectingExit } from '../helpers/process';
import { freePort, killRedis, startRedis } from '../helpers/redisServer';
import { TEST_REDIS_CLUSTER_NODES } from '../helpers/env';
import { withDeadline } from '../helpers/deadline';
import { closeAll, connectWelcomed, type Client } from '../helpers/sockets';

// The service on a real Redis Cluster of 3 masters (scripts/redis-cluster.sh, started by
// scripts/test.sh for its cluster pass): two instances, REDIS_CLUSTER_NODES instead of REDIS_URL.
// Outside that pass (no TEST_REDIS_CLUSTER_NODES) these tests are skipped, and say so.
const onCluster = Boolean(TEST_REDIS_CLUSTER_NODES);
const maybe = onCluster ? test.serial : test.serial.skip;
// The skipped tests below are reported as skipped; this title says why.
if (!onCluster) test.skip('Redis Cluster tests (skipped: TEST_REDIS_CLUSTER_NODES is not set; scripts/test.sh sets it in its cluster pass)', () => {});

const LIMIT = 40;
const prefix = `rc${randomBytes(4).toString('hex')}:`;
// RATE_LIMIT_LEASE_MAX=1: every request counted in the cluster, so the two instances' RateLimit-Remaining
// count down one window request by request (with leases, each spends its own block: the limit holds,
// test/cluster/rateLimit.leases.test.ts, but the countdown interleaves).
const cluster = onCluster
  ? useCluster(test, 2, { REDIS_PREFIX: prefix, RATE_LIMIT_PER_MINUTE: String(LIMIT), RATE_LIMIT_LEASE_MAX: '1', REALTIME_REVALIDATE_MS: '3600000' })
  : null;
const A = () => cluster!.current.instances[0]!;
const B = () => cluster!.current.instances[1]!;

const clients: Client[] = [];
test.after.always(() => closeAll(...clients));

let redis: RedisCluster;
/** CROSSSLOT errors each master has answered so far (INFO errorstats), by node. */
let crossSlotBefore: number[] = [];
test.before(async () => {
  if (!onCluster) return;
  redis = new RedisCluster(clusterNodesOf(TEST_REDIS_CLUSTER_NODES!), { redisOptions: { maxRetriesPerRequest: 1 } });
  await withDeadline(new Promise((resolve) => redis.once('ready', resolve)), 15_000, 'the Redis Cluster client to be ready');
  crossSlotBefore = await crossSlotErrors();
});
test.after.always(() => redis?.disconnect());

async function crossSlotErrors(): Promise<number[]> {
  return Promise.all(redis.nodes('master').map(async (node: Redis) => Number(/errorstat_CROSSSLOT:count=(\d+)/.exec(await node.info('errorstats'))?.[1] ?? 0)));
}

async function roomOf(owner: TestUser, player: TestUser) {
  const slug = (await owner.api.post('/room', { name: 'On the cluster' })).body.data.slug as string;
  const joined = await player.api.post(`/room/${slug}/participant`, {});
  if (joined.status !== 200) throw new Error(`join failed: ${joined.status} ${joined.text}`);
  return slug;
}

maybe('rolls cross instances on the cluster, in one order, and presence is counted across them', async (t) => {
  const owner = await cluster!.current.newUser(0);
  const player = await cluster!.current.newUser(1);
  const slug = await roomOf(owner, player);
  const onA = await connectWelcomed(A().url, slug, { token: owner.key }, clients);
  const onB = await connectWelcomed(B().url, slug, { token: player.key }, clients);
  await onA.waitFor('ParticipantConnectEvent', (p) => p.data.user.uuid === player.user.uuid);

  const posted: string[] = [];
  const rolls = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      (i % 2 ? A() : B()).api.as(i % 2 ? owner.key : player.key).post('/roll', { dice: [{ type: 'd6', theme: 'standard' }], room: slug }),
    ),
  );
  for (const res of rolls) {
    t.is(res.status, 201, res.text);
    posted.push(res.body.data.uuid);
  }
  for (const c of [onA, onB]) for (const uuid of posted) await c.waitFor('RollCreateEvent', (p) => p.data.uuid === uuid);
  const order = (c: Client) => c.of('RollCreateEvent').map((p) => p.data.uuid as string);
  t.is(order(onA).length, posted.length, 'each roll once');
  t.deepEqual(order(onA), order(onB), 'both instances deliver the room in one order');

  // Presence lives under the room's hash tag, with each instance's contribution beside it (one slot).
  const room = `{${prefix}presence:room:${slug}}`;
  t.is(Object.keys(await redis.hgetall(room)).length, 2, 'two users present');
  const contributions = await redisKeys(redis, `${room}:instance:*`);
  t.is(contributions.length, 2, 'one contribution per instance');
  t.is(new Set([room, ...contributions].map(slotKey)).size, 1, 'the room and its contributions share one slot');

  // A third instance that stops gracefully takes its contribution back (the per-room reap).
  const C = await cluster!.current.add();
  const onC = await connectWelcomed(C.url, slug, { token: player.key }, clients);
  await redisEventually(async () => (await redisKeys(redis, `${room}:instance:*`)).length === 3, `three ${room}:instance:* keys`);
  const leaving = onC.waitForDisconnect();
  await C.stop();
  await leaving;
  t.log(
    C.output()
      .split('\n')
      .filter((l) => /presence|warn|error/i.test(l))
      .join('\n'),
  );
  t.is((await redisKeys(redis, `${room}:instance:*`)).length, 2, "the stopped instance's contribution is gone");
  t.is(Object.keys(await redis.hgetall(room)).length, 2, 'both users still present (their sockets on A and B)');
  t.deepEqual(await redis.smembers(`{${prefix}presence:instances}`).then((ids) => ids.length), 2, 'the stopped instance is forgotten');
});

async function redisEventually(check: () => Promise<boolean>, what: string, timeoutMs = 5000) {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

maybe('a key spreading requests over both instances has one budget, counted on the cluster', async (t) => {
  const me = await cluster!.current.newUser(0);
  // (Creating the guest spent some of the key's budget already: count down from what is left.)
  const remaining: number[] = [];
  for (let i = 0; ; i++) {
    const res = await (i % 2 ? A() : B()).api.as(me.key).get('/user');
    if (res.status === 429) break;
    t.is(res.status, 200);
    remaining.push(Number(res.headers.get('ratelimit-remaining')));
    if (i > LIMIT) break;
  }
  t.true(remaining.length >= LIMIT - 3, `${remaining.length} requests before the limit`);
  t.deepEqual(
    remaining,
    Array.from({ length: remaining.length }, (_, i) => remaining[0]! - i),
    'both instances count down one window',
  );
  t.is(remaining[remaining.length - 1], 0);
  for (const instance of [A(), B()]) {
    const limited = await instance.api.as(me.key).get('/user');
    t.is(limited.status, 429);
    t.is(limited.headers.get('ratelimit-remaining'), '0');
  }
});

maybe('key:revoke from the CLI reaches every instance through the cluster at once', async (t) => {
  const owner = await cluster!.current.newUser(0);
  const player = await cluster!.current.newUser(1);
  const slug = await roomOf(owner, player);
  const sockets = [await connectWelcomed(A().url, slug, { token: player.key }, clients), await connectWelcomed(B().url, slug, { token: player.key }, clients)];
  // The periodic re-validation is an hour away here: only the control message can drop them.
  const dropped = sockets.map((s) => s.waitForDisconnect(30_000));
  const { database } = cluster!.current;
  const out = await runCli(
    {
      DATABASE_URL: database.databaseUrl!,
      DATA_DIR: database.dataDir,
      REDIS_CLUSTER_NODES: TEST_REDIS_CLUSTER_NODES!,
      REDIS_PREFIX: prefix,
      PUSHER_APP_SECRET: 'test-pusher-secret-0123456789',
    },
    ['key:revoke', player.key],
  );
  t.is(out.code, 0, out.stdout + out.stderr);
  t.regex(out.stdout, /Their open sockets are being dropped on every instance/);
  for (const reason of await Promise.all(dropped)) t.is(reason, 'io server disconnect');
});

maybe("the service's keys are spread over the cluster's masters, and no command was refused with CROSSSLOT", async (t) => {
  // A few more rooms, so that the presence keys land on several slots.
  const owner = await cluster!.current.newUser(0);
  for (let i = 0; i < 8; i++) {
    const slug = (await owner.api.post('/room', { name: `Spread ${i}` })).body.data.slug as string;
    await connectWelcomed((i % 2 ? A() : B()).url, slug, { token: owner.key }, clients);
  }
  const keys = await redisKeys(redis, `*${prefix}*`);
  const presence = keys.filter((k) => k.startsWith(`{${prefix}presence:room:`));
  const limits = keys.filter((k) => k.startsWith(`${prefix}ratelimit:`));
  t.true(presence.length >= 8, `${presence.length} presence keys`);
  t.true(limits.length >= 2, `${limits.length} rate-limit keys`);
  const slots = new Set(keys.map(slotKey));
  const masters = new Set(keys.map((k) => redis.slots[slotKey(k)]![0]));
  t.log(`${keys.length} keys of this deployment on ${slots.size} slots over ${masters.size} of ${redis.nodes('master').length} masters`);
  t.true(slots.size >= 5, 'several slots');
  t.true(masters.size >= 2, 'several masters');
  t.deepEqual(await crossSlotErrors(), crossSlotBefore, 'no CROSSSLOT error on any master');
  for (const instance of cluster!.current.instances) t.notRegex(instance.output(), /CROSSSLOT|MOVED|ASK /, 'no slot error logged by an instance');
});

/** The hash slot of a key, as Redis computes it (the part in braces when there is one). */
const slotKey = (key: string): number => calculateSlot(key);

maybe('the wrong variable for the Redis at hand stops start-up with a sentence saying which to set', async (t) => {
  const base = {
    PORT: '0',
    DATA_DIR: cluster!.current.database.dataDir,
    DATABASE_URL: cluster!.current.database.databaseUrl!,
    PUSHER_APP_SECRET: 'test-pusher-secret-0123456789',
  };
  const node = TEST_REDIS_CLUSTER_NODES!.split(',')[0]!;
  const asUrl = await runMainExpectingExit({ ...base, REDIS_URL: `redis://${node}` });
  t.is(asUrl.code, 1);
  t.regex(
    asUrl.stderr,
    /^Cannot start: Redis at REDIS_URL is a node of a Redis Cluster \(cluster_enabled:1\): name the cluster's nodes in REDIS_CLUSTER_NODES instead\./m,
  );

  const port = await freePort();
  const standalone = await startRedis(port);
  t.teardown(() => killRedis(standalone));
  const asCluster = await runMainExpectingExit({ ...base, REDIS_CLUSTER_NODES: `127.0.0.1:${port}` });
  t.is(asCluster.code, 1);
  t.regex(asCluster.stderr, new RegExp(`^Cannot start: REDIS_CLUSTER_NODES names 127\\.0\\.0\\.1:${port}, a Redis server that is not in cluster mode`, 'm'));
  t.notRegex(asUrl.stderr + asCluster.stderr, /\n\s+at /, 'no stack trace');
});
