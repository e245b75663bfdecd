import test from 'ava';
import { useServer } from '../helpers/server';
import { request } from '../helpers/http';
import { recordEvents } from '../fixtures/events';
import { TIMESTAMP, userWithRoom } from '../rooms/support';

const ctx = useServer(test);
const events = recordEvents();

type P = { id: number; username: string; color: string; position: number; user: { uuid: string } };
const participantOf = (room: { participants: P[] }, uuid: string) => room.participants.find((p) => p.user.uuid === uuid)!;

test('joining a public room answers the room with the newcomer seated next, in a colour of its own', async (t) => {
  const { owner, slug } = await userWithRoom(ctx.server, { name: 'Tavern' });
  const [b, c] = [await ctx.server.newUser(), await ctx.server.newUser()];
  const mark = events.for(slug).length;

  const res = await b.api.post(`/room/${slug}/participant`);
  t.is(res.status, 200);
  t.is(res.body.type, 'room');
  t.is(res.body.data.slug, slug);
  const joined = participantOf(res.body.data, b.user.uuid);
  t.is(joined.position, 2);
  t.is(joined.username, b.user.name, "the username defaults to the user's name");
  t.regex(joined.color, /^#[0-9a-f]{6}$/);
  t.regex((joined as unknown as { created_at: string }).created_at, TIMESTAMP);
  t.deepEqual(
    events.since(slug, mark).map((e) => e.type),
    ['room.updated'],
  );

  const third = (await c.api.post(`/room/${slug}/participant`, {})).body.data;
  t.deepEqual(
    third.participants.map((p: P) => p.position),
    [1, 2, 3],
    'participants come in seat order',
  );
  t.is(new Set(third.participants.map((p: P) => p.color)).size, 3, 'every default colour differs');
  t.deepEqual(
    third.participants.map((p: P) => p.user.uuid),
    [owner.user.uuid, b.user.uuid, c.user.uuid],
  );
});

test('joining twice is a 409 already_participant, and so is the owner joining its own room', async (t) => {
  const { owner, slug } = await userWithRoom(ctx.server);
  const b = await ctx.server.newUser();
  t.is((await b.api.post(`/room/${slug}/participant`)).status, 200);
  const again = await b.api.post(`/room/${slug}/participant`);
  t.is(again.status, 409);
  t.is(again.body.data.code, 'already_participant');
  t.is((await owner.api.post(`/room/${slug}/participant`)).status, 409);
});

test('joining a private room needs its passcode, in the body or the query', async (t) => {
  const { room, slug } = await userWithRoom(ctx.server, { is_public: false, passcode: 'let-me-in' });
  const [a, b, c] = await Promise.all([ctx.server.newUser(), ctx.server.newUser(), ctx.server.newUser()]);
  const mark = events.for(slug).length;

  const none = await a.api.post(`/room/${slug}/participant`);
  t.is(none.status, 403);
  t.is(none.body.data.code, 'forbidden');
  const wrong = await a.api.post(`/room/${slug}/participant`, { passcode: 'let-me-out' });
  t.is(wrong.status, 403);
  t.is((await a.api.post(`/room/${slug}/participant?passcode=LET-ME-IN`)).status, 403, 'passcodes are case-sensitive');
  t.deepEqual(events.since(slug, mark), [], 'refused joins announce nothing');

  const body = await a.api.post(`/room/${slug}/participant`, { passcode: 'let-me-in' });
  t.is(body.status, 200);
  t.is(body.body.data.passcode, 'let-me-in', 'a participant now sees the passcode');
  const query = await b.api.post(`/room/${slug}/participant?passcode=let-me-in`);
  t.is(query.status, 200);
  // The SDK's body-less, form-encoded POST with the passcode in the query.
  const sdk = await request(c.api.url(`/room/${slug}/participant?passcode=${room.passcode}`), 'POST', {
    key: c.key,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '0' },
  });
  t.is(sdk.status, 200);
  t.is(sdk.body.data.participants.length, 4);
});

test('joining a room that does not exist, or was deleted, is a 404', async (t) => {
  const { owner, slug } = await userWithRoom(ctx.server);
  const b = await ctx.server.newUser();
  const missing = await b.api.post('/room/nosuchroom123456/participant');
  t.is(missing.status, 404);
  t.is(missing.body.data.code, 'not_found');
  await owner.api.delete(`/room/${slug}`);
  t.is((await b.api.post(`/room/${slug}/participant`)).status, 404);
  const bad = await b.api.post(`/room/${slug}/participant`, { passcode: 42 });
  t.is(bad.status, 400);
  t.is(bad.body.data.details[0].path, 'passcode');
});

test('PATCH participant: the participant itself changes its username and colour', async (t) => {
  const { slug } = await userWithRoom(ctx.server);
  const b = await ctx.server.newUser();
  const joined = (await b.api.post(`/room/${slug}/participant`)).body.data;
  const me = participantOf(joined, b.user.uuid);
  const mark = events.for(slug).length;

  const res = await b.api.patch(`/room/${slug}/participant/${me.id}`, { username: '  Bard  ', color: '#A1B2C3', passcode: 'ignored' });
  t.is(res.status, 200);
  t.is(res.body.type, 'room');
  const after = participantOf(res.body.data, b.user.uuid);
  t.is(after.username, 'Bard');
  t.is(after.color, '#a1b2c3');
  t.is(after.position, me.position);
  t.deepEqual(
    events.since(slug, mark).map((e) => e.type),
    ['room.updated'],
  );
});

test('PATCH participant: the owner may change anyone; another participant or a stranger may not', async (t) => {
  const { owner, slug } = await userWithRoom(ctx.server);
  const [b, c, stranger] = await Promise.all([ctx.server.newUser(), ctx.server.newUser(), ctx.server.newUser()]);
  await b.api.post(`/room/${slug}/participant`);
  const room = (await c.api.post(`/room/${slug}/participant`)).body.data;
  const pb = participantOf(room, b.user.uuid);
  const mark = events.for(slug).length;

  const byPeer = await c.api.patch(`/room/${slug}/participant/${pb.id}`, { username: 'Loser' });
  t.is(byPeer.status, 403);
  t.is(byPeer.body.data.code, 'forbidden');
  t.is((await stranger.api.patch(`/room/${slug}/participant/${pb.id}`, { username: 'Loser' })).status, 403);
  t.deepEqual(events.since(slug, mark), []);

  const byOwner = await owner.api.patch(`/room/${slug}/participant/${pb.id}`, { username: 'Renamed by GM' });
  t.is(byOwner.status, 200);
  t.is(participantOf(byOwner.body.data, b.user.uuid).username, 'Renamed by GM');
});

test('PATCH participant: bad fields are a 400, unknown or foreign participants a 404', async (t) => {
  const { owner, room, slug } = await userWithRoom(ctx.server);
  const other = await userWithRoom(ctx.server);
  const mine = room.participants[0].id;
  const bad = await owner.api.patch(`/room/${slug}/participant/${mine}`, { color: 'red', username: '' });
  t.is(bad.status, 400);
  t.deepEqual(bad.body.data.details.map((d: { path: string }) => d.path).sort(), ['color', 'username']);
  t.is((await owner.api.patch(`/room/${slug}/participant/${mine}`, { color: '#12345' })).status, 400);
  t.is((await owner.api.patch(`/room/${slug}/participant/${mine}`, { username: 'x'.repeat(65) })).status, 400);
  const notNumber = await owner.api.patch(`/room/${slug}/participant/abc`, { username: 'x' });
  t.is(notNumber.status, 400);
  t.is(notNumber.body.data.details[0].path, 'params.participant');
  const foreign = await owner.api.patch(`/room/${slug}/participant/${other.room.participants[0].id}`, { username: 'x' });
  t.is(foreign.status, 404, "another room's participant is not found here");
  t.is(foreign.body.data.code, 'not_found');
  t.is((await owner.api.patch(`/room/${slug}/participant/99999999`, { username: 'x' })).status, 404);
  t.is((await owner.api.patch(`/room/nosuchroom123456/participant/${mine}`, { username: 'x' })).status, 404);
});

test('DELETE participant: a participant leaves; a peer cannot remove it; the owner removes anyone', async (t) => {
  const { owner, slug } = await userWithRoom(ctx.server);
  const [b, c] = [await ctx.server.newUser(), await ctx.server.newUser()];
  await b.api.post(`/room/${slug}/participant`);
  const room = (await c.api.post(`/room/${slug}/participant`)).body.data;
  const pb = participantOf(room, b.user.uuid);
  const pc = participantOf(room, c.user.uuid);

  const byPeer = await c.api.delete(`/room/${slug}/participant/${pb.id}`);
  t.is(byPeer.status, 403);
  t.is(byPeer.body.data.code, 'forbidden');

  let mark = events.for(slug).length;
  const leave = await b.api.delete(`/room/${slug}/participant/${pb.id}`);
  t.is(leave.status, 204);
  t.is(leave.text, '');
  let published = events.since(slug, mark);
  t.deepEqual(
    published.map((e) => e.type),
    ['room.access_revoked', 'room.updated'],
  );
  t.like(published[0], { type: 'room.access_revoked' });
  t.is((published[0] as { userIds?: number[] }).userIds?.length, 1);

  mark = events.for(slug).length;
  const kick = await owner.api.delete(`/room/${slug}/participant/${pc.id}`);
  t.is(kick.status, 204);
  published = events.since(slug, mark);
  t.deepEqual(
    published.map((e) => e.type),
    ['room.access_revoked', 'room.updated'],
  );

  const left = (await owner.api.get(`/room/${slug}`)).body.data;
  t.deepEqual(
    left.participants.map((p: P) => p.user.uuid),
    [owner.user.uuid],
  );
  t.is((await owner.api.delete(`/room/${slug}/participant/${pc.id}`)).status, 404, 'already gone');
  t.false(
    (await b.api.get('/room')).body.data.some((r: { slug: string }) => r.slug === slug),
    'a room you left is no longer in your list',
  );
});

test('removal events name the removed user, not the one who removed it', async (t) => {
  const { owner, slug } = await userWithRoom(ctx.server);
  const b = await ctx.server.newUser();
  const room = (await b.api.post(`/room/${slug}/participant`)).body.data;
  const { User } = (await import('../../src/db')).db().models;
  const bRow = await User.findOne({ where: { uuid: b.user.uuid } });
  const ownerRow = await User.findOne({ where: { uuid: owner.user.uuid } });
  const mark = events.for(slug).length;
  await owner.api.delete(`/room/${slug}/participant/${participantOf(room, b.user.uuid).id}`);
  const revoked = events.since(slug, mark)[0] as { type: string; userIds: number[] };
  t.is(revoked.type, 'room.access_revoked');
  t.deepEqual(revoked.userIds, [bRow!.id]);
  t.not(revoked.userIds[0], ownerRow!.id);
});

test('a removed participant loses access to a private room until it joins again with the passcode, in a freed seat', async (t) => {
  const { owner, room, slug } = await userWithRoom(ctx.server, { is_public: false });
  const [b, c] = [await ctx.server.newUser(), await ctx.server.newUser()];
  await b.api.post(`/room/${slug}/participant`, { passcode: room.passcode });
  const full = (await c.api.post(`/room/${slug}/participant`, { passcode: room.passcode })).body.data;
  const pb = participantOf(full, b.user.uuid);
  t.is(pb.position, 2);

  t.is((await owner.api.delete(`/room/${slug}/participant/${pb.id}`)).status, 204);
  const after = await b.api.get(`/room/${slug}`);
  t.is(after.status, 403);
  t.false(after.text.includes(room.passcode));
  // No longer in the private room: a 403 like any stranger's, which says nothing of which ids are there.
  t.is((await b.api.patch(`/room/${slug}/participant/${pb.id}`, { username: 'x' })).status, 403);
  t.is((await b.api.post(`/room/${slug}/participant`)).status, 403, 'no way back without the passcode');

  const back = await b.api.post(`/room/${slug}/participant`, { passcode: room.passcode });
  t.is(back.status, 200);
  const seat = participantOf(back.body.data, b.user.uuid);
  t.is(seat.position, 2, 'the freed seat is taken again');
  t.not(seat.id, pb.id, 'a new participant record');
  t.not(seat.color, participantOf(back.body.data, c.user.uuid).color);
});

test('the owner may leave: it still owns the room, sees the passcode, and rejoins without it', async (t) => {
  const { owner, room, slug } = await userWithRoom(ctx.server, { is_public: false });
  const b = await ctx.server.newUser();
  await b.api.post(`/room/${slug}/participant`, { passcode: room.passcode });
  const mine = room.participants[0];

  t.is((await owner.api.delete(`/room/${slug}/participant/${mine.id}`)).status, 204);
  const view = await owner.api.get(`/room/${slug}`);
  t.is(view.status, 200);
  t.is(view.body.data.passcode, room.passcode);
  t.is(view.body.data.user.uuid, owner.user.uuid);
  t.deepEqual(
    view.body.data.participants.map((p: P) => p.user.uuid),
    [b.user.uuid],
  );
  t.true(
    (await owner.api.get('/room')).body.data.some((r: { slug: string }) => r.slug === slug),
    'still listed: the owner created it',
  );
  const pb = participantOf(view.body.data, b.user.uuid);
  t.is((await owner.api.patch(`/room/${slug}/participant/${pb.id}`, { color: '#000000' })).status, 200, 'still manages participants');
  t.is((await owner.api.patch(`/room/${slug}`, { name: 'Still mine' })).status, 200);

  const back = await owner.api.post(`/room/${slug}/participant`);
  t.is(back.status, 200);
  t.is(participantOf(back.body.data, owner.user.uuid).position, 1);
});

test('authorizeRoomConnection (Socket.IO auth): participants only, whatever the passcode', async (t) => {
  const { authorizeRoomConnection } = await import('../../src/rooms/access');
  const { User } = (await import('../../src/db')).db().models;
  const { owner, room, slug } = await userWithRoom(ctx.server, { is_public: false });
  const pub = await userWithRoom(ctx.server, { is_public: true });
  const [b, stranger] = [await ctx.server.newUser(), await ctx.server.newUser()];
  await b.api.post(`/room/${slug}/participant`, { passcode: room.passcode });
  const row = async (uuid: string) => (await User.findOne({ where: { uuid } }))!;
  const [ownerRow, bRow, strangerRow] = [await row(owner.user.uuid), await row(b.user.uuid), await row(stranger.user.uuid)];

  t.is((await authorizeRoomConnection(slug, ownerRow.id)).slug, slug);
  t.is((await authorizeRoomConnection(slug, bRow.id)).slug, slug);
  const code = async (p: Promise<unknown>) => ((await t.throwsAsync(p)) as unknown as { code: string }).code;
  t.is(await code(authorizeRoomConnection(slug, strangerRow.id)), 'forbidden', 'join first (a passcode is not an input: joining checks it)');
  t.is(await code(authorizeRoomConnection(pub.slug, strangerRow.id)), 'forbidden', 'public rooms too: join first');
  t.is(await code(authorizeRoomConnection('nosuchroom123456', bRow.id)), 'not_found');
  t.is(await code(authorizeRoomConnection('../etc', bRow.id)), 'not_found');

  const current = (await owner.api.get(`/room/${slug}`)).body.data;
  t.is((await owner.api.delete(`/room/${slug}/participant/${participantOf(current, b.user.uuid).id}`)).status, 204);
  t.is(await code(authorizeRoomConnection(slug, bRow.id)), 'forbidden', 'removed: out');
  await owner.api.delete(`/room/${slug}`);
  t.is(await code(authorizeRoomConnection(slug, ownerRow.id)), 'not_found', 'deleted rooms are gone');
});

test('policies and loaders other features use: findParticipant, isParticipant, canAccessRoom', async (t) => {
  const { findParticipant, readRoomBySlug: loadRoomBySlug } = await import('../../src/rooms/store/read');
  const { canAccessRoom, isParticipant } = await import('../../src/rooms/policy');
  const { User } = (await import('../../src/db')).db().models;
  const { owner, room, slug } = await userWithRoom(ctx.server, { is_public: false });
  const [b, stranger] = [await ctx.server.newUser(), await ctx.server.newUser()];
  await b.api.post(`/room/${slug}/participant`, { passcode: room.passcode });
  const [ownerRow, bRow, strangerRow] = await Promise.all([owner, b, stranger].map(async (u) => (await User.findOne({ where: { uuid: u.user.uuid } }))!));
  const loaded = (await loadRoomBySlug(slug))!;
  t.true(isParticipant(loaded, ownerRow.id));
  t.true(isParticipant(loaded, bRow.id));
  t.false(isParticipant(loaded, strangerRow.id));
  t.true(canAccessRoom(loaded, bRow));
  t.false(canAccessRoom(loaded, strangerRow));
  t.false(canAccessRoom(loaded, strangerRow, 'wrong'));
  t.true(canAccessRoom(loaded, strangerRow, room.passcode));
  const p = await findParticipant(loaded.id, bRow.id);
  t.is(p?.user?.uuid, b.user.uuid);
  t.is(await findParticipant(loaded.id, strangerRow.id), null);
});
