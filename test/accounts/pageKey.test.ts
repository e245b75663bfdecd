import test from 'ava';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { db } from '../../src/db';
import { useServer } from '../helpers/server';
import { closeAll, connectUser } from '../helpers/sockets';
import { WebClient } from './webClient';

/**
 * The page key (POST /account/page-key): the API key a signed-in browser's pages use, bound to the
 * session. One server; each test its own address (X-Forwarded-For behind TRUST_PROXY=1).
 */
// A short key cache, so an expired key's refusal does not wait for the default TTL.
const ctx = useServer(test, { TRUST_PROXY: '1', CACHE_TTL_MS: '1000' });

let addresses = 0;
const client = () => new WebClient(ctx.server.url, `203.0.113.${++addresses}`);
const name = (prefix: string) => `${prefix}${randomBytes(3).toString('hex')}`;
const PASSWORD = 'correct horse battery';

/** POST /account/page-key as the page's script sends it (its origin, the session's CSRF token), with `override` applied. */
async function askPageKey(web: WebClient, override: Record<string, string | null> = {}) {
  const headers: Record<string, string> = {
    origin: ctx.server.url,
    'sec-fetch-site': 'same-origin',
    'x-csrf-token': web.csrf,
    cookie: web.cookieHeader(),
    'x-forwarded-for': web.forwardedFor,
  };
  for (const [k, v] of Object.entries(override)) {
    if (v === null) delete headers[k];
    else headers[k] = v;
  }
  const res = await fetch(`${ctx.server.url}/account/page-key`, { method: 'POST', headers });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

/** The same with node:http, which sends the Host header given (fetch always writes its own). */
function askThroughProxy(web: WebClient, host: string, origin: string): Promise<number> {
  const url = new URL(`${ctx.server.url}/account/page-key`);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { host, origin, 'x-csrf-token': web.csrf, cookie: web.cookieHeader(), 'x-forwarded-for': web.forwardedFor },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const me = (key: string) => fetch(`${ctx.server.url}/api/1.0/user`, { headers: { authorization: `Bearer ${key}` } });

async function signedIn(): Promise<{ web: WebClient; username: string }> {
  const web = client();
  const username = name('pk');
  await web.signUp(username, PASSWORD);
  await web.get('/account');
  return { web, username };
}

test('a signed-in page gets a key of its account, bound to the session; the cookie alone still opens no API', async (t) => {
  const { web, username } = await signedIn();
  const res = await askPageKey(web);
  t.is(res.status, 201);
  t.is(res.headers.get('cache-control'), 'no-store');
  t.regex(res.body.key, /^dk_/);
  t.true(Date.parse(res.body.expires_at) > Date.now() + 29 * 86_400_000, 'expires with the 30-day session');
  const user = await me(res.body.key);
  t.is(user.status, 200);
  t.is(((await user.json()) as any).data.username, username);
  // The cookie never authorises the API, with or without the CSRF token.
  t.is((await fetch(`${ctx.server.url}/api/1.0/user`, { headers: { cookie: web.cookieHeader(), 'x-csrf-token': web.csrf } })).status, 401);
  // The developer settings list it, labelled.
  const keys = (await web.get('/account')).state!.account!.keys;
  t.deepEqual(
    keys.map((k) => k.label),
    ['Web session'],
  );
  const [row] = await db().sql.query<{ web_session_id: unknown }>('SELECT web_session_id FROM api_keys WHERE prefix = $1', [res.body.key.slice(0, 11)]);
  t.truthy(row!.web_session_id);
});

test('refused without the CSRF token, from another origin, cross-site, or signed out', async (t) => {
  const { web } = await signedIn();
  t.is((await askPageKey(web, { 'x-csrf-token': null })).status, 403);
  t.is((await askPageKey(web, { 'x-csrf-token': 'A'.repeat(43) })).status, 403);
  t.is((await askPageKey(web, { origin: 'https://evil.example' })).status, 403);
  t.is((await askPageKey(web, { origin: null })).status, 403);
  t.is((await askPageKey(web, { 'sec-fetch-site': 'cross-site' })).status, 403);
  const refused = await askPageKey(web, { origin: 'https://evil.example' });
  t.is(refused.body.type, 'error');
  t.is(refused.headers.get('access-control-allow-origin'), null, 'no CORS for this path');
  // A preflight from another origin is not answered with CORS either.
  const preflight = await fetch(`${ctx.server.url}/account/page-key`, {
    method: 'OPTIONS',
    headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-csrf-token' },
  });
  t.is(preflight.headers.get('access-control-allow-origin'), null);
  // Behind a proxy that passes the Host without its port (nginx's $host), the same name still counts.
  const port = new URL(ctx.server.url).port;
  t.is(await askThroughProxy(web, '127.0.0.1', ctx.server.url), 201);
  t.is(await askThroughProxy(web, '127.0.0.1', `http://evil.example:${port}`), 403);
  t.is(await askThroughProxy(web, `127.0.0.1:${Number(port) + 1}`, ctx.server.url), 403, 'another port named in Host: not this origin');
  const anonymous = client();
  await anonymous.get('/signin');
  t.is((await askPageKey(anonymous)).status, 401);
  t.is((await web.get('/account')).state!.account!.keys.length, 1, 'only the proxied request made a key');
});

test("sign-out revokes the session's page keys and closes their sockets; another session's key lives on", async (t) => {
  const { web, username } = await signedIn();
  const other = client();
  await other.signIn(username, PASSWORD);
  await other.get('/account');
  const mine = (await askPageKey(web)).body.key as string;
  const theirs = (await askPageKey(other)).body.key as string;
  const socket = await connectUser(ctx.server.url, mine);
  try {
    t.is((await me(mine)).status, 200);
    const dropped = socket.waitForDisconnect();
    const out = await web.post('/signout', {});
    t.is(out.status, 303);
    t.is(await dropped, 'io server disconnect');
    t.is((await me(mine)).status, 401);
    t.is((await me(theirs)).status, 200, 'the other browser is still signed in');
    t.is((await askPageKey(web)).status, 401, 'no session, no key');
  } finally {
    closeAll(socket);
  }
});

test('a password change revokes every page key of the account', async (t) => {
  const { web, username } = await signedIn();
  const other = client();
  await other.signIn(username, PASSWORD);
  await other.get('/account');
  const first = (await askPageKey(web)).body.key as string;
  const second = (await askPageKey(other)).body.key as string;
  const socket = await connectUser(ctx.server.url, second);
  try {
    const dropped = socket.waitForDisconnect();
    t.is((await web.post('/account/password', { current: PASSWORD, password: 'a brand new password' })).status, 303);
    t.is(await dropped, 'io server disconnect');
    t.is((await me(first)).status, 401);
    t.is((await me(second)).status, 401);
  } finally {
    closeAll(socket);
  }
});

test('a session holds at most 4 live page keys (the oldest goes), and they are not counted as developer keys', async (t) => {
  const { web } = await signedIn();
  const keys: string[] = [];
  for (let i = 0; i < 5; i++) keys.push((await askPageKey(web)).body.key);
  t.is((await me(keys[0]!)).status, 401, 'the oldest was revoked');
  for (const key of keys.slice(1)) t.is((await me(key)).status, 200);
  // Developer keys: the page keys do not use up MAX_LIVE_KEYS (20).
  const createKey = async () =>
    (
      await fetch(`${ctx.server.url}/api/1.0/user/key`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys[4]}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'dev' }),
      })
    ).status;
  const made: number[] = [];
  for (let i = 0; i < 20; i++) made.push(await createKey());
  t.deepEqual(made, Array(20).fill(201), 'twenty developer keys beside four page keys');
  t.is(await createKey(), 409, 'the twenty-first is over the quota');
  const listed = (await web.get('/account')).state!.account!.keys;
  t.is(listed.filter((k) => k.label === 'Web session').length, 4);
});

test('a page key stops working when its session expires, even before anyone clears the session away', async (t) => {
  const { web } = await signedIn();
  const key = (await askPageKey(web)).body.key as string;
  t.is((await me(key)).status, 200);
  // The session's and the key's end moved into the past, as 30 days would; the key cache expires within CACHE_TTL_MS.
  await db().sql.transaction(async (query) => {
    await query('UPDATE api_keys SET expires_ms = $1 WHERE prefix = $2', [Date.now() - 1000, key.slice(0, 11)]);
  });
  const started = Date.now();
  let status = 200;
  while (status === 200 && Date.now() - started < 15_000) {
    status = (await me(key)).status;
    if (status === 200) await new Promise((r) => setTimeout(r, 250));
  }
  t.is(status, 401);
});

test('the board tells a signed-in page its session (for the page key), never a signed-out one, and keeps no copy', async (t) => {
  const guest = await ctx.server.newUser();
  const room = (await (
    await fetch(`${ctx.server.url}/api/1.0/room`, {
      method: 'POST',
      headers: { authorization: `Bearer ${guest.key}`, 'content-type': 'application/json' },
      body: '{"name":"Pages"}',
    })
  ).json()) as any;
  const slug = room.data.slug as string;
  const anonymous = await fetch(`${ctx.server.url}/room/${slug}`);
  const plain = await anonymous.text();
  t.is(anonymous.status, 200);
  t.notRegex(plain, /data-session|data-csrf/);
  t.regex(plain, /data-mode="room"/);
  const { web, username } = await signedIn();
  for (const path of [`/room/${slug}`, `/board/${slug}`]) {
    const page = await web.get(path);
    t.is(page.status, 200);
    t.regex(page.text, /data-session="[\w-]{22}"/);
    t.true(page.text.includes(`data-csrf="${web.csrf}"`));
    t.true(page.text.includes(`data-user="${username}"`));
    t.is(page.headers.get('cache-control'), 'no-store');
  }
  const overlay = await web.get(`/room/${slug}?overlay=1`);
  t.notRegex(overlay.text, /data-csrf/, 'the framable overlay carries no token');
});
