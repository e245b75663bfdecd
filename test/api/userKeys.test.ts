import test from 'ava';
import { useServer } from '../helpers/server';

/** A user changes their own name and username, and manages their own keys, through HTTP. */
const ctx = useServer(test);
const unique = () => `u${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;

test('PATCH /user changes the name and the username, and GET /user shows them', async (t) => {
  const { api } = await ctx.server.newUser();
  const username = unique();
  const res = await api.patch('/user', { name: 'Alice Liddell', username });
  t.is(res.status, 200);
  t.is(res.body.type, 'user');
  t.is(res.body.data.name, 'Alice Liddell');
  t.is(res.body.data.username, username);
  const me = await api.get('/user');
  t.is(me.body.data.name, 'Alice Liddell');
  t.is(me.body.data.username, username);
  // A field left out stays; an empty body changes nothing.
  t.is((await api.patch('/user', { name: 'Alice' })).body.data.username, username);
  t.is((await api.patch('/user', {})).body.data.name, 'Alice');
});

test('PATCH /user: a name follows the display-name rules (NFKC, nothing invisible, no text-direction controls)', async (t) => {
  const { api } = await ctx.server.newUser();
  const fullWidth = await api.patch('/user', { name: '\uff21\uff4c\uff49\uff43\uff45' });
  t.is(fullWidth.status, 200, fullWidth.text);
  t.is(fullWidth.body.data.name, 'Alice', 'full-width letters are stored as plain ones');
  for (const name of ['\u200b', 'Bob\u202eecilA', 'A\u0007']) {
    const res = await api.patch('/user', { name });
    t.is(res.status, 400, JSON.stringify(name));
    t.is(res.body.data.code, 'validation_error');
  }
  t.is((await api.get('/user')).body.data.name, 'Alice', 'nothing refused was stored');
});

test('a username taken by someone else, in any case, is a 409 username_taken; your own is fine', async (t) => {
  const [a, b] = await Promise.all([ctx.server.newUser(), ctx.server.newUser()]);
  const username = unique();
  t.is((await a.api.patch('/user', { username })).status, 200);
  for (const attempt of [username, username.toUpperCase()]) {
    const res = await b.api.patch('/user', { username: attempt });
    t.is(res.status, 409, attempt);
    t.is(res.body.data.code, 'username_taken');
    t.regex(res.body.data.message, /taken/);
  }
  t.is((await a.api.patch('/user', { username: username.toUpperCase() })).status, 200, 'changing the case of your own name');
  t.is((await b.api.get('/user')).body.data.username, b.user.username, 'the refused change left nothing behind');
});

test('bad names and usernames are 400s naming the field; the guest- prefix is refused', async (t) => {
  const { api, user } = await ctx.server.newUser();
  const cases: [unknown, string][] = [
    [{ username: 'has space' }, 'username'],
    [{ username: '' }, 'username'],
    [{ username: 'x'.repeat(65) }, 'username'],
    [{ username: 42 }, 'username'],
    [{ username: 'guest-1234abcd' }, 'username'],
    [{ username: 'GUEST-x' }, 'username'],
    [{ name: '   ' }, 'name'],
    [{ name: '' }, 'name'],
    [{ name: 'a\u0007b' }, 'name'],
    [{ name: 'x'.repeat(256) }, 'name'],
    [{ name: null }, 'name'],
  ];
  for (const [body, path] of cases) {
    const res = await api.patch('/user', body);
    t.is(res.status, 400, JSON.stringify(body));
    t.is(res.body.data.code, 'validation_error');
    t.is(res.body.data.details[0].path, path);
  }
  t.is((await api.get('/user')).body.data.username, user.username);
});

test('keys: listed without their secrets, created once in full, deleted; the deleted key stops at once', async (t) => {
  const { api, key } = await ctx.server.newUser();
  const listed = await api.get('/user/key');
  t.is(listed.status, 200);
  t.is(listed.body.type, 'api_key[]');
  t.is(listed.body.data.length, 1);
  const [first] = listed.body.data;
  t.is(first.prefix, key.slice(0, 11));
  t.true(first.is_current);
  t.deepEqual(Object.keys(first).sort(), ['created_at', 'is_current', 'name', 'prefix']);
  t.false(listed.text.includes(key), 'the key itself is never listed');

  const created = await api.post('/user/key', { name: 'stream overlay' });
  t.is(created.status, 201);
  t.is(created.body.type, 'api_key');
  t.is(created.headers.get('cache-control'), 'no-store');
  const second = created.body.data;
  t.regex(second.key, /^dk_[\w-]{43}$/);
  t.is(second.prefix, second.key.slice(0, 11));
  t.is(second.name, 'stream overlay');
  t.false(second.is_current);

  // The new key works, and is never shown again.
  const other = ctx.server.api.as(second.key);
  t.is((await other.get('/user')).status, 200);
  const relisted = await other.get('/user/key');
  t.deepEqual(
    relisted.body.data.map((k: { prefix: string; is_current: boolean }) => [k.prefix, k.is_current]),
    [
      [first.prefix, false],
      [second.prefix, true],
    ],
  );
  t.false(relisted.text.includes(second.key));
  t.is((await api.post('/user/key')).body.data.name, 'api', 'a key without a name is called "api"');

  // Delete the first key with the second: the first stops working on its very next request.
  t.is((await other.delete(`/user/key/${first.prefix}`)).status, 204);
  const refused = await api.get('/user');
  t.is(refused.status, 401);
  t.is(refused.body.data.code, 'unauthorized');
  t.is((await other.get('/user/key')).body.data.length, 2);
  t.is((await other.delete(`/user/key/${first.prefix}`)).status, 404, 'a revoked key is no longer yours to delete');
});

test('the last live key cannot be deleted: 409 last_key, and it keeps working', async (t) => {
  const { api, key } = await ctx.server.newUser();
  const res = await api.delete(`/user/key/${key.slice(0, 11)}`);
  t.is(res.status, 409);
  t.is(res.body.data.code, 'last_key');
  t.regex(res.body.data.message, /last/);
  t.is((await api.get('/user')).status, 200);
});

test("another user's key is not found, and a malformed prefix is a 400", async (t) => {
  const [a, b] = await Promise.all([ctx.server.newUser(), ctx.server.newUser()]);
  await a.api.post('/user/key');
  const res = await a.api.delete(`/user/key/${b.key.slice(0, 11)}`);
  t.is(res.status, 404);
  t.is(res.body.data.code, 'not_found');
  t.is((await b.api.get('/user')).status, 200, "the other user's key still works");
  const bad = await a.api.delete('/user/key/not-a-prefix');
  t.is(bad.status, 400);
  t.is(bad.body.data.code, 'validation_error');
  t.is((await a.api.post('/user/key', { name: '' })).status, 400);
});

test('two deletions at once of the last two keys leave one live key', async (t) => {
  const { api, key } = await ctx.server.newUser();
  const second = (await api.post('/user/key')).body.data;
  const results = await Promise.all([api.delete(`/user/key/${key.slice(0, 11)}`), ctx.server.api.as(second.key).delete(`/user/key/${second.prefix}`)]);
  t.deepEqual(results.map((r) => r.status).sort(), [204, 409]);
  const statuses = await Promise.all([key, second.key].map((k) => ctx.server.api.as(k).get('/user')));
  t.deepEqual(statuses.map((r) => r.status).sort(), [200, 401]);
});

test('live keys are capped: past the cap a new key is a 409 quota_exceeded', async (t) => {
  const { api } = await ctx.server.newUser();
  const { MAX_LIVE_KEYS } = await import('../../src/users/apiKeys');
  for (let i = 1; i < MAX_LIVE_KEYS; i++) t.is((await api.post('/user/key')).status, 201);
  const res = await api.post('/user/key');
  t.is(res.status, 409);
  t.is(res.body.data.code, 'quota_exceeded');
  t.is((await api.get('/user/key')).body.data.length, MAX_LIVE_KEYS);
});

test('renames racing to names that differ only in case: exactly one wins', async (t) => {
  const users = await Promise.all([1, 2, 3, 4].map(() => ctx.server.newUser()));
  const base = unique();
  const names = [base, base.toUpperCase(), `${base[0]!.toUpperCase()}${base.slice(1)}`, base];
  const results = await Promise.all(users.map((u, i) => u.api.patch('/user', { username: names[i] })));
  t.deepEqual(results.map((r) => r.status).sort(), [200, 409, 409, 409]);
  t.true(results.filter((r) => r.status === 409).every((r) => r.body.data.code === 'username_taken'));
});
