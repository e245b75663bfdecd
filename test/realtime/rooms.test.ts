import test from 'ava';
import { useServer } from '../helpers/server';
import { closeAll, connectRoom, connectUser, refusal, type Client } from '../helpers/sockets';

const ctx = useServer(test);

async function roomWith(owner: Awaited<ReturnType<typeof ctx.server.newUser>>, body: Record<string, unknown> = { name: 'Table' }) {
  const res = await owner.api.post('/room', body);
  if (res.status !== 201) throw new Error(`room creation failed: ${res.status} ${res.text}`);
  return res.body.data as { slug: string; passcode: string | null; participants: Array<{ id: number; user: { uuid: string } }> };
}

async function join(user: Awaited<ReturnType<typeof ctx.server.newUser>>, slug: string, passcode?: string | null) {
  const res = await user.api.post(`/room/${slug}/participant`, passcode ? { passcode } : {});
  if (res.status !== 200) throw new Error(`join failed: ${res.status} ${res.text}`);
  return res.body.data;
}

const clients: Client[] = [];
async function connect(slug: string, auth: Record<string, unknown>) {
  const c = await connectRoom(ctx.server.url, slug, auth);
  clients.push(c);
  return c;
}
test.after.always(() => closeAll(...clients));

test('a handshake without a key, with a bad key or a revoked key is refused with "unauthorized"', async (t) => {
  const owner = await ctx.server.newUser();
  const room = await roomWith(owner);
  for (const auth of [{}, { token: '' }, { token: 'dk_nope' }, { token: 42 }, { token: 'x'.repeat(5000) }]) {
    const r = await refusal(ctx.server.url, `/room/${room.slug}`, auth);
    t.is(r.code, 'unauthorized', JSON.stringify(auth).slice(0, 40));
    t.is(r.data.code, 'unauthorized');
    t.is(typeof r.data.message, 'string');
  }
  const { revokeApiKeys } = await import('../../src/users/apiKeys');
  const other = await ctx.server.newUser();
  await join(other, room.slug);
  await revokeApiKeys(other.key);
  t.is((await refusal(ctx.server.url, `/room/${room.slug}`, { token: other.key })).code, 'unauthorized');
});

test('an unknown or deleted room is "not_found"; a non-participant is "forbidden", even with the passcode', async (t) => {
  const owner = await ctx.server.newUser();
  const stranger = await ctx.server.newUser();
  t.is((await refusal(ctx.server.url, '/room/no-such-room', { token: owner.key })).code, 'not_found');
  const open = await roomWith(owner);
  t.is((await refusal(ctx.server.url, `/room/${open.slug}`, { token: stranger.key })).code, 'forbidden');
  const closed = await roomWith(owner, { name: 'Secret', is_public: false });
  const r = await refusal(ctx.server.url, `/room/${closed.slug}`, { token: stranger.key, passcode: closed.passcode! });
  t.is(r.code, 'forbidden');
  t.is(r.data.code, 'forbidden');
  t.is((await owner.api.delete(`/room/${open.slug}`)).status, 204);
  t.is((await refusal(ctx.server.url, `/room/${open.slug}`, { token: owner.key })).code, 'not_found');
});

test('a since that is not a uuid is a validation_error', async (t) => {
  const owner = await ctx.server.newUser();
  const room = await roomWith(owner);
  t.is((await refusal(ctx.server.url, `/room/${room.slug}`, { token: owner.key, since: 'yesterday' })).code, 'validation_error');
});

test('on connect the socket gets the room exactly as REST shows it to that user', async (t) => {
  const owner = await ctx.server.newUser();
  const room = await roomWith(owner, { name: 'Private', is_public: false });
  const c = await connect(room.slug, { token: owner.key });
  const [update] = await c.waitForCount('RoomUpdateEvent', 1);
  const rest = await owner.api.get(`/room/${room.slug}`);
  t.deepEqual(update, { data: rest.body.data, seq: update.seq });
  t.true(Number.isSafeInteger(update.seq), 'room events carry their seq');
  t.is(update.data.passcode, room.passcode);
});

test('presence: a participant with two tabs connects once and disconnects when its last tab goes', async (t) => {
  const owner = await ctx.server.newUser();
  const player = await ctx.server.newUser();
  const room = await roomWith(owner);
  const joined = await join(player, room.slug);
  const playerParticipant = joined.participants.find((p: any) => p.user.uuid === player.user.uuid);
  const watcher = await connect(room.slug, { token: owner.key });
  await watcher.waitFor('RoomUpdateEvent');

  const tab1 = await connect(room.slug, { token: player.key });
  const connected = await watcher.waitFor('ParticipantConnectEvent', (p) => p.data.user.uuid === player.user.uuid);
  t.deepEqual(connected.data, playerParticipant);
  // The newcomer hears who was already there.
  await tab1.waitFor('ParticipantConnectEvent', (p) => p.data.user.uuid === owner.user.uuid);

  const tab2 = await connect(room.slug, { token: player.key });
  await tab2.waitFor('RoomUpdateEvent');
  tab1.close();
  // Something that must come after: a room update, then check nothing about presence came before it.
  await owner.api.patch(`/room/${room.slug}`, { name: 'Renamed' });
  await watcher.waitFor('RoomUpdateEvent', (p) => p.data.name === 'Renamed');
  await tab2.waitFor('RoomUpdateEvent', (p) => p.data.name === 'Renamed');
  t.is(watcher.of('ParticipantConnectEvent').filter((p) => p.data.user.uuid === player.user.uuid).length, 1);
  t.is(watcher.of('ParticipantDisconnectEvent').length, 0);

  tab2.close();
  const gone = await watcher.waitFor('ParticipantDisconnectEvent');
  t.is(gone.data.user.uuid, player.user.uuid);
  t.is(gone.data.id, playerParticipant.id);
});

test('a room update reaches every socket of the room, presented for each viewer', async (t) => {
  const owner = await ctx.server.newUser();
  const player = await ctx.server.newUser();
  const room = await roomWith(owner);
  await join(player, room.slug);
  const a = await connect(room.slug, { token: owner.key });
  const b = await connect(room.slug, { token: player.key });
  await Promise.all([a.waitFor('RoomUpdateEvent'), b.waitFor('RoomUpdateEvent')]);
  t.is((await owner.api.patch(`/room/${room.slug}`, { name: 'New name' })).status, 200);
  const [ua, ub] = await Promise.all([
    a.waitFor('RoomUpdateEvent', (p) => p.data.name === 'New name'),
    b.waitFor('RoomUpdateEvent', (p) => p.data.name === 'New name'),
  ]);
  t.deepEqual(ua.data, (await owner.api.get(`/room/${room.slug}`)).body.data);
  t.deepEqual(ub.data, (await player.api.get(`/room/${room.slug}`)).body.data);
});

test('a removed participant is dropped at once; the others see the room without it', async (t) => {
  const owner = await ctx.server.newUser();
  const player = await ctx.server.newUser();
  const room = await roomWith(owner);
  const joined = await join(player, room.slug);
  const participantId = joined.participants.find((p: any) => p.user.uuid === player.user.uuid).id;
  const a = await connect(room.slug, { token: owner.key });
  const b = await connect(room.slug, { token: player.key });
  await b.waitFor('RoomUpdateEvent');
  const dropped = b.waitForDisconnect();
  t.is((await owner.api.delete(`/room/${room.slug}/participant/${participantId}`)).status, 204);
  t.is(await dropped, 'io server disconnect');
  const update = await a.waitFor('RoomUpdateEvent', (p) => p.data.participants.length === 1);
  t.false(update.data.participants.some((p: any) => p.user.uuid === player.user.uuid));
  await a.waitFor('ParticipantDisconnectEvent', (p) => p.data.user.uuid === player.user.uuid);
  t.is((await refusal(ctx.server.url, `/room/${room.slug}`, { token: player.key })).code, 'forbidden');
});

test('a passcode change drops everyone but the owner', async (t) => {
  const owner = await ctx.server.newUser();
  const player = await ctx.server.newUser();
  const room = await roomWith(owner, { name: 'Vault', is_public: false });
  await join(player, room.slug, room.passcode);
  const a = await connect(room.slug, { token: owner.key });
  const b = await connect(room.slug, { token: player.key });
  await Promise.all([a.waitFor('RoomUpdateEvent'), b.waitFor('RoomUpdateEvent')]);
  const dropped = b.waitForDisconnect();
  t.is((await owner.api.patch(`/room/${room.slug}`, { passcode: 'new-code-123' })).status, 200);
  await dropped;
  const update = await a.waitFor('RoomUpdateEvent', (p) => p.data.passcode === 'new-code-123');
  t.true(a.socket.connected);
  t.is(update.data.participants.length, 1);
});

test('a deleted room tells its sockets and closes them', async (t) => {
  const owner = await ctx.server.newUser();
  const player = await ctx.server.newUser();
  const room = await roomWith(owner);
  await join(player, room.slug);
  const b = await connect(room.slug, { token: player.key });
  await b.waitFor('RoomUpdateEvent');
  const dropped = b.waitForDisconnect();
  t.is((await owner.api.delete(`/room/${room.slug}`)).status, 204);
  const deleted = await b.waitFor('RoomDeleteEvent');
  t.is(deleted.data.slug, room.slug);
  t.is(typeof deleted.data.deleted_at, 'string');
  await dropped;
});

test('the /user namespace takes a key and refuses without one', async (t) => {
  const user = await ctx.server.newUser();
  t.is((await refusal(ctx.server.url, '/user', {})).code, 'unauthorized');
  t.is((await refusal(ctx.server.url, '/user', { token: 'dk_bad' })).code, 'unauthorized');
  const c = await connectUser(ctx.server.url, user.key);
  clients.push(c);
  t.true(c.socket.connected);
});

test('a room namespace goes away with its last socket, and refused handshakes leave none behind', async (t) => {
  const owner = await ctx.server.newUser();
  const room = await roomWith(owner);
  const junk = Array.from({ length: 5 }, (_, i) => `/room/junk-${i}-${Date.now()}`);
  for (const name of junk) await refusal(ctx.server.url, name, { token: owner.key });
  // Refused in the handshake, and with the wrong key: neither leaves a namespace behind.
  await refusal(ctx.server.url, junk[0]!, { token: 'dk_bad' });
  await waitUntil(() => junk.every((name) => !ctx.server.io._nsps.has(name)), 'the refused namespaces to go');
  const c = await connectRoom(ctx.server.url, room.slug, { token: owner.key });
  await c.waitFor('RoomUpdateEvent');
  t.true(ctx.server.io._nsps.has(`/room/${room.slug}`));
  c.close();
  await waitUntil(() => !ctx.server.io._nsps.has(`/room/${room.slug}`), "the room's namespace to go");
  t.false(ctx.server.io._nsps.has(`/room/${room.slug}`), 'the namespace went with its last socket');
  t.true(
    junk.every((name) => !ctx.server.io._nsps.has(name)),
    'no refused handshake left a namespace',
  );
});

async function waitUntil(check: () => boolean, what: string, timeoutMs = 5000) {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
