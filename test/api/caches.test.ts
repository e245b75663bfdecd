import test from 'ava';
import { useServer } from '../helpers/server';
import { manifest, postTheme } from '../fixtures/themes';

/**
 * The in-process caches of the hot paths (issue 23; docs/api.md, "Caches and bounded staleness"), in
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
  t.is((await player.api.get(`/roll/${ownersRoll}`)).status, 404, 'the room\'s rolls are out of sight');
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
