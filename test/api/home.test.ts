import test from 'ava';
import { loggedUrl } from '../../src/http/loggedUrl';
import { WebClient } from '../accounts/webClient';
import { useServer } from '../helpers/server';

/** GET / (the home page for people), its assets, its `?room=` redirect; /room/{slug}; what logs keep of invite addresses. */
const ctx = useServer(test);

const dataOf = (html: string, name: string) => {
  const m = new RegExp(`data-${name}="([^"]*)"`).exec(html);
  return m
    ? m[1]!
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&amp;/g, '&')
    : null;
};

test('GET / is the home page: its script and style from this server, its data as attributes, not framed, not cached', async (t) => {
  const res = await fetch(`${ctx.server.url}/`);
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /^text\/html/);
  t.regex(res.headers.get('content-security-policy') ?? '', /script-src 'self';.*frame-ancestors 'none'/);
  t.is(res.headers.get('x-frame-options'), 'DENY');
  t.is(res.headers.get('cache-control'), 'no-store');
  const html = await res.text();
  t.deepEqual(JSON.parse(dataOf(html, 'page')!), { signupAllowed: true, guestsAllowed: true });
  t.is(dataOf(html, 'session'), null, 'signed out: no session data');
  t.notRegex(html, /<script>/i, 'no inline script');
  for (const src of [...html.matchAll(/(?:src|href)="(\/pages\/assets\/[^"]+)"/g)].map((m) => m[1]!)) {
    const asset = await fetch(`${ctx.server.url}${src}`);
    t.is(asset.status, 200, src);
    t.is(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    t.regex(asset.headers.get('content-type') ?? '', /^text\/(javascript|css)/);
  }
  t.is((await fetch(`${ctx.server.url}/pages/assets/other.js`)).status, 404);
});

test("signed in, the home page carries the session's tag, CSRF token and username for its script", async (t) => {
  const web = new WebClient(ctx.server.url);
  await web.signUp(`home${Date.now() % 100_000}`, 'a long enough password');
  const page = await web.get('/account');
  const home = await web.get('/');
  t.regex(dataOf(home.text, 'session') ?? '', /^[\w-]{22}$/);
  t.is(dataOf(home.text, 'csrf'), page.state!.csrf);
  t.is(dataOf(home.text, 'user'), page.state!.account!.username);
});

test('?room= takes a slug, or the slug of a room address, to /room/{slug}; a passcode in it goes nowhere', async (t) => {
  const { api } = await ctx.server.newUser();
  const { slug } = (await api.post('/room', { name: 'Home page table' })).body.data;
  const go = async (room: string) => (await fetch(`${ctx.server.url}/?room=${encodeURIComponent(room)}`, { redirect: 'manual' })).headers.get('location');
  t.is(await go(` ${slug} `), `/room/${slug}`);
  t.is(await go(`http://elsewhere.example/room/${slug}?passcode=secret1`), `/room/${slug}`);
  t.is(await go(`/board/${slug}#passcode=x`), `/room/${slug}`);
  t.is(await go('../admin?x=<b>'), `/room/${encodeURIComponent('../admin?x=<b>')}`, 'the slug stays one path segment');
  t.is((await fetch(`${ctx.server.url}/?room=`)).status, 200, 'an empty one shows the page');
  const board = await fetch(`${ctx.server.url}/room/${slug}?passcode=anything`);
  t.is(board.status, 200);
  t.is(board.headers.get('referrer-policy'), 'no-referrer', 'the passcode in the address goes to no other site');
  t.is((await fetch(`${ctx.server.url}/room/not%20a%20slug`)).status, 404);
});

test('logs keep no passcode, key, secret or token of an address, however the name is written', (t) => {
  t.is(loggedUrl('/room/abc?passcode=s3cret'), '/room/abc?passcode=[redacted]');
  t.is(loggedUrl('/room/abc/stream?key=dk_abc&overlay=1'), '/room/abc/stream?key=[redacted]&overlay=1');
  t.is(loggedUrl('/room/abc?%70asscode=s3cret'), '/room/abc?%70asscode=[redacted]');
  t.is(loggedUrl('/room/abc?PASSCODE=s3cret&x=1&Secret=2&token'), '/room/abc?PASSCODE=[redacted]&x=1&Secret=[redacted]&token=[redacted]');
  t.is(loggedUrl('/api/1.0/room/abc?passcode=a%26b'), '/api/1.0/room/abc?passcode=[redacted]');
  t.is(loggedUrl('/board/abc'), '/board/abc');
  t.is(loggedUrl('/?room=abc'), '/?room=abc');
  t.is(loggedUrl(`/?room=${encodeURIComponent('https://x.example/room/abc?passcode=s3cret')}`), '/?room=[redacted]', 'an invite pasted into ?room=');
});
