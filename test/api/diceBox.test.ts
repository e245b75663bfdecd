import test from 'ava';
import { useServer } from '../helpers/server';
import { manifest, postTheme, themeId } from '../fixtures/themes';
import { recordEvents, userIdOf } from '../fixtures/events';
import { BUILT_IN_THEME_IDS, DEFAULT_THEME_ID } from '../../src/themes/defaultTheme';
import { findRollableThemeVersions } from '../../src/themes/rollable';

/** The theme version `userId` may roll with (what POST /roll uses), or null. */
const rollable = async (userId: number, slug: string) => (await findRollableThemeVersions(userId, [slug])).get(slug) ?? null;
import { db } from '../../src/db';

const ctx = useServer(test);
const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((t) => t.id);

/** `owner` publishes a theme and `taker` accepts a link to it: the theme is then in both boxes. */
async function shared(
  owner: Awaited<ReturnType<typeof ctx.server.newUser>>,
  taker: Awaited<ReturnType<typeof ctx.server.newUser>>,
  overrides: Record<string, unknown> = {},
) {
  const m = manifest(overrides);
  const created = await postTheme(owner.api, m);
  if (created.status !== 201) throw new Error(created.text);
  const link = await owner.api.post('/share-request', { theme: m.id });
  const accepted = await taker.api.post(`/share-request/code/${link.body.data.code}/accept`);
  if (accepted.status !== 200) throw new Error(accepted.text);
  return m;
}

test('a new box holds the built-in themes, which cannot be removed', async (t) => {
  const { api } = await ctx.server.newUser();
  const list = await api.get('/dice-box');
  t.is(list.status, 200);
  t.is(list.body.type, 'theme[]');
  t.deepEqual(ids(list), [...BUILT_IN_THEME_IDS].sort());
  t.is(list.body.meta.total, 4);
  const one = await api.get(`/dice-box/${DEFAULT_THEME_ID}`);
  t.is(one.status, 200);
  t.is(one.body.type, 'theme');
  t.is(one.body.data.id, DEFAULT_THEME_ID);
  const upgraded = await api.patch(`/dice-box/${DEFAULT_THEME_ID}`);
  t.is(upgraded.status, 200);
  t.is(upgraded.body.data.version, '1.0.0');
  const del = await api.delete(`/dice-box/${DEFAULT_THEME_ID}`);
  t.is(del.status, 403);
  t.is(del.body.data.code, 'forbidden');
  t.deepEqual(ids(await api.get('/dice-box')), [...BUILT_IN_THEME_IDS].sort());
});

test('your own themes are in your box from creation and follow your new versions', async (t) => {
  const me = await ctx.server.newUser();
  const myId = await userIdOf(me.user.uuid);
  const recorder = recordEvents();
  const m = manifest();
  const v1 = await postTheme(me.api, m);
  t.is(v1.status, 201);
  t.deepEqual(ids(await me.api.get('/dice-box')).sort(), [...BUILT_IN_THEME_IDS, m.id as string].sort());
  t.is((await me.api.get(`/dice-box/${m.id}`)).body.data.version, '1.0.0');
  t.is((await postTheme(me.api, { ...m, version: '1.1.0' })).status, 201);
  t.is((await me.api.get(`/dice-box/${m.id}`)).body.data.version, '1.1.0');
  const mine = recorder.events.filter((e) => e.type === 'dicebox.created' && e.userId === myId);
  recorder.stop();
  t.is(mine.length, 2);
  const themeIds = await Promise.all(mine.map(async (e) => (await db().models.Theme.findByPk((e as { themeId: number }).themeId))!.version));
  t.deepEqual(themeIds, ['1.0.0', '1.1.0']);
});

test('filter matches the id or the name, case-insensitively; ids picks themes; both page', async (t) => {
  const me = await ctx.server.newUser();
  const a = manifest({ id: themeId('ember'), name: 'Dragon Fire' });
  const b = manifest({ id: themeId('frost'), name: 'Ice Crystal' });
  const c = manifest({ id: themeId('moss'), name: 'Forest FIRE' });
  for (const m of [a, b, c]) t.is((await postTheme(me.api, m)).status, 201);
  t.deepEqual(ids(await me.api.get('/dice-box?filter=fire')).sort(), [a.id, c.id].sort());
  t.deepEqual(ids(await me.api.get('/dice-box?filter=FROST')), [b.id]);
  t.deepEqual(ids(await me.api.get('/dice-box?filter=stand')), ['dddice-standard', DEFAULT_THEME_ID]);
  t.deepEqual(ids(await me.api.get('/dice-box?filter=nothing-like-this')), []);
  t.deepEqual(ids(await me.api.get(`/dice-box?ids=${a.id},${b.id}`)).sort(), [a.id, b.id].sort());
  t.deepEqual(ids(await me.api.get(`/dice-box?ids=${a.id}, ${DEFAULT_THEME_ID},,unknown-theme`)).sort(), [a.id, DEFAULT_THEME_ID].sort());
  t.deepEqual(ids(await me.api.get(`/dice-box?ids=${a.id},${b.id}&filter=ice`)), [b.id]);
  t.deepEqual(ids(await me.api.get('/dice-box?filter=&ids=')).length, 7, 'empty parameters filter nothing');
  const page1 = await me.api.get('/dice-box?per_page=4');
  t.is(page1.body.data.length, 4);
  t.is(page1.body.meta.total, 7);
  const page2 = await me.api.get(page1.body.links.next);
  t.is(page2.body.data.length, 3);
  t.deepEqual([...ids(page1), ...ids(page2)], [a.id, b.id, c.id, ...BUILT_IN_THEME_IDS].sort());
  const filtered = await me.api.get('/dice-box?filter=fire&per_page=1');
  t.regex(filtered.body.links.next, /filter=fire/);
  t.is((await me.api.get('/dice-box?per_page=0')).status, 400);
  const tooMany = Array.from({ length: 101 }, (_, i) => `t${i}`).join(',');
  const res = await me.api.get(`/dice-box?ids=${tooMany}`);
  t.is(res.status, 400);
  t.deepEqual(
    res.body.data.details.map((d: { path: string }) => d.path),
    ['query.ids'],
  );
});

test('themes not in the box are 404s for GET, PATCH and DELETE', async (t) => {
  const me = await ctx.server.newUser();
  const other = await ctx.server.newUser();
  const m = manifest();
  t.is((await postTheme(other.api, m)).status, 201);
  for (const res of [
    await me.api.get(`/dice-box/${m.id}`),
    await me.api.patch(`/dice-box/${m.id}`),
    await me.api.delete(`/dice-box/${m.id}`),
    await me.api.get('/dice-box/no-such-theme'),
  ]) {
    t.is(res.status, 404);
    t.is(res.body.data.code, 'not_found');
  }
  t.is(await rollable(await userIdOf(me.user.uuid), m.id as string), null, 'not rollable either');
});

test('a shared theme stays at its version until PATCH upgrades it to the latest', async (t) => {
  const owner = await ctx.server.newUser();
  const taker = await ctx.server.newUser();
  const takerId = await userIdOf(taker.user.uuid);
  const m = await shared(owner, taker);
  t.is((await postTheme(owner.api, { ...m, version: '2.0.0', name: 'Second' })).status, 201);
  const pinned = await taker.api.get(`/dice-box/${m.id}`);
  t.is(pinned.body.data.version, '1.0.0');
  t.is((await rollable(takerId, m.id as string))!.version, '1.0.0', 'rolls use the pinned version');
  const recorder = recordEvents();
  const upgraded = await taker.api.patch(`/dice-box/${m.id}`);
  recorder.stop();
  t.is(upgraded.status, 200);
  t.is(upgraded.body.type, 'theme');
  t.is(upgraded.body.data.version, '2.0.0');
  t.is(upgraded.body.data.name, 'Second');
  t.is((await taker.api.get(`/dice-box/${m.id}`)).body.data.version, '2.0.0');
  t.is((await rollable(takerId, m.id as string))!.version, '2.0.0');
  const v2 = await db().models.Theme.findOne({ where: { slug: m.id as string, version: '2.0.0' } });
  t.true(recorder.events.some((e) => e.type === 'dicebox.created' && e.userId === takerId && e.themeId === v2!.id));
  // upgrading again changes nothing and announces nothing
  const again = recordEvents();
  t.is((await taker.api.patch(`/dice-box/${m.id}`)).body.data.version, '2.0.0');
  again.stop();
  t.false(again.events.some((e) => e.type === 'dicebox.created' && e.userId === takerId));
});

test('DELETE takes a theme out of the box (204, announced); it can no longer be rolled', async (t) => {
  const owner = await ctx.server.newUser();
  const taker = await ctx.server.newUser();
  const takerId = await userIdOf(taker.user.uuid);
  const m = await shared(owner, taker);
  const recorder = recordEvents();
  const del = await taker.api.delete(`/dice-box/${m.id}`);
  recorder.stop();
  t.is(del.status, 204);
  t.is(del.text, '');
  t.true(recorder.events.some((e) => e.type === 'dicebox.deleted' && e.userId === takerId && e.themeSlug === m.id));
  t.is((await taker.api.get(`/dice-box/${m.id}`)).status, 404);
  t.false(ids(await taker.api.get('/dice-box')).includes(m.id as string));
  t.false(ids(await taker.api.get('/theme')).includes(m.id as string), 'nor listed among the themes you see');
  t.is(await rollable(takerId, m.id as string), null);
  t.is((await taker.api.delete(`/dice-box/${m.id}`)).status, 404);
  // the owner's box is untouched
  t.is((await owner.api.get(`/dice-box/${m.id}`)).status, 200);
});

test('deleting a theme takes it out of every box that held it, announced to each holder', async (t) => {
  const owner = await ctx.server.newUser();
  const taker = await ctx.server.newUser();
  const [ownerId, takerId] = await Promise.all([userIdOf(owner.user.uuid), userIdOf(taker.user.uuid)]);
  const m = await shared(owner, taker);
  const recorder = recordEvents();
  t.is((await owner.api.delete(`/theme/${m.id}`)).status, 204);
  recorder.stop();
  for (const userId of [ownerId, takerId]) t.true(recorder.events.some((e) => e.type === 'dicebox.deleted' && e.userId === userId && e.themeSlug === m.id));
  t.is((await taker.api.get(`/dice-box/${m.id}`)).status, 404);
  t.deepEqual(ids(await taker.api.get('/dice-box')), [...BUILT_IN_THEME_IDS].sort());
});

test('findRollableThemeVersions (what rolls use) answers every theme of a roll at once: box versions and the built-in one', async (t) => {
  const owner = await ctx.server.newUser();
  const taker = await ctx.server.newUser();
  const takerId = await userIdOf(taker.user.uuid);
  const a = await shared(owner, taker);
  const b = manifest();
  t.is((await postTheme(owner.api, b)).status, 201);
  const found = await findRollableThemeVersions(takerId, [a.id as string, DEFAULT_THEME_ID, b.id as string, 'no-such-theme', a.id as string]);
  t.deepEqual([...found.keys()].sort(), [a.id, DEFAULT_THEME_ID].sort());
  t.is(found.get(DEFAULT_THEME_ID)!.version, '1.0.0');
  t.deepEqual((await findRollableThemeVersions(takerId, [])).size, 0);
});
