import test from 'ava';
import { redisClient, useCluster, type ClusterInstance } from '../helpers/cluster';
import { closeAll, connectRoom, type Client } from '../helpers/sockets';

// Three instances; one is killed outright (no graceful shutdown, no leave): the others must count
// its sockets out, once. Takes up to heartbeat + TTL by design: 2 + 6 s here (PRESENCE_TTL_MS).
// A deployment of its own (REDIS_PREFIX): with the default prefix, instances of other test files
// running beside it on the same Redis (each with a database of its own) counted as survivors too, and
// one of them could reap B first, find no such room in its database and announce nothing (CI of
// 23 Nov 2026: no ParticipantDisconnectEvent in 90 s). One deployment is one prefix and one database.
const PREFIX = `crash-${process.pid}-${Date.now()}:`;
const cluster = useCluster(test, 3, { REDIS_PREFIX: PREFIX, PRESENCE_TTL_MS: '6000' });
const clients: Client[] = [];
test.after.always(() => closeAll(...clients));

test('participants of an instance that dies are announced gone, once, by the survivors', async (t) => {
  const [A, B, C] = cluster.current.instances as [ClusterInstance, ClusterInstance, ClusterInstance];
  const owner = await cluster.current.newUser(0);
  const player = await cluster.current.newUser(1);
  const slug = (await owner.api.post('/room', { name: 'Crash' })).body.data.slug as string;
  t.is((await player.api.post(`/room/${slug}/participant`, {})).status, 200);
  const onA = await connectRoom(A.url, slug, { token: owner.key });
  const onC = await connectRoom(C.url, slug, { token: owner.key });
  const onB = await connectRoom(B.url, slug, { token: player.key });
  clients.push(onA, onB, onC);
  await onA.waitFor('ParticipantConnectEvent', (p) => p.data.user.uuid === player.user.uuid);

  await B.stop('SIGKILL');
  const gone = await onA.waitFor('ParticipantDisconnectEvent', (p) => p.data.user.uuid === player.user.uuid, 90_000);
  t.is(gone.data.user.uuid, player.user.uuid);
  // Something later, to be sure a second announcement would have come before it.
  await owner.api.patch(`/room/${slug}`, { name: 'After' });
  for (const c of [onA, onC]) {
    await c.waitFor('RoomUpdateEvent', (p) => p.data.name === 'After');
    t.is(c.of('ParticipantDisconnectEvent').length, 1);
  }
  const redis = redisClient();
  t.teardown(() => redis.disconnect());
  // Only the owner is left, with its two sockets.
  t.deepEqual(Object.values(await redis.hgetall(`{${PREFIX}presence:room:${slug}}`)), ['2']);
});
