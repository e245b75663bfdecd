import test from 'ava';
import { randomBytes } from 'node:crypto';
import { db } from '../../src/db';
import { useServer } from '../helpers/server';
import { closeAll, connectUser } from '../helpers/sockets';
import { WebClient } from './webClient';

// Addresses come from X-Forwarded-For behind one trusted proxy: each test has its own, so the
// per-address limits of one do not reach another.
const ctx = useServer(test, { TRUST_PROXY: '1', SIGNIN_FAILURES_PER_HOUR: '3', SIGNIN_ADDRESS_FAILURES_PER_HOUR: '5' });

let addresses = 0;
const client = () => new WebClient(ctx.server.url, `198.51.100.${++addresses}`);
const name = (prefix: string) => `${prefix}${randomBytes(3).toString('hex')}`;
const PASSWORD = 'correct horse battery';

test('sign-up stores an argon2id hash, starts a session in an HttpOnly SameSite=Lax cookie and shows the account', async (t) => {
  const web = client();
  const username = name('alice');
  const res = await web.signUp(username, PASSWORD);
  t.is(res.status, 303);
  t.is(res.location, '/account');
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('dice_session='))!;
  t.regex(cookie, /HttpOnly/i);
  t.regex(cookie, /SameSite=Lax/i);
  t.notRegex(cookie, /Secure/i, 'plain http: no Secure flag');
  const page = await web.get('/account');
  t.is(page.status, 200);
  t.is(page.state?.account?.username, username);
  t.regex(page.headers.get('content-security-policy') ?? '', /script-src 'self'.*frame-ancestors 'none'/);
  const [row] = await db().sql.query<{ password_hash: string }>('SELECT password_hash FROM users WHERE username = $1', [username]);
  t.true(row!.password_hash.startsWith('$argon2id$'));
  t.false(page.text.includes(PASSWORD));
});

test('the session cookie is Secure when a trusted proxy says the request came over https', async (t) => {
  const web = new WebClient(ctx.server.url, '198.51.100.200', { 'x-forwarded-proto': 'https' });
  const res = await web.signUp(name('sec'), PASSWORD);
  t.is(res.status, 303);
  t.regex(
    res.headers.getSetCookie().find((c) => c.startsWith('dice_session='))!,
    /Secure/,
  );
});

test('forms without their CSRF token are refused with 403, signed in or not, and change nothing', async (t) => {
  const web = client();
  await web.get('/signup');
  const noToken = await web.post('/signup', { _csrf: null, username: name('x'), password: PASSWORD });
  t.is(noToken.status, 403);
  t.regex(noToken.state!.error!, /form has expired or did not come from this site/);
  // Another browser's token (a signed nonce of its own cookie) does not fit this browser's cookie.
  const other = client();
  await other.get('/signin');
  t.is((await web.post('/signin', { _csrf: other.csrf, username: 'x', password: PASSWORD })).status, 403);

  const username = name('bob');
  t.is((await web.signUp(username, PASSWORD)).status, 303);
  await web.get('/account');
  t.is((await web.post('/account/keys', { _csrf: null, label: 'sneaky' })).status, 403);
  t.is((await web.post('/account/keys', { _csrf: 'A'.repeat(43), label: 'sneaky' })).status, 403);
  t.is((await web.post('/signout', { _csrf: null })).status, 403);
  const page = await web.get('/account');
  t.is(page.state!.account!.keys.length, 0, 'no key was made');
  t.is(page.state!.account!.username, username, 'still signed in');
});

test('a session cookie never authorises /api/1.0', async (t) => {
  const web = client();
  await web.signUp(name('carol'), PASSWORD);
  const res = await fetch(`${ctx.server.url}/api/1.0/user`, { headers: { cookie: web.cookieHeader(), accept: 'application/json' } });
  t.is(res.status, 401);
  const room = await fetch(`${ctx.server.url}/api/1.0/room`, {
    method: 'POST',
    headers: { cookie: web.cookieHeader(), 'content-type': 'application/json' },
    body: '{}',
  });
  t.is(room.status, 401);
});

test('wrong passwords are limited per account: past the limit even the right password is 429', async (t) => {
  const username = name('dave');
  await client().signUp(username, PASSWORD);
  const web = client();
  await web.get('/signin');
  for (let i = 0; i < 3; i++) t.is((await web.post('/signin', { username, password: 'wrong password' })).status, 401);
  // From another address too: the account's count is the account's.
  const elsewhere = client();
  await elsewhere.get('/signin');
  const blocked = await elsewhere.post('/signin', { username, password: PASSWORD });
  t.is(blocked.status, 429);
  t.truthy(blocked.headers.get('retry-after'));
  t.regex(blocked.state!.error!, /Too many requests/);
});

test('wrong passwords are limited per address, across usernames', async (t) => {
  const web = client();
  await web.get('/signin');
  const answers: number[] = [];
  for (let i = 0; i < 6; i++) answers.push((await web.post('/signin', { username: name(`nobody${i}`), password: 'wrong password' })).status);
  t.deepEqual(answers, [401, 401, 401, 401, 401, 429]);
});

test('a right password gives its count back, and the answer never says whether the username exists', async (t) => {
  const username = name('erin');
  await client().signUp(username, PASSWORD);
  const web = client();
  await web.get('/signin');
  const wrong = await web.post('/signin', { username, password: 'not the password' });
  const unknown = await web.post('/signin', { username: name('ghost'), password: 'not the password' });
  t.is(wrong.status, 401);
  t.is(unknown.status, unknown.status);
  t.is(unknown.status, wrong.status);
  t.is(wrong.state!.error, 'Wrong username or password.');
  t.is(unknown.state!.error, wrong.state!.error);
  // A guest has no password: the same answer.
  const guest = await ctx.server.newUser();
  t.is((await web.post('/signin', { username: guest.user.username, password: 'anything at all' })).state!.error, wrong.state!.error);
  for (let i = 0; i < 3; i++) t.is((await client().signIn(username, PASSWORD)).status, 303, 'right passwords are not counted');
});

test('sign-out ends the session: its cookie no longer signs anyone in', async (t) => {
  const web = client();
  await web.signUp(name('frank'), PASSWORD);
  const copied = web.cookieHeader();
  await web.get('/account');
  const out = await web.post('/signout', {});
  t.is(out.status, 303);
  t.is(out.location, '/signin');
  const replay = await fetch(`${ctx.server.url}/account`, { headers: { cookie: copied }, redirect: 'manual' });
  t.is(replay.status, 303);
  t.is(replay.headers.get('location'), '/signin');
});

test('a password change ends every session of the user, and only the new password signs in', async (t) => {
  const username = name('grace');
  const first = client();
  await first.signUp(username, PASSWORD);
  const second = client();
  t.is((await second.signIn(username, PASSWORD)).status, 303);
  await first.get('/account');
  const wrongCurrent = await first.post('/account/password', { current: 'not my password', password: 'a new password' });
  t.is(wrongCurrent.status, 401);
  t.is((await first.post('/account/password', { current: PASSWORD, password: 'a new password' })).location, '/signin?done=password');
  t.is((await first.get('/account')).location, '/signin');
  t.is((await second.get('/account')).location, '/signin');
  const third = client();
  t.is((await third.signIn(username, PASSWORD)).status, 401);
  t.is((await third.signIn(username, 'a new password')).status, 303);
});

test('a guest claims its account with its key: same user, rooms kept, registered, and it can sign in', async (t) => {
  const guest = await ctx.server.newUser();
  const room = (await guest.api.post('/room', { name: 'Kept' })).body.data;
  const web = client();
  await web.get('/claim');
  const username = name('heidi');
  const claimed = await web.post('/claim', { key: guest.key, username, password: PASSWORD });
  t.is(claimed.status, 303);
  t.is(claimed.location, '/account');
  const me = (await guest.api.get('/user')).body.data;
  t.is(me.uuid, guest.user.uuid);
  t.is(me.username, username);
  t.true(me.is_registered);
  const rooms = (await guest.api.get('/room')).body.data as Array<{ slug: string }>;
  t.true(rooms.some((r) => r.slug === room.slug));
  t.is((await web.get('/account')).state!.account!.username, username);
  t.is((await client().signIn(username, PASSWORD)).status, 303);
  // Once registered, the key claims nothing more.
  const again = client();
  await again.get('/claim');
  t.is((await again.post('/claim', { key: guest.key, username: name('ivan'), password: PASSWORD })).status, 409);
  // An unknown key claims nothing either.
  t.is((await again.post('/claim', { key: 'dk_unknown', username: name('judy'), password: PASSWORD })).status, 401);
});

test('usernames are unique regardless of case, and guest- names are kept for guests', async (t) => {
  const username = name('Kim');
  t.is((await client().signUp(username, PASSWORD)).status, 303);
  const taken = await client().signUp(username.toLowerCase(), PASSWORD);
  t.is(taken.status, 409);
  t.regex(taken.state!.error!, /is taken/);
  t.is((await client().signUp(name('guest-'), PASSWORD)).status, 400);
  const short = await client().signUp(name('lee'), 'short');
  t.is(short.status, 400);
  t.regex(short.state!.error!, /8 to 256 characters/);
});

test('keys made on /account work on the API, show when they were last used, and revoking one ends it at once', async (t) => {
  const web = client();
  await web.signUp(name('mallory'), PASSWORD);
  await web.get('/account');
  const made = await web.post('/account/keys', { label: 'my <script> tool' });
  t.is(made.status, 201);
  t.is(made.headers.get('cache-control'), 'no-store');
  const key = made.state!.account!.newKey!.key;
  t.false(made.text.includes('<script> tool'), 'typed text is escaped in the page');
  t.is((await ctx.server.api.as(key).get('/user')).status, 200);
  const listed = (await web.get('/account')).state!.account!.keys;
  t.is(listed.length, 1);
  t.is(listed[0]!.label, 'my <script> tool');
  t.truthy(listed[0]!.lastUsedAt);
  t.falsy((await web.get('/account')).state!.account!.newKey, 'the key is shown once');
  const revoked = await web.post('/account/keys/revoke', { prefix: listed[0]!.prefix });
  t.is(revoked.status, 303);
  t.is((await ctx.server.api.as(key).get('/user')).status, 401);
  t.is((await web.get('/account')).state!.account!.keys.length, 0);
  t.is((await web.post('/account/keys/revoke', { prefix: listed[0]!.prefix })).status, 404);
});

test('revoking a key on /account drops the sockets open with it, as the API does', async (t) => {
  const web = client();
  await web.signUp(name('niaj'), PASSWORD);
  await web.get('/account');
  const made = await web.post('/account/keys', { label: 'socket' });
  const { key, prefix } = made.state!.account!.newKey!;
  const socket = await connectUser(ctx.server.url, key);
  try {
    const dropped = socket.waitForDisconnect();
    t.is((await web.post('/account/keys/revoke', { prefix })).status, 303);
    t.is(await dropped, 'io server disconnect');
  } finally {
    closeAll(socket);
  }
});

test('odd form bodies and cookies are 4xx answers, never a 500', async (t) => {
  const web = client();
  await web.get('/signin');
  const url = `${ctx.server.url}/signin`;
  const send = (body: string, type = 'application/x-www-form-urlencoded', cookie = web.cookieHeader()) =>
    fetch(url, { method: 'POST', body, headers: { 'content-type': type, cookie, 'x-forwarded-for': web.forwardedFor }, redirect: 'manual' }).then(
      (r) => r.status,
    );
  const token = encodeURIComponent(web.csrf);
  t.is(await send(`_csrf=${token}&username=a&username=b&password=xxxxxxxx`), 400, 'a repeated field');
  t.is(await send(`_csrf=${token}&_csrf=${token}&username=a&password=xxxxxxxx`), 403, 'a repeated token');
  t.is(await send(`_csrf=${token}&username=%ZZ&password=%E0%A4%A`), 400, 'broken percent-encoding');
  t.is(await send(`_csrf=${token}&username=${'a'.repeat(5000)}`), 413, 'a body over 4 KiB');
  t.is(await send(JSON.stringify({ _csrf: web.csrf, username: 'a', password: 'xxxxxxxx' }), 'application/json'), 403, 'JSON is not a form');
  t.is(await send(`_csrf=${token}&username=a&password=xxxxxxxx`, undefined, 'dice_csrf=%E0%A4%A; dice_session=%%%'), 403, 'garbled cookies');
  t.is(await send(`_csrf=${token}&username=a&password=${'p'.repeat(300)}`), 400, 'a password over 256 characters');
  const page = await fetch(`${ctx.server.url}/account`, { headers: { cookie: `dice_session=${'x'.repeat(5000)}` }, redirect: 'manual' });
  t.is(page.status, 303);
});

test('after sign-in the page goes to its ?next= path of this site, never to another site', async (t) => {
  const username = name('olga');
  await client().signUp(username, PASSWORD);
  const web = client();
  t.is((await web.get('/signin?next=%2Froom%2Fabc%3Fpasscode%3D1')).state!.next, '/room/abc?passcode=1');
  t.is((await web.post('/signin', { username, password: PASSWORD, next: '/room/abc?passcode=1' })).location, '/room/abc?passcode=1');
  for (const next of ['//evil.example/', '/\\evil.example', 'https://evil.example/', 'javascript:alert(1)', '/a\u0000b', `/${'a'.repeat(600)}`]) {
    const other = client();
    // (A NUL in the address is refused before any page: 400 malformed_url.)
    t.falsy((await other.get(`/signin?next=${encodeURIComponent(next)}`)).state?.next, next);
    await other.get('/signin');
    t.is((await other.post('/signin', { username, password: PASSWORD, next })).location, '/account', next);
  }
});
