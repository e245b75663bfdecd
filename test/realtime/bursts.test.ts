import test from 'ava';
import { useServer } from '../helpers/server';
import { closeAll, connectRoom, connectWelcomed, type Client } from '../helpers/sockets';
import { KeyedThrottle } from '../../src/realtime/fanout/keyedThrottle';
import { RoomLoads } from '../../src/realtime/connection/roomSnapshots';
import type { RoomRecord as Room } from '../../src/rooms/store/records';

// Bursts in a room (many joins, many connections at once) must not cost one announcement of the
// whole room per change (docs/realtime.md, "Bursts").

const ctx = useServer(test);
const clients: Client[] = [];
test.after.always(() => closeAll(...clients));

test('a throttle runs the first item at once and folds the rest of its window into one run of the latest', (t) => {
  const runs: string[] = [];
  // A window no test outlives: only flush() closes it, so nothing here depends on timing.
  const throttle = new KeyedThrottle<string>(3_600_000, (item) => runs.push(item));
  for (let i = 0; i < 20; i++) throttle.push('room-a', `a${i}`);
  throttle.push('room-b', 'b0');
  t.deepEqual(runs, ['a0', 'b0']);
  t.is(throttle.pending, 1);
  throttle.flush();
  t.deepEqual(runs, ['a0', 'b0', 'a19']);
  t.is(throttle.pending, 0);
  // After a flush the next item is again the first of its window.
  throttle.push('room-a', 'a20');
  t.deepEqual(runs, ['a0', 'b0', 'a19', 'a20']);
  throttle.flush();

  const unthrottled: string[] = [];
  const off = new KeyedThrottle<string>(0, (item) => unthrottled.push(item));
  for (let i = 0; i < 3; i++) off.push('k', `x${i}`);
  t.deepEqual(unthrottled, ['x0', 'x1', 'x2']);
});

test('room loads: askers at the same time share one load; nobody shares a load already under way', async (t) => {
  const reads: Array<{ slug: string; resolve: (room: Room | null) => void }> = [];
  const loads = new RoomLoads((slug) => new Promise((resolve) => reads.push({ slug, resolve })));
  const fakeRoom = (name: string) => ({ name, userId: 1, participants: [] }) as unknown as Room;
  const tick = () => new Promise((r) => setImmediate(r));

  const first = Array.from({ length: 10 }, () => loads.load('table'));
  await tick();
  t.is(reads.length, 1, 'ten askers at once: one read');
  // Asked while that read is under way: they wait for a read of their own, shared among them.
  const second = Array.from({ length: 10 }, () => loads.load('table'));
  const other = loads.load('other-table');
  await tick();
  t.is(reads.length, 2, 'the read under way is not shared; another room reads at once');
  t.is(reads[1]!.slug, 'other-table');
  reads[0]!.resolve(fakeRoom('v1'));
  const got1 = await Promise.all(first);
  t.true(got1.every((s) => s === got1[0] && s!.room.name === 'v1'));
  await tick();
  t.is(reads.length, 3, 'the waiting askers read once the first read ended');
  reads[2]!.resolve(fakeRoom('v2'));
  reads[1]!.resolve(null);
  const got2 = await Promise.all(second);
  t.true(got2.every((s) => s === got2[0] && s!.room.name === 'v2'));
  t.is(await other, null);
  await tick();
  t.is(loads.size, 0, 'nothing is kept once the loads are over');
});

async function newRoom() {
  const owner = await ctx.server.newUser();
  const res = await owner.api.post('/room', { name: 'Burst', is_public: true });
  if (res.status !== 201) throw new Error(`room creation failed: ${res.status} ${res.text}`);
  return { owner, slug: res.body.data.slug as string };
}

test('20 quick joins send far fewer than 20 RoomUpdateEvents, and the last one has everyone', async (t) => {
  const { owner, slug } = await newRoom();
  const players = await Promise.all(Array.from({ length: 20 }, () => ctx.server.newUser()));
  const watcher = await connectWelcomed(ctx.server.url, slug, { token: owner.key }, clients);

  const joins = await Promise.all(players.map((p) => p.api.post(`/room/${slug}/participant`, {})));
  t.true(joins.every((r) => r.status === 200));
  // Everything folded is emitted now; then an event that must come after it, on the same socket.
  await ctx.server.realtime.fanout.drain();
  const late = await connectRoom(ctx.server.url, slug, { token: players[0]!.key });
  clients.push(late);
  await watcher.waitFor('ParticipantConnectEvent', (p) => p.data.user.uuid === players[0]!.user.uuid);

  const updates = watcher.of('RoomUpdateEvent').slice(1);
  t.log(`${updates.length} RoomUpdateEvents for 20 joins`);
  t.true(updates.length >= 1);
  t.true(updates.length < 20, `${updates.length} RoomUpdateEvents for 20 joins`);
  const last = updates[updates.length - 1];
  t.is(last.data.participants.length, 21);
  t.deepEqual(last.data, (await owner.api.get(`/room/${slug}`)).body.data);
});

test('20 sockets connecting at once: each gets the room and who is online; the room hears each user connect once', async (t) => {
  const { owner, slug } = await newRoom();
  const players = await Promise.all(Array.from({ length: 20 }, () => ctx.server.newUser()));
  for (const p of players) t.is((await p.api.post(`/room/${slug}/participant`, {})).status, 200);
  await ctx.server.realtime.fanout.drain();
  const watcher = await connectWelcomed(ctx.server.url, slug, { token: owner.key }, clients);

  const sockets = await Promise.all(players.map((p) => connectRoom(ctx.server.url, slug, { token: p.key })));
  clients.push(...sockets);
  const rooms = await Promise.all(sockets.map((s) => s.waitFor('RoomUpdateEvent')));
  const rest = (await players[0]!.api.get(`/room/${slug}`)).body.data;
  for (const r of rooms) t.deepEqual(r.data, rest);
  // (The watcher also hears its own connection announced to the room: not counted here.)
  const fromPlayers = () =>
    watcher
      .of('ParticipantConnectEvent')
      .map((p) => p.data.user.uuid as string)
      .filter((u) => u !== owner.user.uuid);
  await watcher.until(() => new Set(fromPlayers()).size === 20, '20 players connected');
  // A later event, so that a duplicate would have arrived before it.
  await owner.api.patch(`/room/${slug}`, { name: 'After the burst' });
  await watcher.waitFor('RoomUpdateEvent', (p) => p.data.name === 'After the burst');
  t.deepEqual(fromPlayers().sort(), players.map((p) => p.user.uuid).sort());
  // The last of them to be welcomed heard of everyone connected before it, the owner included.
  const last = await connectRoom(ctx.server.url, slug, { token: players[0]!.key });
  clients.push(last);
  await last.waitForCount('ParticipantConnectEvent', 20);
  const heard = new Set(last.of('ParticipantConnectEvent').map((p) => p.data.user.uuid));
  t.true(heard.has(owner.user.uuid));
  t.is(heard.size, 20); // the owner and 19 others: not itself
});
