import test from 'ava';
import { useServer } from '../helpers/server';
import { manifest, postTheme } from '../fixtures/themes';

/**
 * The in-process caches of the hot paths (docs/api.md, "Caches and bounded staleness"), in
 * the embedded shape: one process, whose caches are the only ones. Every change that would make a
 * cached answer wrong takes effect on the very next request. The TTL is set to its maximum here, so
 * that only the pushed invalidation can explain a refusal: each check first warms the cache with the
 * answer that must then change.
 */
const ctx = useServer(test, { CACHE_TTL_MS: '10000' });

type User = Awaited<ReturnType<typeof ctx.server.newUser>>;

const D6 = { dice: [{ type: 'd6', theme: 'standard' }] };

async function roomWith(owner: User, player: User, isPublic = true) {
  const created = await owner.api.post('/room', { name: 'Cached', is_public: isPublic });
  const slug = created.body.data.slug as string;
  const joined = await player.api.post(`/room/${slug}/participant`, isPublic ? {} : { passcode: created.body.data.passcode });
  if (joined.status !== 200) throw new Error(`join failed: ${joined.status} ${joined.text}`);
  const seatId = (joined.body.data.participants as Array<{ id: number; user: { uuid: string } }>).find((p) => p.user.uuid === player.user.uuid)!.id;
  return { slug, seatId };
}

async function rolled(by: User, slug: string): Promise<string> {
  const res = await by.api.post('/roll', { ...D6, room: slug });
  if (res.status !== 201) throw new Error(`roll failed: ${res.status} ${res.text}`);
  return res.body.data.uuid as string;
}

test('a key deleted through DELETE /user/key/{prefix} is refused on its very next request', async (t) => {
  const me = await ctx.server.newUser();
  const second = (await me.api.post('/user/key', { name: 'cached' })).body.data as { key: string; prefix: string };
  const other = me.api.as(second.key);
  // Warm: the key is now in the cache, with its user.
  t.is((await other.get('/user')).status, 200);
  t.is((await other.post('/roll', D6)).status, 201);
  t.is((await me.api.delete(`/user/key/${second.prefix}`)).status, 204);
  t.is((await other.get('/user')).status, 401);
  t.is((await other.post('/roll', D6)).status, 401);
  t.is((await me.api.get('/user')).status, 200, 'the key kept still works');
});

test('a removed participant can no longer roll in the room nor read its rolls, at once', async (t) => {
  const owner = await ctx.server.newUser();
  const player = await ctx.server.newUser();
  const { slug, seatId } = await roomWith(owner, player);
  const ownersRoll = await rolled(owner, slug);
  // Warm: the room (by slug for POST /roll, by id for GET /roll/{uuid}) with the player in it.
  await rolled(player, slug);
  t.is((await player.api.get(`/roll/${ownersRoll}`)).status, 200);

  t.is((await owner.api.delete(`/room/${slug}/participant/${seatId}`)).status, 204);
  const refused = await player.api.post('/roll', { ...D6, room: slug });
  t.is(refused.status, 403);
  t.is(refused.body.data.code, 'forbidden');
  t.is((await player.api.get(`/roll/${ownersRoll}`)).status, 404, "the room's rolls are out of sight");
  t.is((await player.api.get(`/roll/${await rolled(owner, slug)}`)).status, 404);

  // And back in: joining again is seen at once too.
  t.is((await player.api.post(`/room/${slug}/participant`, {})).status, 200);
  t.is((await player.api.post('/roll', { ...D6, room: slug })).status, 201);
  t.is((await player.api.get(`/roll/${ownersRoll}`)).status, 200);
});

test('a passcode change (membership reset) and a deleted room take effect at once', async (t) => {
  const owner = await ctx.server.newUser();
  const player = await ctx.server.newUser();
  const { slug } = await roomWith(owner, player, false);
  await rolled(player, slug);
  t.is((await owner.api.patch(`/room/${slug}`, { passcode: 'a-brand-new-code' })).status, 200);
  t.is((await player.api.post('/roll', { ...D6, room: slug })).status, 403);
  await rolled(owner, slug);
  t.is((await owner.api.delete(`/room/${slug}`)).status, 204);
  const gone = await owner.api.post('/roll', { ...D6, room: slug });
  t.is(gone.status, 404);
  t.is(gone.body.data.code, 'not_found');
});

test('a renamed user and a renamed participant show under their new names on the next roll', async (t) => {
  const owner = await ctx.server.newUser();
  const player = await ctx.server.newUser();
  const { slug, seatId } = await roomWith(owner, player);
  await rolled(player, slug);
  t.is((await player.api.patch('/user', { name: 'Renamed Player' })).status, 200);
  t.is((await owner.api.patch(`/room/${slug}/participant/${seatId}`, { username: 'Seat Renamed' })).status, 200);
  const res = await player.api.post('/roll', { ...D6, room: slug });
  t.is(res.status, 201);
  t.is(res.body.data.user.name, 'Renamed Player');
  const seat = (res.body.data.room.participants as Array<{ id: number; username: string; user: { name: string } }>).find((p) => p.id === seatId)!;
  t.is(seat.username, 'Seat Renamed');
  t.is(seat.user.name, 'Renamed Player');
});

test('dice-box pins: a new version of a theme rolls at once; a theme taken out of the box cannot be rolled with at once', async (t) => {
  const me = await ctx.server.newUser();
  // Each version's d8 shows one face only: a roll says which version it was made with.
  const m = manifest({ available_dice: ['d8'], values: { d8: Array(8).fill('old') } });
  t.is((await postTheme(me.api, m)).status, 201);
  const d8 = { dice: [{ type: 'd8', theme: m.id }] };
  const first = await me.api.post('/roll', d8);
  t.is(first.status, 201, first.text);
  t.is(first.body.data.values[0].value_to_display, 'old');
  t.is((await postTheme(me.api, { ...m, version: '1.1.0', values: { d8: Array(8).fill('new') } })).status, 201);
  t.is((await me.api.post('/roll', d8)).body.data.values[0].value_to_display, 'new', 'the box pins the new version');
  t.is((await me.api.delete(`/dice-box/${m.id}`)).status, 204);
  const refused = await me.api.post('/roll', d8);
  t.is(refused.status, 422);
  t.is(refused.body.data.code, 'unknown_theme');
});

/**
 * The cached room holds every seat (who may roll, who sees the rolls) but reads a participant only
 * when a roll first involves it (rooms/rollRoomCache.ts). Each roll below involves seats the cached
 * room has not read yet: they must come out whole and right, in seat order, however many rolls ask at once.
 */
test('seats read on first use: rollers and whisper recipients the cached room had not read come out whole, in seat order', async (t) => {
  const owner = await ctx.server.newUser();
  const [a, b, c] = [await ctx.server.newUser(), await ctx.server.newUser(), await ctx.server.newUser()];
  const { slug, seatId: seatA } = await roomWith(owner, a);
  const joinedB = await b.api.post(`/room/${slug}/participant`, {});
  t.is(joinedB.status, 200, joinedB.text);
  t.is((await c.api.post(`/room/${slug}/participant`, {})).status, 200);
  const seats = joinedB.body.data.participants as Array<{ id: number; username: string; color: string; user: { uuid: string } }>;
  const seatB = seats.find((p) => p.user.uuid === b.user.uuid)!;
  // Warm: the room is cached, with only the owner's seat read.
  await rolled(owner, slug);

  // B rolls, whispering to A, who sits before B: both seats are read now.
  const whispered = await b.api.post('/roll', { ...D6, room: slug, whisper: [seatA] });
  t.is(whispered.status, 201, whispered.text);
  const embedded = whispered.body.data.room.participants as Array<{ id: number; username: string; color: string; user: { uuid: string } }>;
  t.deepEqual(
    embedded.map((p) => p.id),
    [seatA, seatB.id],
    'the roller and the recipient, in seat order',
  );
  t.is(embedded[1].username, seatB.username);
  t.is(embedded[1].color, seatB.color);
  t.is(embedded[1].user.uuid, b.user.uuid);
  t.is(embedded[0].user.uuid, a.user.uuid);
  // Read back through GET /roll/{uuid} (the room by id, another cache entry), by the recipient.
  const read = await a.api.get(`/roll/${whispered.body.data.uuid}`);
  t.is(read.status, 200);
  t.deepEqual(read.body.data.room.participants, whispered.body.data.room.participants);
  t.is((await c.api.get(`/roll/${whispered.body.data.uuid}`)).status, 404, 'C is in the room but not whispered to');

  // A seat that is not this room's is still refused: the seat list, not the participants read, decides.
  const elsewhere = await roomWith(c, owner);
  const refused = await b.api.post('/roll', { ...D6, room: slug, whisper: [elsewhere.seatId] });
  t.is(refused.status, 422);
  t.is(refused.body.data.code, 'unknown_participant');

  // C's seat, not read yet, asked for by ten rolls at once.
  const burst = await Promise.all(Array.from({ length: 10 }, () => c.api.post('/roll', { ...D6, room: slug })));
  for (const res of burst) {
    t.is(res.status, 201, res.text);
    t.deepEqual(
      (res.body.data.room.participants as Array<{ user: { uuid: string } }>).map((p) => p.user.uuid),
      [c.user.uuid],
    );
  }
});

test('a participant renaming itself (PATCH /user) shows on the next roll that involves it, though the room itself did not change', async (t) => {
  const owner = await ctx.server.newUser();
  const player = await ctx.server.newUser();
  const { slug, seatId } = await roomWith(owner, player);
  const before = await owner.api.post('/roll', { ...D6, room: slug, whisper: [seatId] });
  t.is(before.status, 201, before.text);
  t.not(before.body.data.room.participants.find((p: { id: number }) => p.id === seatId).user.name, 'Renamed Alone');
  t.is((await player.api.patch('/user', { name: 'Renamed Alone' })).status, 200);
  const after = await owner.api.post('/roll', { ...D6, room: slug, whisper: [seatId] });
  t.is(after.status, 201, after.text);
  t.is(after.body.data.room.participants.find((p: { id: number }) => p.id === seatId).user.name, 'Renamed Alone');
});
