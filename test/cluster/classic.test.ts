import test from 'ava';
import { redisClient, subscribedChannels, useCluster } from '../helpers/cluster';
import { closeAll, connectWelcomed, type Client } from '../helpers/sockets';

// The classic fabric, as on a Redis older than 7 (no sharded pub/sub), forced with
// REDIS_PUBSUB=classic on the shared Redis 7: each instance says once what that costs, and the
// instances still act as one (the broadcaster writes the classic adapter's format through
// @socket.io/redis-emitter). The choice itself on old versions: test/lib/pubsubMode.test.ts.
// A prefix of its own: other test files' instances on the shared Redis (sharded) are not its peers.
const ENV = { REDIS_PUBSUB: 'classic', REDIS_PREFIX: 'classic-test:' };
const cluster = useCluster(test, 2, ENV);
const A = () => cluster.current.instances[0]!;
const B = () => cluster.current.instances[1]!;

const clients: Client[] = [];
test.after.always(() => closeAll(...clients));

const lines = (output: string) =>
  output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: number; msg: string; pubsub?: string });

test('each instance logs one warning naming the classic ceiling, and nothing about sharded pub/sub', (t) => {
  for (const instance of [A(), B()]) {
    const logged = lines(instance.output());
    const ceiling = logged.filter((l) => l.msg.includes('x136'));
    t.is(ceiling.length, 1, instance.output().slice(0, 2000));
    t.is(ceiling[0]!.level, 40, 'a warning');
    t.is(ceiling[0]!.pubsub, 'classic');
    t.regex(ceiling[0]!.msg, /^REDIS_PUBSUB=classic: .*pattern subscription.*x136 Redis CPU per publish at 3,000 live rooms.*about 270 rolls\/s/);
    t.false(logged.some((l) => l.msg.includes('sharded pub/sub') && l.level < 40));
  }
});

test('rolls, presence and kicks cross the two instances over classic pub/sub only', async (t) => {
  const owner = await cluster.current.newUser(0);
  const player = await cluster.current.newUser(1);
  const slug = (await owner.api.post('/room', { name: 'Classic' })).body.data.slug as string;
  const joined = await player.api.post(`/room/${slug}/participant`, {});
  t.is(joined.status, 200);
  const onA = await connectWelcomed(A().url, slug, { token: owner.key }, clients);
  const onB = await connectWelcomed(B().url, slug, { token: player.key }, clients);
  await onA.waitFor('ParticipantConnectEvent', (p) => p.data.user.uuid === player.user.uuid);

  // Two viewer classes (roller, the others): one MULTI block of PUBLISHes.
  const roll = await owner.api.post('/roll', { dice: [{ type: 'd6', theme: 'standard' }], room: slug });
  t.is(roll.status, 201);
  for (const client of [onA, onB]) await client.waitFor('RollCreateEvent', (p) => p.data.uuid === roll.body.data.uuid);

  const redis = redisClient();
  t.teardown(() => redis.disconnect());
  const channels = await subscribedChannels(redis, `*#/room/${slug}#*`);
  t.true(channels.includes(`classic-test-request#/room/${slug}#`), channels.join(', '));
  t.deepEqual(await redis.call('PUBSUB', 'SHARDCHANNELS', `*#/room/${slug}#*`), [], 'no shard channel');

  // A kick made on A (the emitter's disconnect request) drops the socket on B.
  const participantId = (await owner.api.get(`/room/${slug}`)).body.data.participants.find((p: any) => p.user.uuid === player.user.uuid).id;
  const dropped = onB.waitForDisconnect();
  t.is((await owner.api.delete(`/room/${slug}/participant/${participantId}`)).status, 204);
  t.is(await dropped, 'io server disconnect');
});

test('an instance started on the other fabric beside them (REDIS_PUBSUB=auto on Redis 7: sharded) says they do not hear each other', async (t) => {
  const odd = await cluster.current.add({ REDIS_PUBSUB: 'auto' });
  const warned = lines(odd.output()).filter(
    (l) => l.level === 40 && /instance\(s\) of this deployment run on classic pub\/sub: they and this one \(sharded\) do not hear each other/.test(l.msg),
  );
  t.is(warned.length, 1, odd.output().slice(0, 3000));
  t.true((warned[0] as unknown as { peers: number }).peers >= 2, 'A and B');
  for (const instance of [A(), B()]) t.false(instance.output().includes('do not hear each other'), 'the classic pair saw no sharded peer when it started');
});
