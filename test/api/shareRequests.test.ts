import test from 'ava';
import { useServer } from '../helpers/server';
import { request } from '../helpers/http';
import { manifest, postTheme } from '../fixtures/themes';
import { recordEvents, userIdOf } from '../fixtures/events';
import { DEFAULT_THEME_ID } from '../../src/themes/defaultTheme';
import { findRollableThemeVersions } from '../../src/themes/rollable';

/** The theme version `userId` may roll with (what POST /roll uses), or null. */
const rollable = async (userId: number, slug: string) => (await findRollableThemeVersions(userId, [slug])).get(slug) ?? null;
import { db } from '../../src/db';

const ctx = useServer(test);
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
type User = Awaited<ReturnType<typeof ctx.server.newUser>>;

async function ownerWithTheme(overrides: Record<string, unknown> = {}) {
  const owner = await ctx.server.newUser();
  const m = manifest(overrides);
  const res = await postTheme(owner.api, m);
  if (res.status !== 201) throw new Error(res.text);
  return { owner, m, theme: res.body.data };
}

async function share(owner: User, themeId: string, body: Record<string, unknown> = {}) {
  const res = await owner.api.post('/share-request', { theme: themeId, ...body });
  if (res.status !== 201) throw new Error(res.text);
  return res.body.data;
}

const future = (ms = 86_400_000) => new Date(Date.now() + ms).toISOString();

test('the owner creates a share request: 201 with id, code, url, theme, sharer, limits and timestamps', async (t) => {
  const { owner, m, theme } = await ownerWithTheme({ name: 'Glass Dice' });
  const expires = future();
  const res = await owner.api.post('/share-request', { theme: m.id, expires_at: expires, max_uses: 3, unknown_field: 'ignored' });
  t.is(res.status, 201, res.text);
  t.is(res.body.type, 'share_request');
  const sr = res.body.data;
  t.regex(sr.id, UUID);
  t.regex(sr.code, /^[A-Za-z0-9_-]{22}$/);
  t.is(sr.url, `${ctx.server.url}/share/${sr.code}`);
  t.deepEqual(sr.theme, { id: m.id, name: 'Glass Dice', version: '1.0.0', label: theme.label });
  t.is(sr.user.uuid, owner.user.uuid);
  t.is(sr.expires_at, new Date(expires).toISOString().replace('Z', '000Z'));
  t.is(sr.max_uses, 3);
  t.is(sr.uses, 0);
  t.is(sr.status, 'active');
  t.regex(sr.created_at, TIMESTAMP);
  t.regex(sr.updated_at, TIMESTAMP);
  const plain = await share(owner, m.id as string);
  t.is(plain.expires_at, null);
  t.is(plain.max_uses, null);
  t.not(plain.code, sr.code);
});

test("only the theme's owner can share it; unknown themes are 404s; bad fields are listed", async (t) => {
  const { m } = await ownerWithTheme();
  const other = await ctx.server.newUser();
  const notMine = await other.api.post('/share-request', { theme: m.id });
  t.is(notMine.status, 403);
  t.is(notMine.body.data.code, 'forbidden');
  t.is((await other.api.post('/share-request', { theme: DEFAULT_THEME_ID })).status, 403);
  t.is((await other.api.post('/share-request', { theme: 'no-such-theme' })).status, 404);
  const bad = await other.api.post('/share-request', { expires_at: '2001-01-01T00:00:00Z', max_uses: 0 });
  t.is(bad.status, 400);
  t.deepEqual(bad.body.data.details.map((d: { path: string }) => d.path).sort(), ['expires_at', 'max_uses', 'theme']);
  const types = await other.api.post('/share-request', { theme: m.id, expires_at: 'tomorrow', max_uses: '3' });
  t.deepEqual(types.body.data.details.map((d: { path: string }) => d.path).sort(), ['expires_at', 'max_uses']);
});

test('GET lists your own share requests, newest first, paged; GET /{id} answers yours only', async (t) => {
  const { owner, m } = await ownerWithTheme();
  const other = await ctx.server.newUser();
  const first = await share(owner, m.id as string);
  const second = await share(owner, m.id as string, { max_uses: 1 });
  const list = await owner.api.get('/share-request');
  t.is(list.status, 200);
  t.is(list.body.type, 'share_request[]');
  t.deepEqual(
    list.body.data
      .map((s: { id: string }) => s.id)
      .slice(0, 2)
      .sort(),
    [first.id, second.id].sort(),
  );
  t.is(list.body.meta.total, 2);
  const paged = await owner.api.get('/share-request?per_page=1');
  t.is(paged.body.data.length, 1);
  t.truthy(paged.body.links.next);
  t.deepEqual((await other.api.get('/share-request')).body.data, []);
  const one = await owner.api.get(`/share-request/${first.id}`);
  t.is(one.status, 200);
  t.deepEqual(one.body.data, first);
  t.is((await other.api.get(`/share-request/${first.id}`)).status, 404, "someone else's request is not found");
  t.is((await owner.api.get('/share-request/not-a-uuid')).status, 404);
  t.is((await owner.api.get('/share-request/00000000-0000-4000-8000-000000000000')).status, 404);
});

test('PATCH changes expires_at and max_uses, and only those', async (t) => {
  const { owner, m } = await ownerWithTheme();
  const other = await ctx.server.newUser();
  const sr = await share(owner, m.id as string);
  const expires = future(3_600_000);
  const res = await owner.api.patch(`/share-request/${sr.id}`, { expires_at: expires, max_uses: 5, code: 'mine-now' });
  t.is(res.status, 200);
  t.is(res.body.data.max_uses, 5);
  t.is(Date.parse(res.body.data.expires_at), Date.parse(expires));
  t.is(res.body.data.code, sr.code);
  const cleared = await owner.api.patch(`/share-request/${sr.id}`, { expires_at: null, max_uses: null });
  t.is(cleared.body.data.expires_at, null);
  t.is(cleared.body.data.max_uses, null);
  t.is((await owner.api.patch(`/share-request/${sr.id}`, {})).status, 400);
  t.is((await owner.api.patch(`/share-request/${sr.id}`, { max_uses: -1 })).status, 400);
  t.is((await other.api.patch(`/share-request/${sr.id}`, { max_uses: 1 })).status, 404);
});

test('anyone signed in can preview a link: the theme and the sharer, not the usage', async (t) => {
  const { owner, m } = await ownerWithTheme({ name: 'Preview Me' });
  const viewer = await ctx.server.newUser();
  const sr = await share(owner, m.id as string, { max_uses: 10 });
  const res = await viewer.api.get(`/share-request/code/${sr.code}`);
  t.is(res.status, 200);
  t.is(res.body.type, 'share_request');
  t.deepEqual(Object.keys(res.body.data).sort(), ['code', 'expires_at', 'status', 'theme', 'url', 'user']);
  t.is(res.body.data.theme.name, 'Preview Me');
  t.is(res.body.data.user.uuid, owner.user.uuid);
  t.is((await viewer.api.get('/share-request/code/AAAAAAAAAAAAAAAAAAAAAA')).status, 404);
  t.is((await viewer.api.get('/share-request/code/bad%20code')).status, 404);
  t.is((await request(`${ctx.server.url}/api/1.0/share-request/code/${sr.code}`, 'GET')).status, 401);
});

test("accepting adds the theme's latest version to the box, counts a use, is announced; again is a 409", async (t) => {
  const { owner, m } = await ownerWithTheme();
  const taker = await ctx.server.newUser();
  const takerId = await userIdOf(taker.user.uuid);
  const sr = await share(owner, m.id as string);
  t.is((await postTheme(owner.api, { ...m, version: '1.2.0' })).status, 201);
  t.is(await rollable(takerId, m.id as string), null);
  const recorder = recordEvents();
  const res = await taker.api.post(`/share-request/code/${sr.code}/accept`);
  recorder.stop();
  t.is(res.status, 200, res.text);
  t.is(res.body.type, 'theme');
  t.is(res.body.data.id, m.id);
  t.is(res.body.data.version, '1.2.0');
  t.is(res.body.data.user.uuid, owner.user.uuid);
  t.true(recorder.events.some((e) => e.type === 'dicebox.created' && e.userId === takerId));
  t.is((await taker.api.get(`/dice-box/${m.id}`)).body.data.version, '1.2.0');
  t.is((await rollable(takerId, m.id as string))!.version, '1.2.0');
  t.true(
    (await taker.api.get('/theme')).body.data.some((th: { id: string }) => th.id === m.id),
    'listed among the themes you see',
  );
  t.is((await owner.api.get(`/share-request/${sr.id}`)).body.data.uses, 1);
  const again = await taker.api.post(`/share-request/code/${sr.code}/accept`);
  t.is(again.status, 409);
  t.is(again.body.data.code, 'already_in_dice_box');
  t.is((await owner.api.get(`/share-request/${sr.id}`)).body.data.uses, 1, 'a refused accept counts nothing');
  const ownerAccept = await owner.api.post(`/share-request/code/${sr.code}/accept`);
  t.is(ownerAccept.status, 409, 'the owner already has it');
});

test('a used-up link is a 410 for accepting and previewing', async (t) => {
  const { owner, m } = await ownerWithTheme();
  const [a, b] = [await ctx.server.newUser(), await ctx.server.newUser()];
  const sr = await share(owner, m.id as string, { max_uses: 1 });
  t.is((await a.api.post(`/share-request/code/${sr.code}/accept`)).status, 200);
  const late = await b.api.post(`/share-request/code/${sr.code}/accept`);
  t.is(late.status, 410);
  t.is(late.body.data.code, 'gone');
  t.is((await b.api.get(`/share-request/code/${sr.code}`)).status, 410);
  t.is((await b.api.get(`/dice-box/${m.id}`)).status, 404);
  const mine = await owner.api.get(`/share-request/${sr.id}`);
  t.is(mine.body.data.status, 'used_up');
  // raising the limit opens it again
  t.is((await owner.api.patch(`/share-request/${sr.id}`, { max_uses: 2 })).status, 200);
  t.is((await b.api.post(`/share-request/code/${sr.code}/accept`)).status, 200);
});

test('an expired link is a 410', async (t) => {
  const { owner, m } = await ownerWithTheme();
  const taker = await ctx.server.newUser();
  const sr = await share(owner, m.id as string, { expires_at: future() });
  // Time travel: move the expiry into the past directly (the API only takes future times).
  await db().models.ShareRequest.update({ expiresAt: new Date(Date.now() - 1000) }, { where: { id: sr.id } });
  const res = await taker.api.post(`/share-request/code/${sr.code}/accept`);
  t.is(res.status, 410);
  t.regex(res.body.data.message, /expired/);
  t.is((await taker.api.get(`/share-request/code/${sr.code}`)).status, 410);
  t.is((await owner.api.get(`/share-request/${sr.id}`)).body.data.status, 'expired');
  const page = await request(`${ctx.server.url}/share/${sr.code}`, 'GET');
  t.is(page.status, 410);
});

test("revoking a link: 204, it stops working at once (410), and it is gone from the owner's list", async (t) => {
  const { owner, m } = await ownerWithTheme();
  const taker = await ctx.server.newUser();
  const other = await ctx.server.newUser();
  const sr = await share(owner, m.id as string);
  t.is((await taker.api.get(`/share-request/code/${sr.code}`)).status, 200);
  t.is((await other.api.delete(`/share-request/${sr.id}`)).status, 404, 'only the owner revokes');
  const del = await owner.api.delete(`/share-request/${sr.id}`);
  t.is(del.status, 204);
  t.is(del.text, '');
  const accept = await taker.api.post(`/share-request/code/${sr.code}/accept`);
  t.is(accept.status, 410);
  t.regex(accept.body.data.message, /revoked/);
  t.is((await taker.api.get(`/share-request/code/${sr.code}`)).status, 410);
  t.is((await request(`${ctx.server.url}/share/${sr.code}`, 'GET')).status, 410);
  t.is((await owner.api.get(`/share-request/${sr.id}`)).status, 404);
  t.false((await owner.api.get('/share-request')).body.data.some((s: { id: string }) => s.id === sr.id));
  t.is((await owner.api.delete(`/share-request/${sr.id}`)).status, 404);
  t.is((await taker.api.get(`/dice-box/${m.id}`)).status, 404);
});

test('deleting the theme makes its links 410s', async (t) => {
  const { owner, m } = await ownerWithTheme();
  const taker = await ctx.server.newUser();
  const sr = await share(owner, m.id as string);
  t.is((await owner.api.delete(`/theme/${m.id}`)).status, 204);
  const res = await taker.api.post(`/share-request/code/${sr.code}/accept`);
  t.is(res.status, 410);
  t.regex(res.body.data.message, /deleted/);
  t.is((await owner.api.get('/share-request')).body.data.length, 0);
});

test('two simultaneous accepts of a one-use link: exactly one wins', async (t) => {
  for (let round = 0; round < 6; round++) {
    const { owner, m } = await ownerWithTheme();
    const [a, b] = await Promise.all([ctx.server.newUser(), ctx.server.newUser()]);
    const sr = await share(owner, m.id as string, { max_uses: 1 });
    const results = await Promise.all([a.api.post(`/share-request/code/${sr.code}/accept`), b.api.post(`/share-request/code/${sr.code}/accept`)]);
    t.deepEqual(results.map((r) => r.status).sort(), [200, 410], `round ${round}: ${results.map((r) => r.text).join(' ')}`);
    t.is((await owner.api.get(`/share-request/${sr.id}`)).body.data.uses, 1);
    const inBox = await Promise.all([a, b].map(async (u) => (await u.api.get(`/dice-box/${m.id}`)).status));
    t.deepEqual(inBox.sort(), [200, 404], "the loser's dice box is unchanged");
  }
});

test('two simultaneous accepts by the same user: one 200, one 409, one use counted', async (t) => {
  const { owner, m } = await ownerWithTheme();
  const taker = await ctx.server.newUser();
  const sr = await share(owner, m.id as string);
  const results = await Promise.all([1, 2, 3].map(() => taker.api.post(`/share-request/code/${sr.code}/accept`)));
  t.deepEqual(results.map((r) => r.status).sort(), [200, 409, 409]);
  t.is((await owner.api.get(`/share-request/${sr.id}`)).body.data.uses, 1);
});

test("GET /share/{code} is the pages' HTML shell: every value escaped, scripts of this server only, no referrer, no cache", async (t) => {
  const { owner, m } = await ownerWithTheme({ name: '<script>alert("x")</script> & Co', description: '<img src=x onerror=alert(1)>' });
  const sr = await share(owner, m.id as string);
  const res = await request(`${ctx.server.url}/share/${sr.code}`, 'GET');
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/);
  t.regex(res.headers.get('content-security-policy') ?? '', /script-src 'self'/);
  t.notRegex(res.headers.get('content-security-policy') ?? '', /unsafe-inline/);
  t.is(res.headers.get('referrer-policy'), 'no-referrer');
  t.is(res.headers.get('cache-control'), 'no-store');
  const html = res.text;
  t.false(html.includes('<script>alert'), 'the name is escaped');
  t.false(html.includes('<img'));
  t.true(html.includes('data-theme-name="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Co"'));
  t.true(html.includes(`data-code="${sr.code}"`));
  t.true(html.includes(`data-theme="${m.id}"`));
  t.deepEqual(
    [...html.matchAll(/<script[^>]*>/g)].map((s) => /src="\/dice-pages\/assets\/share\.js\?v=\w+"/.test(s[0])),
    [true],
    'one script, of this server',
  );
  t.false(/(?:src|href)=["']?(?:https?:)?\/\//i.test(html), 'no external resources');
  const missing = await request(`${ctx.server.url}/share/AAAAAAAAAAAAAAAAAAAAAA`, 'GET');
  t.is(missing.status, 404);
  t.regex(missing.headers.get('content-type') ?? '', /text\/html/);
  t.is((await request(`${ctx.server.url}/share/${encodeURIComponent('<b>x</b>')}`, 'GET')).text.includes('<b>'), false);
});

test('accepting while the owner deletes the theme or publishes a version never fails with a 500', async (t) => {
  for (let round = 0; round < 5; round++) {
    const { owner, m } = await ownerWithTheme();
    const takers = await Promise.all([ctx.server.newUser(), ctx.server.newUser()]);
    const sr = await share(owner, m.id as string);
    const [a, version, b, del] = await Promise.all([
      takers[0].api.post(`/share-request/code/${sr.code}/accept`),
      postTheme(owner.api, { ...m, version: '1.1.0' }),
      takers[1].api.post(`/share-request/code/${sr.code}/accept`),
      owner.api.delete(`/theme/${m.id}`),
    ]);
    t.is(del.status, 204);
    t.is(version.status, 201, 'a version before the deletion, or the first of a new theme after it');
    for (const r of [a, b]) t.true(r.status === 200 || r.status === 410, r.text);
    for (const taker of takers) t.is((await taker.api.get(`/dice-box/${m.id}`)).status, 404, 'nothing points at the deleted theme');
  }
});
