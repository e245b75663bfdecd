import test from 'ava';
import { useServer } from '../helpers/server';
import { request } from '../helpers/http';
import { recordEvents } from '../fixtures/events';
import { fileForm, GIF, PNG, SLUG, TIMESTAMP, userWithRoom } from '../rooms/support';

const ctx = useServer(test);
const events = recordEvents();

test('POST /room creates a public room owned by the caller, who is its first participant', async (t) => {
  const owner = await ctx.server.newUser();
  const res = await owner.api.post('/room', { name: 'Dungeon', is_public: true });
  t.is(res.status, 201);
  t.is(res.body.type, 'room');
  const room = res.body.data;
  t.regex(room.slug, SLUG);
  t.is(room.name, 'Dungeon');
  t.true(room.is_public);
  t.is(room.passcode, null);
  t.is(room.bg_file_path, null);
  t.regex(room.created_at, TIMESTAMP);
  t.regex(room.updated_at, TIMESTAMP);
  t.is(room.deleted_at, null);
  t.is(room.user.uuid, owner.user.uuid);
  t.false('id' in room, 'internal ids never leave the server');
  t.false('user_id' in room);
  t.is(room.participants.length, 1);
  const [me] = room.participants;
  t.is(typeof me.id, 'number');
  t.is(me.position, 1);
  t.regex(me.color, /^#[0-9a-f]{6}$/);
  t.is(me.username, owner.user.name);
  t.is(me.user.uuid, owner.user.uuid);
  t.regex(me.created_at, TIMESTAMP);
  t.regex(me.updated_at, TIMESTAMP);
  t.deepEqual(
    events.for(room.slug).map((e) => e.type),
    ['room.updated'],
  );
});

test('an empty body makes a public room with a generated name, also as the form-encoded empty POST of SDKs', async (t) => {
  const owner = await ctx.server.newUser();
  const empty = await owner.api.post('/room', {});
  t.is(empty.status, 201);
  t.true(empty.body.data.is_public);
  t.true(empty.body.data.name.length > 0);
  t.is(empty.body.data.passcode, null);
  const sdk = await request(owner.api.url('/room'), 'POST', {
    key: owner.key,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '0' },
  });
  t.is(sdk.status, 201);
  t.true(sdk.body.data.is_public);
  t.not(sdk.body.data.slug, empty.body.data.slug);
});

test('a private room without a passcode gets a generated, URL-safe one of at least 6 characters', async (t) => {
  const { room } = await userWithRoom(ctx.server, { name: 'Secret', is_public: false });
  t.false(room.is_public);
  t.is(typeof room.passcode, 'string');
  t.true(room.passcode.length >= 6);
  t.is(encodeURIComponent(room.passcode), room.passcode);
  t.notRegex(room.passcode, /[01oliIO]/, 'no look-alike characters');
  const other = await userWithRoom(ctx.server, { is_public: false });
  t.not(other.room.passcode, room.passcode);
});

test('a private room keeps the passcode its owner chose', async (t) => {
  const { room } = await userWithRoom(ctx.server, { name: 'Mine', is_public: false, passcode: 'open-sesame' });
  t.is(room.passcode, 'open-sesame');
});

test('slugs are unique and unguessable', async (t) => {
  const owner = await ctx.server.newUser();
  const slugs = new Set<string>();
  for (let i = 0; i < 10; i++) slugs.add((await owner.api.post('/room', {})).body.data.slug);
  t.is(slugs.size, 10);
  for (const s of slugs) t.regex(s, SLUG);
});

test('bad room fields are all listed in one 400; unknown fields are ignored', async (t) => {
  const owner = await ctx.server.newUser();
  const bad = await owner.api.post('/room', { name: 5, is_public: 'yes', passcode: 'a b' });
  t.is(bad.status, 400);
  t.is(bad.body.data.code, 'validation_error');
  t.deepEqual(bad.body.data.details.map((d: { path: string }) => d.path).sort(), ['is_public', 'name', 'passcode']);
  const short = await owner.api.post('/room', { is_public: false, passcode: 'abc' });
  t.is(short.status, 400);
  t.is(short.body.data.details[0].path, 'passcode');
  const blank = await owner.api.post('/room', { name: '   ' });
  t.is(blank.status, 400);
  t.is(blank.body.data.details[0].path, 'name');
  const long = await owner.api.post('/room', { name: 'x'.repeat(256) });
  t.is(long.status, 400);
  const extra = await owner.api.post('/room', { name: 'ok', theme: 'whatever', room: { nested: true } });
  t.is(extra.status, 201);
  const array = await owner.api.post('/room', [1, 2]);
  t.is(array.status, 400);
});

test('GET /room/{slug}: a public room answers anyone with a key, without its passcode', async (t) => {
  const { owner, slug } = await userWithRoom(ctx.server, { name: 'Open', is_public: true, passcode: 'kept-for-later' });
  const stranger = await ctx.server.newUser();
  const res = await stranger.api.get(`/room/${slug}`);
  t.is(res.status, 200);
  t.is(res.body.type, 'room');
  t.is(res.body.data.slug, slug);
  t.is(res.body.data.passcode, null, 'only the owner and participants see a passcode');
  t.is(res.body.data.participants.length, 1);
  t.is(res.body.data.user.uuid, owner.user.uuid);
  t.is((await owner.api.get(`/room/${slug}`)).body.data.passcode, 'kept-for-later');
});

test('GET /room/{slug}: a private room needs its passcode, unless you own it or take part', async (t) => {
  const { owner, room, slug } = await userWithRoom(ctx.server, { is_public: false });
  const [stranger, member] = await Promise.all([ctx.server.newUser(), ctx.server.newUser()]);
  t.is((await member.api.post(`/room/${slug}/participant`, { passcode: room.passcode })).status, 200);

  const none = await stranger.api.get(`/room/${slug}`);
  t.is(none.status, 403);
  t.is(none.body.data.code, 'forbidden');
  t.false(none.text.includes(room.passcode));
  const wrong = await stranger.api.get(`/room/${slug}?passcode=nope1234`);
  t.is(wrong.status, 403);
  t.is(wrong.body.data.code, 'forbidden');
  const right = await stranger.api.get(`/room/${slug}?passcode=${room.passcode}`);
  t.is(right.status, 200);
  t.is(right.body.data.passcode, null, 'a visitor who is not a participant is not handed the passcode');

  const asOwner = await owner.api.get(`/room/${slug}`);
  t.is(asOwner.status, 200);
  t.is(asOwner.body.data.passcode, room.passcode);
  const asMember = await member.api.get(`/room/${slug}`);
  t.is(asMember.status, 200);
  t.is(asMember.body.data.passcode, room.passcode);
  t.is(asMember.body.data.participants.length, 2);
});

test('GET /room/{slug} of a room that does not exist is a 404, whatever the slug looks like', async (t) => {
  const { api } = await ctx.server.newUser();
  for (const slug of ['nosuchroom123456', 'x', 'bad%20slug', 'a'.repeat(300), '%E2%9C%93']) {
    const res = await api.get(`/room/${slug}`);
    t.is(res.status, 404, slug);
    t.is(res.body.data.code, 'not_found');
  }
});

test('PATCH /room/{slug}: the owner renames; a participant or a stranger gets 403', async (t) => {
  const { owner, slug } = await userWithRoom(ctx.server, { name: 'Before' });
  const [member, stranger] = await Promise.all([ctx.server.newUser(), ctx.server.newUser()]);
  await member.api.post(`/room/${slug}/participant`);
  const mark = events.for(slug).length;

  const byMember = await member.api.patch(`/room/${slug}`, { name: 'Hijack' });
  t.is(byMember.status, 403);
  t.is(byMember.body.data.code, 'forbidden');
  t.is((await stranger.api.patch(`/room/${slug}`, { name: 'Hijack' })).status, 403);
  t.deepEqual(events.since(slug, mark), [], 'a refused change announces nothing');

  const res = await owner.api.patch(`/room/${slug}`, { name: 'After' });
  t.is(res.status, 200);
  t.is(res.body.type, 'room');
  t.is(res.body.data.name, 'After');
  t.is(res.body.data.participants.length, 2, 'a rename keeps everyone');
  t.true(res.body.data.updated_at >= res.body.data.created_at);
  t.deepEqual(
    events.since(slug, mark).map((e) => e.type),
    ['room.updated'],
  );
  t.is((await member.api.get(`/room/${slug}`)).body.data.name, 'After');

  t.is((await owner.api.patch('/room/nosuchroom123456', { name: 'x' })).status, 404);
  const bad = await owner.api.patch(`/room/${slug}`, { name: '', is_public: 1, passcode: 12 });
  t.is(bad.status, 400);
  t.deepEqual(bad.body.data.details.map((d: { path: string }) => d.path).sort(), ['is_public', 'name', 'passcode']);
});

test('PATCH that changes nothing announces nothing', async (t) => {
  const { owner, slug } = await userWithRoom(ctx.server, { name: 'Same' });
  const mark = events.for(slug).length;
  const res = await owner.api.patch(`/room/${slug}`, { name: 'Same' });
  t.is(res.status, 200);
  t.deepEqual(events.since(slug, mark), []);
});

test("changing a private room's passcode removes everyone but the owner and revokes their access", async (t) => {
  const { owner, room, slug } = await userWithRoom(ctx.server, { is_public: false, passcode: 'first-code' });
  const [a, b] = await Promise.all([ctx.server.newUser(), ctx.server.newUser()]);
  t.is((await a.api.post(`/room/${slug}/participant`, { passcode: 'first-code' })).status, 200);
  t.is((await b.api.post(`/room/${slug}/participant`, { passcode: 'first-code' })).status, 200);
  const mark = events.for(slug).length;

  const res = await owner.api.patch(`/room/${slug}`, { passcode: 'second-code' });
  t.is(res.status, 200);
  t.is(res.body.data.passcode, 'second-code');
  t.deepEqual(
    res.body.data.participants.map((p: { user: { uuid: string } }) => p.user.uuid),
    [owner.user.uuid],
  );
  const published = events.since(slug, mark);
  t.deepEqual(
    published.map((e) => e.type),
    ['room.access_revoked', 'room.updated'],
  );
  t.like(published[0], { type: 'room.access_revoked', allButOwner: true });

  t.is((await a.api.get(`/room/${slug}`)).status, 403, 'a former participant is out');
  t.is((await a.api.get(`/room/${slug}?passcode=first-code`)).status, 403, 'the old passcode opens nothing');
  t.is((await a.api.post(`/room/${slug}/participant`, { passcode: 'first-code' })).status, 403);
  const back = await a.api.post(`/room/${slug}/participant`, { passcode: 'second-code' });
  t.is(back.status, 200);
  t.is(back.body.data.passcode, 'second-code');
  t.is(room.passcode, 'first-code');
});

test('a private room asked for no passcode gets a fresh generated one (rotation)', async (t) => {
  const { owner, room, slug } = await userWithRoom(ctx.server, { is_public: false });
  const res = await owner.api.patch(`/room/${slug}`, { passcode: null });
  t.is(res.status, 200);
  t.is(typeof res.body.data.passcode, 'string');
  t.true(res.body.data.passcode.length >= 6);
  t.not(res.body.data.passcode, room.passcode);
});

test('making a public room private generates a passcode and removes everyone but the owner', async (t) => {
  const { owner, slug } = await userWithRoom(ctx.server, { is_public: true });
  const member = await ctx.server.newUser();
  await member.api.post(`/room/${slug}/participant`);
  const mark = events.for(slug).length;
  const res = await owner.api.patch(`/room/${slug}`, { is_public: false });
  t.is(res.status, 200);
  t.false(res.body.data.is_public);
  t.true(res.body.data.passcode.length >= 6);
  t.is(res.body.data.participants.length, 1);
  t.like(events.since(slug, mark)[0], { type: 'room.access_revoked', allButOwner: true });
  t.is((await member.api.get(`/room/${slug}`)).status, 403);
  t.is((await member.api.post(`/room/${slug}/participant`, { passcode: res.body.data.passcode })).status, 200);
});

test('making a private room public revokes nothing and opens it to everyone', async (t) => {
  const { owner, room, slug } = await userWithRoom(ctx.server, { is_public: false });
  const member = await ctx.server.newUser();
  await member.api.post(`/room/${slug}/participant`, { passcode: room.passcode });
  const mark = events.for(slug).length;
  const res = await owner.api.patch(`/room/${slug}`, { is_public: true });
  t.is(res.status, 200);
  t.true(res.body.data.is_public);
  t.is(res.body.data.participants.length, 2);
  t.deepEqual(
    events.since(slug, mark).map((e) => e.type),
    ['room.updated'],
  );
  const stranger = await ctx.server.newUser();
  t.is((await stranger.api.get(`/room/${slug}`)).status, 200);
});

test('DELETE /room/{slug}: owner only; the room then disappears from lookups and lists, but rolls can still embed it', async (t) => {
  const { owner, slug } = await userWithRoom(ctx.server, { name: 'Doomed' });
  const member = await ctx.server.newUser();
  await member.api.post(`/room/${slug}/participant`);

  const byMember = await member.api.delete(`/room/${slug}`);
  t.is(byMember.status, 403);
  t.is(byMember.body.data.code, 'forbidden');
  const mark = events.for(slug).length;
  const res = await owner.api.delete(`/room/${slug}`);
  t.is(res.status, 204);
  t.is(res.text, '');
  t.deepEqual(
    events.since(slug, mark).map((e) => e.type),
    ['room.deleted'],
  );

  t.is((await owner.api.get(`/room/${slug}`)).status, 404);
  t.is((await member.api.get(`/room/${slug}`)).status, 404);
  t.is((await owner.api.patch(`/room/${slug}`, { name: 'x' })).status, 404);
  t.is((await owner.api.delete(`/room/${slug}`)).status, 404);
  t.is((await ctx.server.newUser().then((u) => u.api.post(`/room/${slug}/participant`))).status, 404);
  for (const who of [owner, member]) {
    const list = await who.api.get('/room');
    t.false(list.body.data.some((r: { slug: string }) => r.slug === slug));
  }

  const { readRoomBySlug: loadRoomBySlug } = await import('../../src/rooms/store/read');
  const { presentRoomInRoll } = await import('../../src/rooms/present');
  t.is(await loadRoomBySlug(slug), null);
  const deleted = await loadRoomBySlug(slug, { includeDeleted: true });
  t.truthy(deleted);
  const everyone = new Set(deleted!.participants!.map((p) => p.userId));
  const embedded = presentRoomInRoll(deleted!, null, everyone);
  t.regex(embedded.deleted_at ?? '', TIMESTAMP);
  t.is(embedded.name, 'Doomed');
  t.is(embedded.participants.length, 2);
  t.is(
    presentRoomInRoll(deleted!, null, new Set([deleted!.participants![0]!.userId])).participants.length,
    1,
    'a roll lists only the participants it involves',
  );
  t.is(embedded.passcode, null);

  // The plain-SQL reader (answers, events, welcomes) finds the same rooms and presents them alike.
  const { readRoomBySlug } = await import('../../src/rooms/store/read');
  t.is(await readRoomBySlug(slug), null);
  const read = await readRoomBySlug(slug, { includeDeleted: true });
  t.deepEqual(presentRoomInRoll(read!, null, everyone), embedded);
});

test('a room read by the rooms store presents to each viewer exactly as REST answers them: owner, participant, stranger', async (t) => {
  // One loader family (src/rooms/store/read.ts) serves REST, the fan-out and the socket welcomes.
  const { readRoomBySlug } = await import('../../src/rooms/store/read');
  const { presentRoom } = await import('../../src/rooms/present');
  const { owner, room, slug } = await userWithRoom(ctx.server, { is_public: false, name: 'Alike' });
  const members = [await ctx.server.newUser(), await ctx.server.newUser(), await ctx.server.newUser()];
  for (const m of members) t.is((await m.api.post(`/room/${slug}/participant`, { passcode: room.passcode })).status, 200);
  const record = (await readRoomBySlug(slug))!;
  t.is(record.participants!.length, 4);
  t.deepEqual(presentRoom(record, record.userId), (await owner.api.get(`/room/${slug}`)).body.data, 'to the owner');
  const seat = record.participants!.find((p) => p.user?.uuid === members[1]!.user.uuid)!;
  t.deepEqual(presentRoom(record, seat.userId), (await members[1]!.api.get(`/room/${slug}`)).body.data, 'to a participant');
  t.is(presentRoom(record, -1).passcode, null, 'a stranger never gets the passcode');
  t.is((await owner.api.get(`/room/${slug}`)).body.data.passcode, room.passcode);
  t.is(await readRoomBySlug('no-such-room-here'), null);
  t.is(await readRoomBySlug('../../etc'), null);
});

test("GET /room lists the rooms the user created or joined, newest first, and nobody else's", async (t) => {
  const [me, other] = await Promise.all([ctx.server.newUser(), ctx.server.newUser()]);
  const mine = (await me.api.post('/room', { name: 'mine' })).body.data.slug;
  const theirs = (await other.api.post('/room', { name: 'theirs' })).body.data.slug;
  const joined = (await other.api.post('/room', { name: 'joined', is_public: false })).body.data;
  const notJoined = (await other.api.post('/room', { name: 'not joined' })).body.data.slug;
  await me.api.post(`/room/${joined.slug}/participant`, { passcode: joined.passcode });

  const res = await me.api.get('/room');
  t.is(res.status, 200);
  t.is(res.body.type, 'room[]');
  t.deepEqual(
    res.body.data.map((r: { slug: string }) => r.slug),
    [joined.slug, mine],
  );
  t.is(res.body.data[0].passcode, joined.passcode, 'a participant sees the passcode in lists too');
  t.is(res.body.meta.total, 2);
  t.is(res.body.links.next, null);
  t.false(res.body.data.some((r: { slug: string }) => r.slug === theirs || r.slug === notJoined));
});

test('GET /room pages Laravel-style, and links.next can be fetched verbatim', async (t) => {
  const me = await ctx.server.newUser();
  const created: string[] = [];
  for (let i = 0; i < 5; i++) created.push((await me.api.post('/room', { name: `r${i}` })).body.data.slug);
  const first = await me.api.get('/room?per_page=2');
  t.is(first.status, 200);
  t.is(first.body.data.length, 2);
  t.like(first.body.meta, { current_page: 1, per_page: 2, total: 5, last_page: 3, from: 1, to: 2 });
  t.is(first.body.links.prev, null);
  t.truthy(first.body.links.next);
  const seen: string[] = first.body.data.map((r: { slug: string }) => r.slug);
  let next: string | null = first.body.links.next;
  while (next) {
    const pageRes = await me.api.get(next);
    t.is(pageRes.status, 200);
    seen.push(...pageRes.body.data.map((r: { slug: string }) => r.slug));
    next = pageRes.body.links.next;
  }
  t.deepEqual(seen, [...created].reverse());
  const beyond = await me.api.get('/room?page=9');
  t.is(beyond.status, 200);
  t.deepEqual(beyond.body.data, []);
  const bad = await me.api.get('/room?page=0&per_page=1000');
  t.is(bad.status, 400);
  t.deepEqual(bad.body.data.details.map((d: { path: string }) => d.path).sort(), ['query.page', 'query.per_page']);
});

test('the owner uploads a background; it is served back without a key from bg_file_path', async (t) => {
  const { owner, slug } = await userWithRoom(ctx.server, { is_public: false });
  const mark = events.for(slug).length;
  const res = await owner.api.post(`/room/${slug}`, undefined, { raw: fileForm(PNG, 'bg_file_path', 'anything.txt', 'text/plain') });
  t.is(res.status, 200, res.text);
  t.is(res.body.type, 'room');
  const url: string = res.body.data.bg_file_path;
  t.regex(url, new RegExp(`^http://127\\.0\\.0\\.1:\\d+/api/1\\.0/room/${slug}/background/[0-9a-f]{64}\\.png$`));
  t.deepEqual(
    events.since(slug, mark).map((e) => e.type),
    ['room.updated'],
  );

  const image = await fetch(url);
  t.is(image.status, 200);
  t.is(image.headers.get('content-type'), 'image/png');
  t.is(image.headers.get('x-content-type-options'), 'nosniff');
  t.deepEqual(Buffer.from(await image.arrayBuffer()), PNG);

  // A new image gets a new URL; the old one stops working.
  const gif = await owner.api.post(`/room/${slug}`, undefined, { raw: fileForm(GIF, 'bg_file_path', 'x.png', 'image/png') });
  t.is(gif.status, 200);
  t.regex(gif.body.data.bg_file_path, /\.gif$/);
  t.is((await fetch(url)).status, 404);
  t.is((await fetch(gif.body.data.bg_file_path)).headers.get('content-type'), 'image/gif');

  // PATCH with bg_file_path null removes it.
  const cleared = await owner.api.patch(`/room/${slug}`, { bg_file_path: null });
  t.is(cleared.status, 200);
  t.is(cleared.body.data.bg_file_path, null);
  t.is((await fetch(gif.body.data.bg_file_path)).status, 404);
  const setUrl = await owner.api.patch(`/room/${slug}`, { bg_file_path: 'http://evil.example/x.png' });
  t.is(setUrl.status, 422);
});

test('a background must really be an image, not too large, sent as multipart by the owner', async (t) => {
  const { owner, slug } = await userWithRoom(ctx.server);
  const member = await ctx.server.newUser();
  await member.api.post(`/room/${slug}/participant`);

  const byMember = await member.api.post(`/room/${slug}`, undefined, { raw: fileForm(PNG) });
  t.is(byMember.status, 403);
  const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
  const disguised = await owner.api.post(`/room/${slug}`, undefined, { raw: fileForm(svg, 'bg_file_path', 'bg.png', 'image/png') });
  t.is(disguised.status, 415);
  t.is(disguised.body.data.code, 'unsupported_media_type');
  const tooBig = Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)]);
  const big = await owner.api.post(`/room/${slug}`, undefined, { raw: fileForm(tooBig) });
  t.is(big.status, 413);
  t.is(big.body.data.code, 'payload_too_large');
  const json = await owner.api.post(`/room/${slug}`, { bg_file_path: 'x' });
  t.is(json.status, 415);
  const noFile = new FormData();
  noFile.append('name', 'x');
  const missing = await owner.api.post(`/room/${slug}`, undefined, { raw: noFile });
  t.is(missing.status, 400);
  t.is(missing.body.data.details[0].path, 'bg_file_path');
  const wrongField = await owner.api.post(`/room/${slug}`, undefined, { raw: fileForm(PNG, 'image') });
  t.is(wrongField.status, 400);
  // A multipart header without a boundary (busboy throws before multer sees the body; found by test/hostile).
  const noBoundary = await owner.api.post(`/room/${slug}`, undefined, { raw: '--x\r\n\r\n', headers: { 'content-type': 'multipart/form-data' } });
  t.is(noBoundary.status, 400);
  t.is(noBoundary.body.data.code, 'invalid_upload');
  t.is((await owner.api.post('/room/nosuchroom123456', undefined, { raw: fileForm(PNG) })).status, 404);
  t.is((await owner.api.get(`/room/${slug}`)).body.data.bg_file_path, null, 'nothing was stored');
});

test('a deleted room no longer serves its background', async (t) => {
  const { owner, slug } = await userWithRoom(ctx.server);
  const res = await owner.api.post(`/room/${slug}`, undefined, { raw: fileForm(PNG) });
  const url = res.body.data.bg_file_path;
  t.is((await fetch(url)).status, 200);
  t.is((await owner.api.delete(`/room/${slug}`)).status, 204);
  t.is((await fetch(url)).status, 404);
  t.is((await fetch(url.replace(/[0-9a-f]{64}/, 'a'.repeat(64)))).status, 404);
});

test('no room route swallows /room/{slug}/roll, which belongs to the rolls router', async (t) => {
  const { owner, slug } = await userWithRoom(ctx.server);
  const res = await owner.api.get(`/room/${slug}/roll`);
  // Whatever the rolls router answers (it may not exist yet), it is not one of the room handlers.
  t.not(res.body?.type, 'room');
  const patch = await owner.api.patch(`/room/${slug}/roll`, { dice: { is_hidden: true } });
  t.not(patch.body?.type, 'room');
});
