import test from 'ava';
import { redisClient, subscribedChannels, useCluster, type TestUser } from '../helpers/cluster';
import { closeAll, connectWelcomed, startConnectRoom, type Client } from '../helpers/sockets';

// Two instances as separate processes, one PostgreSQL database, one Redis.
const cluster = useCluster(test, 2);
const A = () => cluster.current.instances[0]!;
const B = () => cluster.current.instances[1]!;

const clients: Client[] = [];
const connect = (url: string, slug: string, auth: Record<string, unknown>) => connectWelcomed(url, slug, auth, clients);
test.after.always(() => closeAll(...clients));

async function roomWith(owner: TestUser, body: Record<string, unknown> = { name: 'Table' }) {
  const res = await owner.api.post('/room', body);
  if (res.status !== 201) throw new Error(`room creation failed: ${res.status} ${res.text}`);
  return res.body.data as { slug: string; passcode: string | null };
}

async function join(user: TestUser, slug: string, passcode?: string | null) {
  const res = await user.api.post(`/room/${slug}/participant`, passcode ? { passcode } : {});
  if (res.status !== 200) throw new Error(`join failed: ${res.status} ${res.text}`);
  return res.body.data;
}

test('join and leave on B reach A, once each', async (t) => {
  const owner = await cluster.current.newUser(0);
  const player = await cluster.current.newUser(1);
  const room = await roomWith(owner);
  await join(player, room.slug);
  const onA = await connect(A().url, room.slug, { token: owner.key });
  const tab1 = await connect(B().url, room.slug, { token: player.key });
  const tab2 = await connect(B().url, room.slug, { token: player.key });
  await onA.waitFor('ParticipantConnectEvent', (p) => p.data.user.uuid === player.user.uuid);
  // A third tab on the other instance is still the same participant.
  const tab3 = await connect(A().url, room.slug, { token: player.key });
  tab1.close();
  tab2.close();
  // A later event, to be sure nothing else came before it.
  await owner.api.patch(`/room/${room.slug}`, { name: 'Later' });
  await onA.waitFor('RoomUpdateEvent', (p) => p.data.name === 'Later');
  t.is(onA.of('ParticipantConnectEvent').filter((p) => p.data.user.uuid === player.user.uuid).length, 1);
  t.is(onA.of('ParticipantDisconnectEvent').length, 0);
  tab3.close();
  const gone = await onA.waitFor('ParticipantDisconnectEvent');
  t.is(gone.data.user.uuid, player.user.uuid);
  t.is(onA.of('ParticipantDisconnectEvent').length, 1);
});

test('a room update made through A reaches sockets on A and B exactly once', async (t) => {
  const owner = await cluster.current.newUser(0);
  const player = await cluster.current.newUser(1);
  const room = await roomWith(owner);
  await join(player, room.slug);
  const a = await connect(A().url, room.slug, { token: owner.key });
  const b = await connect(B().url, room.slug, { token: player.key });
  await A().api.as(owner.key).patch(`/room/${room.slug}`, { name: 'First' });
  await A().api.as(owner.key).patch(`/room/${room.slug}`, { name: 'Second' });
  for (const c of [a, b]) {
    await c.waitFor('RoomUpdateEvent', (p) => p.data.name === 'Second');
    // (The join's own update may also arrive, just after connecting: it is not counted here.)
    const names = c
      .of('RoomUpdateEvent')
      .map((p) => p.data.name)
      .filter((n) => n === 'First' || n === 'Second');
    t.deepEqual(names, ['First', 'Second']);
  }
});

test('a participant kicked through A is dropped from B at once', async (t) => {
  const owner = await cluster.current.newUser(0);
  const player = await cluster.current.newUser(1);
  const room = await roomWith(owner);
  const joined = await join(player, room.slug);
  const participantId = joined.participants.find((p: any) => p.user.uuid === player.user.uuid).id;
  const a = await connect(A().url, room.slug, { token: owner.key });
  const b = await connect(B().url, room.slug, { token: player.key });
  const dropped = b.waitForDisconnect();
  t.is((await A().api.as(owner.key).delete(`/room/${room.slug}/participant/${participantId}`)).status, 204);
  t.is(await dropped, 'io server disconnect');
  await a.waitFor('ParticipantDisconnectEvent', (p) => p.data.user.uuid === player.user.uuid);
  t.true(a.socket.connected);
});

test('a passcode changed through A drops everyone but the owner, on both instances', async (t) => {
  const owner = await cluster.current.newUser(0);
  const p1 = await cluster.current.newUser(0);
  const p2 = await cluster.current.newUser(1);
  const room = await roomWith(owner, { name: 'Vault', is_public: false });
  await join(p1, room.slug, room.passcode);
  await join(p2, room.slug, room.passcode);
  const ownerOnB = await connect(B().url, room.slug, { token: owner.key });
  const onA = await connect(A().url, room.slug, { token: p1.key });
  const onB = await connect(B().url, room.slug, { token: p2.key });
  const drops = Promise.all([onA.waitForDisconnect(), onB.waitForDisconnect()]);
  t.is((await A().api.as(owner.key).patch(`/room/${room.slug}`, { passcode: 'fresh-code-9' })).status, 200);
  await drops;
  await ownerOnB.waitFor('RoomUpdateEvent', (p) => p.data.passcode === 'fresh-code-9');
  t.true(ownerOnB.socket.connected);
});

test("an instance's Redis subscriptions for a room go when the room's last socket there does", async (t) => {
  const owner = await cluster.current.newUser(0);
  const room = await roomWith(owner);
  const redis = redisClient();
  t.teardown(() => redis.disconnect());
  const channels = () => subscribedChannels(redis, `*#/room/${room.slug}#*`);
  t.deepEqual(await channels(), []);
  const c = await connect(B().url, room.slug, { token: owner.key });
  t.true((await channels()).length > 0);
  c.close();
  // Polled until empty or 10 s: nothing tells the test when the other process unsubscribed.
  const deadline = Date.now() + 10_000;
  let left = await channels();
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    left = await channels();
  }
  t.deepEqual(left, [], 'no subscription is left 10 s after the last socket closed');
});

test('a tab reloaded while it was the last socket keeps hearing the other instance', async (t) => {
  const owner = await cluster.current.newUser(0);
  const player = await cluster.current.newUser(0);
  const room = await roomWith(owner);
  await join(player, room.slug);
  let tab = await connect(B().url, room.slug, { token: player.key });
  for (let i = 0; i < 10; i++) {
    // The new socket's handshake is under way (its connection is open, the server checks its key)
    // while the old one leaves.
    const next = startConnectRoom(B().url, room.slug, { token: player.key });
    await next.opened;
    tab.close();
    tab = await next.connected;
    clients.push(tab);
    await tab.waitFor('RoomUpdateEvent');
  }
  await A().api.as(owner.key).patch(`/room/${room.slug}`, { name: 'Still here?' });
  await tab.waitFor('RoomUpdateEvent', (p) => p.data.name === 'Still here?');
  const heard = tab.of('RoomUpdateEvent').filter((p) => p.data.name === 'Still here?');
  t.is(heard.length, 1, 'the change made on the other instance arrived, once');
  t.true(tab.socket.connected, 'the last tab is still connected');
});
