import test from 'ava';
import { redisClient, startCluster, subscribedChannels, useCluster, type Cluster } from '../helpers/cluster';
import { closeAll, connectWelcomed, type Client } from '../helpers/sockets';

// Two deployments sharing one Redis, told apart by REDIS_PREFIX: each one's presence keys and
// Socket.IO channels start with its own prefix, and its instances still act as one.
const tenantA = useCluster(test, 2, { REDIS_PREFIX: 'tenant-a:' });
let tenantB: Cluster | undefined;
test.before(async () => {
  tenantB = await startCluster(1, { REDIS_PREFIX: 'tenant-b:' });
});
test.after.always(async () => {
  await tenantB?.stop();
});

const clients: Client[] = [];
test.after.always(() => closeAll(...clients));

async function roomIn(cluster: Cluster, instance: number) {
  const owner = await cluster.newUser(instance);
  const slug = (await owner.api.post('/room', { name: 'Prefixed' })).body.data.slug as string;
  const socket = await connectWelcomed(cluster.instances[instance]!.url, slug, { token: owner.key }, clients);
  return { owner, slug, socket };
}

test('presence keys and adapter channels carry the deployment prefix; instances of one deployment still talk', async (t) => {
  const redis = redisClient();
  t.teardown(() => redis.disconnect());
  const a = await roomIn(tenantA.current, 1);
  const b = await roomIn(tenantB!, 0);

  t.deepEqual(Object.values(await redis.hgetall(`{tenant-a:presence:room:${a.slug}}`)), ['1']);
  t.deepEqual(Object.values(await redis.hgetall(`{tenant-b:presence:room:${b.slug}}`)), ['1']);
  for (const slug of [a.slug, b.slug]) t.is(await redis.exists(`{dice:presence:room:${slug}}`), 0);
  t.true((await subscribedChannels(redis, `tenant-a*#/room/${a.slug}#*`)).length > 0);
  t.true((await subscribedChannels(redis, `tenant-b*#/room/${b.slug}#*`)).length > 0);
  t.deepEqual(await subscribedChannels(redis, `dice*#/room/${a.slug}#*`), []);

  // A change made through the other instance of deployment A reaches the socket on this one.
  await tenantA.current.instances[0]!.api.as(a.owner.key).patch(`/room/${a.slug}`, { name: 'Through A0' });
  await a.socket.waitFor('RoomUpdateEvent', (p) => p.data.name === 'Through A0');
  t.is(a.socket.of('RoomUpdateEvent').filter((p) => p.data.name === 'Through A0').length, 1, 'the change made through A0 arrived, once');
});
