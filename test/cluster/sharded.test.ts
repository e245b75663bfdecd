import test from 'ava';
import { Cluster as RedisCluster, Redis } from 'ioredis';
import { clusterNodesOf, redisClient, shardSubscribers, subscribedChannels, useCluster } from '../helpers/cluster';
import { TEST_REDIS_CLUSTER_NODES, TEST_REDIS_URL } from '../helpers/env';
import { closeAll, connectWelcomed, type Client } from '../helpers/sockets';
import { shardChannel, shardedWire } from '../../src/realtime/transport/shardedWire';
import { MEMBERS_CHANNEL, roomNamespace } from '../../src/realtime/names';

// Two instances on a Redis 7 (REDIS_PUBSUB unset: auto, so sharded pub/sub). The messages of the
// broadcaster's own sharded publisher (src/realtime/transport/shardedWire.ts, which the adapter's
// package cannot write for us) are sent from here, as the broadcaster sends them, and must be
// decoded by the real adapter of both instances: an adapter version that reads them differently
// fails this file.
const cluster = useCluster(test, 2);
const A = () => cluster.current.instances[0]!;
const B = () => cluster.current.instances[1]!;
const KEY = 'dice'; // REDIS_PREFIX "dice:" without its colon: the adapter's channel prefix

const clients: Client[] = [];
test.after.always(() => closeAll(...clients));

const redis = redisClient();
test.after.always(() => redis.disconnect());

/** A room with its owner's socket on A and a player's on B. */
async function roomOnBoth() {
  const owner = await cluster.current.newUser(0);
  const player = await cluster.current.newUser(1);
  const slug = (await owner.api.post('/room', { name: 'Sharded' })).body.data.slug as string;
  if ((await player.api.post(`/room/${slug}/participant`, {})).status !== 200) throw new Error('join failed');
  const onA = await connectWelcomed(A().url, slug, { token: owner.key }, clients);
  const onB = await connectWelcomed(B().url, slug, { token: player.key }, clients);
  return { owner, player, slug, onA, onB };
}

test('both instances start on sharded pub/sub and say so once', (t) => {
  for (const instance of [A(), B()]) {
    const lines = instance
      .output()
      .split('\n')
      .filter((l) => l.includes('realtime fabric'));
    t.is(lines.length, 1, instance.output().slice(0, 2000));
    t.is(JSON.parse(lines[0]!).pubsub, 'sharded');
    t.false(instance.output().includes('classic adapter'));
  }
});

test("the publisher's broadcasts, sent as one MULTI block, reach sockets on both instances in order, with rooms and except honoured", async (t) => {
  const { slug, onA, onB } = await roomOnBoth();
  const namespace = roomNamespace(slug);
  const wire = shardedWire(KEY);
  const first = wire.encodeFor({ namespace, to: [MEMBERS_CHANNEL] }, 'ProbeEvent', { data: { n: 1, nested: { list: [1, 'two', null] } } });
  const nobody = wire.encodeFor({ namespace, to: [MEMBERS_CHANNEL], except: [MEMBERS_CHANNEL] }, 'ProbeEvent', { data: { n: 2 } });
  const everyone = wire.encodeFor({ namespace }, 'ProbeEvent', { data: { n: 3 } });
  t.is(first.channel, shardChannel(KEY, namespace));
  t.is(wire.command, 'spublish');
  const results = await redis.multi([first, nobody, everyone].map(({ channel, message }) => [wire.command, channel, message])).exec();
  // Each SPUBLISH reached the two instances' adapters (the shard channel's two subscribers).
  t.deepEqual(
    results!.map(([err, n]) => [err, n]),
    [
      [null, 2],
      [null, 2],
      [null, 2],
    ],
  );
  for (const client of [onA, onB]) {
    const got = await client.waitForCount('ProbeEvent', 2);
    t.deepEqual(got, [{ data: { n: 1, nested: { list: [1, 'two', null] } } }, { data: { n: 3 } }]);
  }
});

test("the publisher's disconnect drops the room's sockets on both instances, and they are told not to retry", async (t) => {
  const { slug, onA, onB } = await roomOnBoth();
  const { channel, message } = shardedWire(KEY).encodeDisconnect({ namespace: roomNamespace(slug), to: [MEMBERS_CHANNEL] });
  const reasons = Promise.all([onA.waitForDisconnect(), onB.waitForDisconnect()]);
  t.is(await redis.spublish(channel, message), 2);
  t.deepEqual(await reasons, ['io server disconnect', 'io server disconnect']);
});

test('a roll through A reaches a socket on B through the shard channel of its room', async (t) => {
  const { owner, slug, onB } = await roomOnBoth();
  const roll = await owner.api.post('/roll', { dice: [{ type: 'd6', theme: 'standard' }], room: slug });
  t.is(roll.status, 201);
  await onB.waitFor('RollCreateEvent', (p) => p.data.uuid === roll.body.data.uuid);
  t.is(await shardSubscribers(redis, shardChannel(KEY, roomNamespace(slug))), 2);
});

test("a roll every member sees alike crosses Redis as one message; a hidden die's roll as two, its roller's apart", async (t) => {
  const { owner, slug, onA, onB } = await roomOnBoth();
  const channel = shardChannel(KEY, roomNamespace(slug));
  // Every message published to the room's shard channel, heard by a subscriber of this test's own.
  const listener = TEST_REDIS_CLUSTER_NODES
    ? new RedisCluster(clusterNodesOf(TEST_REDIS_CLUSTER_NODES), { shardedSubscribers: true })
    : new Redis(TEST_REDIS_URL!);
  t.teardown(() => listener.disconnect());
  const published: Buffer[] = [];
  listener.on('smessageBuffer', (from: Buffer, message: Buffer) => {
    if (from.toString() === channel) published.push(message);
  });
  await listener.ssubscribe(channel);
  const rollAndCount = async (dice: object[]) => {
    const before = published.length;
    const res = await owner.api.post('/roll', { dice, room: slug });
    t.is(res.status, 201);
    const uuid = res.body.data.uuid as string;
    const seen = await Promise.all([onA, onB].map((c) => c.waitFor('RollCreateEvent', (p) => p.data.uuid === uuid)));
    // A roll's messages are published together (one script): once this subscriber has the first, a
    // moment more lets a second one, or a duplicate, show.
    const deadline = Date.now() + 5000;
    while (published.length === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 100));
    for (const c of [onA, onB]) t.is(c.of('RollCreateEvent').filter((p) => p.data.uuid === uuid).length, 1, 'each socket hears the roll once');
    return { count: published.length - before, owner: seen[0]!, player: seen[1]! };
  };

  const open = await rollAndCount([{ type: 'd6', theme: 'standard' }]);
  t.is(open.count, 1, 'the owner rolling dice everyone sees: one message for the whole room');
  t.deepEqual(open.owner, open.player);

  const hidden = await rollAndCount([{ type: 'd6', theme: 'standard', is_hidden: true }]);
  t.is(hidden.count, 2, "a hidden die: the roller's copy and the room's");
  t.is(typeof hidden.owner.data.values[0].value, 'number');
  t.is(hidden.player.data.values[0].value, null);
  t.is(hidden.player.data.values[0].proof.secret, null);
});

test("a room's namespace and shard subscriptions go from an instance when its last socket there goes", async (t) => {
  const { slug, onA, onB } = await roomOnBoth();
  const channel = shardChannel(KEY, roomNamespace(slug));
  const subscribers = () => shardSubscribers(redis, channel);
  const roomChannels = () => subscribedChannels(redis, `*#/room/${slug}#*`);
  // Per instance: the room's shard channel and the adapter's own response channel, nothing else
  // (no pattern, no per-room or per-user channel).
  const before = await roomChannels();
  t.is(before.length, 3, before.join(', '));
  t.true(before.includes(channel));
  t.is(await subscribers(), 2);

  onA.close();
  await waitFor(async () => (await subscribers()) === 1, 'A to let go of the shard channel');
  t.is((await roomChannels()).length, 2, 'B still holds the room');

  onB.close();
  await waitFor(async () => (await roomChannels()).length === 0, 'every subscription of the room to go');
  t.is(await subscribers(), 0);
});

/** Poll Redis (nothing tells the test when another process unsubscribed). */
async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 10_000) {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
