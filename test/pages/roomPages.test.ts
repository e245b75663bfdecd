import test from 'ava';
import { loggedUrl } from '../../src/http/loggedUrl';
import { createTestDatabase, type TestDatabase } from '../helpers/env';
import { Api, newGuest } from '../helpers/http';
import { nginxBinary, startShippedNginx } from '../helpers/nginx';
import { spawnInstance, type Instance } from '../helpers/process';

/**
 * The room page, the stream address and /dice/{id} over HTTP: their headers, their 404s, and the
 * stream's key kept out of every log (the server's request lines, read from a real process logging at
 * info, and the shipped nginx's access log in front of it). The pages in a browser:
 * test/browser/roomPage.test.ts.
 */
let instance: Instance;
let database: TestDatabase;
let api: Api;

test.before(async () => {
  database = await createTestDatabase();
  instance = await spawnInstance(
    { DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl ?? '', LOG_LEVEL: 'info', GUESTS_PER_HOUR: '100000' },
    60_000,
  );
  api = new Api(instance.url);
});
test.after.always(async () => {
  await instance?.stop();
  await database?.drop();
});

/** Until `check()` holds (log lines are written a moment after the answer), at most `ms`. */
async function waitFor(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not so after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const get = (path: string) => fetch(`${instance.url}${path}`, { redirect: 'manual' });

test('the room page: never framed, never cached, no Referer, a shell without inline script', async (t) => {
  const owner = await newGuest(api);
  const room = (await owner.api.post('/room', { name: 'Headers', is_public: false })).body.data;
  const res = await get(`/room/${room.slug}/settings?passcode=${room.passcode}`);
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type')!, /^text\/html/);
  t.regex(res.headers.get('content-security-policy')!, /script-src 'self'.*frame-ancestors 'none'/);
  t.is(res.headers.get('x-frame-options'), 'DENY');
  t.is(res.headers.get('cache-control'), 'no-store');
  t.is(res.headers.get('referrer-policy'), 'no-referrer');
  const html = await res.text();
  t.false(/<script(?![^>]*\bsrc=)[^>]*>/.test(html), 'no inline script');
  t.true(html.includes(`data-slug="${room.slug}"`));
  t.false(html.includes(room.passcode), 'the shell holds nothing of the room: the script asks the API');
  // Not a slug: a 404 before anything else.
  for (const path of ['/room/not%20a%20slug/settings', `/room/${'a'.repeat(65)}/settings`, '/room/%3Cb%3E/settings']) {
    const bad = await get(path);
    t.is(bad.status, 404, path);
    t.is((await bad.json()).data.code, 'not_found');
  }
});

test('the stream address: the overlay with its first script, framable, never cached, no Referer; the key never echoed', async (t) => {
  const key = 'dk_never_echoed_0123456789abcdefghijklmnopqrstu';
  const res = await get(`/room/abc123/stream?key=${key}&sound=1`);
  t.is(res.status, 200);
  const csp = res.headers.get('content-security-policy')!;
  t.regex(csp, /script-src 'self'/);
  t.false(csp.includes('frame-ancestors'), 'framable, as the overlay is');
  t.is(res.headers.get('x-frame-options'), null);
  t.is(res.headers.get('cache-control'), 'no-store');
  t.is(res.headers.get('referrer-policy'), 'no-referrer');
  const html = await res.text();
  t.false(html.includes(key));
  t.true(html.includes('class="overlay"'), 'overlay mode');
  const first = html.indexOf('<script src="/room-page/assets/stream.js?v=');
  t.true(first > 0 && first < html.indexOf('/board/assets/board.js'), "the stream's script comes before the board's");
  t.false(/<script(?![^>]*\bsrc=)[^>]*>/.test(html), 'no inline script');
  t.is((await get('/room/bad%20slug/stream?key=x')).status, 404);

  // The assets: versioned ones are immutable; anything else is a 404.
  const version = /stream\.js\?v=([0-9a-f]+)/.exec(html)![1];
  const script = await get(`/room-page/assets/stream.js?v=${version}`);
  t.is(script.status, 200);
  t.regex(script.headers.get('content-type')!, /^text\/javascript/);
  t.regex(script.headers.get('cache-control')!, /immutable/);
  t.regex(await script.text(), /replaceState/);
  for (const file of ['room.js', 'room.css']) t.is((await get(`/room-page/assets/${file}`)).headers.get('cache-control'), 'no-cache', file);
  t.is((await get('/room-page/assets/other.js')).status, 404);
});

test("/dice/{id}: the theme's page; an unknown theme is the 404 page; /theme/{id}/preview still works", async (t) => {
  const page = await get('/dice/standard');
  t.is(page.status, 200);
  t.is(page.headers.get('cache-control'), 'no-store');
  t.is(page.headers.get('referrer-policy'), 'no-referrer');
  t.true((await page.text()).includes('data-theme="standard"'));
  const missing = await get('/dice/no-such-theme');
  t.is(missing.status, 404);
  t.regex(missing.headers.get('content-type')!, /^text\/html/);
  t.regex(await missing.text(), /<title>No such theme/);
  t.is((await get('/theme/standard/preview')).status, 200);
});

test('secret query values are redacted by name however they are spelled', (t) => {
  t.is(loggedUrl('/room/a/stream?key=dk_1&sound=1'), '/room/a/stream?key=[redacted]&sound=1');
  t.is(loggedUrl('/x?sound=1&KEY=dk_2'), '/x?sound=1&KEY=[redacted]');
  t.is(loggedUrl('/x?%6Bey=dk_3'), '/x?%6Bey=[redacted]');
  t.is(loggedUrl('/x?key%5B%5D=dk_4&key[a]=dk_5'), '/x?key%5B%5D=[redacted]&key[a]=[redacted]');
  t.is(loggedUrl('/api/1.0/room/a?passcode=p1'), '/api/1.0/room/a?passcode=[redacted]');
  t.is(loggedUrl('/x?monkey=1&keys=2&%zz=3'), '/x?monkey=1&keys=2&%zz=3', 'other names, and malformed escapes, stay');
  t.is(loggedUrl('/plain'), '/plain');
});

const secrets = ['dk_secret_plain_aaaaaaaa', 'dk_secret_upper_bbbbbbbb', 'dk_secret_encoded_cccccc', 'dk_secret_bracket_dddddd', 'pass_secret_eeeeeeee'];
const paths = [
  `/room/abc123/stream?key=${secrets[0]}&sound=1`,
  `/room/abc123/stream?KEY=${secrets[1]}`,
  `/room/abc123/stream?%6Bey=${secrets[2]}`,
  `/room/abc123/stream?key[]=${secrets[3]}`,
  `/room/abc123/stream?passcode=${secrets[4]}&key=${secrets[0]}`,
];

test("the stream's key is in no line of the server's log", async (t) => {
  for (const path of paths) t.is((await get(path)).status, 200, path);
  await waitFor(
    () =>
      instance
        .output()
        .split('\n')
        .filter((l) => l.includes('/room/abc123/stream?')).length >= paths.length,
    10_000,
  );
  const lines = instance
    .output()
    .split('\n')
    .filter((l) => l.includes('/room/abc123/stream?'));
  t.true(
    lines.some((l) => l.includes('"url":"/room/abc123/stream?key=[redacted]&sound=1"')),
    lines.join('\n'),
  );
  for (const secret of secrets) t.false(instance.output().includes(secret), `${secret} is in no server log line`);
});

// Without nginx the test is reported as skipped (ava counts it so), except under CI where it fails.
const binary = nginxBinary();
const nginxTitle = "the stream's key is in no line of the shipped nginx's access log";
if (!binary && process.env.CI === 'true') {
  test(`${nginxTitle} (nginx is required under CI)`, (t) => t.fail("no nginx binary; .ci/run installs Debian's nginx"));
} else if (!binary) {
  test.skip(`${nginxTitle} (skipped: nginx is not installed; apt-get install nginx)`, () => {});
} else {
  test(nginxTitle, async (t) => {
    const port = Number(new URL(instance.url).port);
    const nginx = await startShippedNginx(binary!, port);
    try {
      for (const path of paths) t.is((await fetch(`${nginx.url}${path}`)).status, 200, `${path} through nginx`);
      await waitFor(
        () =>
          nginx
            .accessLog()
            .split('\n')
            .filter((l) => l.includes('/room/abc123/stream')).length >= paths.length,
        10_000,
      );
      const log = nginx.accessLog();
      t.regex(log, /"GET \/room\/abc123\/stream HTTP\/1\.1" 200/, 'the request is logged, without its query');
      for (const secret of secrets) t.false(log.includes(secret), `${secret} is not in nginx's access log`);
    } finally {
      await nginx.stop();
    }
  });
}
