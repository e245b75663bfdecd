import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../helpers/server';
import { launchChromium, watchPage } from './chromium';

/**
 * A page on another origin (a virtual tabletop module, a stream overlay) calls the REST API from a
 * real Chromium with fetch: it gets a key, rolls, reads the roll and its rate-limit headers, reads the
 * server's error messages (401, 429), and works in credentials mode too. With CORS_ORIGINS leaving
 * its origin out, the browser refuses every answer.
 *
 * The page is served by this test on a port of its own: another origin than the API's.
 * Serial: one server at a time (the database layer is a per-process singleton).
 */
let browser: Browser;
let site: http.Server;
let siteOrigin: string;

test.before(async () => {
  browser = await launchChromium();
  // `new http.Server`, not createServer: the suite's OpenAPI recorder (test/openapi/record.ts) wraps
  // createServer, and this page is not the API.
  site = new http.Server((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>A tabletop on another origin</title><p>overlay</p>');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteOrigin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});

test.after.always(async () => {
  await browser?.close();
  await new Promise((resolve) => site?.close(resolve));
});

async function withServer(env: Record<string, string>, fn: (server: TestServer) => Promise<void>) {
  const server = await startTestServer(env);
  try {
    await fn(server);
  } finally {
    await server.stop();
  }
}

async function openSite(): Promise<{ page: Page; log: string[] }> {
  const page = await browser.newPage();
  const log: string[] = [];
  watchPage(page, log);
  await page.goto(siteOrigin);
  return { page, log };
}

interface Answer {
  ok: boolean;
  status?: number;
  body?: any;
  remaining?: string | null;
  retryAfter?: string | null;
  requestId?: string | null;
  error?: string;
}

/** fetch from inside the page: what the page itself can read of the answer. */
function call(page: Page, url: string, init: { method?: string; key?: string; body?: unknown; credentials?: RequestCredentials }): Promise<Answer> {
  return page.evaluate(
    async ({ url, init }) => {
      const headers: Record<string, string> = {};
      if (init.key) headers.Authorization = `Bearer ${init.key}`;
      if (init.body !== undefined) headers['Content-Type'] = 'application/json';
      try {
        const res = await fetch(url, {
          method: init.method ?? 'GET',
          headers,
          body: init.body === undefined ? undefined : JSON.stringify(init.body),
          credentials: init.credentials ?? 'same-origin',
        });
        return {
          ok: true,
          status: res.status,
          body: await res.json(),
          remaining: res.headers.get('RateLimit-Remaining'),
          retryAfter: res.headers.get('Retry-After'),
          requestId: res.headers.get('X-Request-Id'),
        };
      } catch (err) {
        return { ok: false, error: String(err) };
      }
    },
    { url, init },
  );
}

test.serial('a page on another origin gets a key, rolls, and reads the roll and RateLimit-Remaining', async (t) => {
  await withServer({ RATE_LIMIT_PER_MINUTE: '4' }, async (server) => {
    t.not(new URL(server.url).origin, siteOrigin);
    const { page, log } = await openSite();
    const api = `${server.url}/api/1.0`;

    const guest = await call(page, `${api}/user`, { method: 'POST' });
    t.true(guest.ok, guest.error);
    t.is(guest.status, 201);
    const key = guest.body.data as string;

    // A JSON POST with a key: the browser preflights it, then sends it.
    const rolled = await call(page, `${api}/roll`, { method: 'POST', key, body: { equation: '3d6+2', theme: 'standard', label: 'from another origin' } });
    t.true(rolled.ok, rolled.error);
    t.is(rolled.status, 201);
    t.is(rolled.body.type, 'roll');
    t.is(rolled.body.data.label, 'from another origin');
    t.is(rolled.body.data.values.length, 4);
    t.is(rolled.remaining, '3', 'RateLimit-Remaining is readable');
    t.regex(rolled.requestId ?? '', /^[0-9a-f-]{36}$/, 'X-Request-Id is readable');

    // The same roll through the REST API as the server stores it.
    const stored = await server.api.as(key).get(`/roll/${rolled.body.data.uuid}`);
    t.is(stored.body.data.total_value, rolled.body.data.total_value);

    // A request in credentials mode (as the dddice SDK's /broadcasting/auth call is) works too.
    const credentialed = await call(page, `${api}/roll/${rolled.body.data.uuid}`, { key, credentials: 'include' });
    t.true(credentialed.ok, credentialed.error);
    t.is(credentialed.status, 200);
    t.is(credentialed.remaining, '1');

    // Errors are readable: the page can show the server's message.
    const unknown = await call(page, `${api}/user`, { key: 'dk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
    t.is(unknown.status, 401);
    t.is(unknown.body.data.code, 'unauthorized');
    await call(page, `${api}/user`, { key });
    const limited = await call(page, `${api}/user`, { key });
    t.true(limited.ok, limited.error);
    t.is(limited.status, 429);
    t.is(limited.body.data.code, 'rate_limited');
    t.regex(limited.retryAfter ?? '', /^\d+$/, 'Retry-After is readable');
    // The browser logs the 401 and the 429 it received, and nothing about CORS.
    t.deepEqual(
      log.filter((line) => /CORS|Access-Control|blocked/i.test(line)),
      [],
    );
    t.is(log.length, 2, log.join('\n'));
    await page.close();
  });
});

test.serial('the same page is refused when CORS_ORIGINS leaves its origin out', async (t) => {
  await withServer({ CORS_ORIGINS: 'https://vtt.example' }, async (server) => {
    const { key } = await server.newUser();
    const { page } = await openSite();
    const api = `${server.url}/api/1.0`;
    for (const [what, init] of [
      ['a roll', { method: 'POST', key, body: { equation: '1d20', theme: 'standard' } }],
      ['a read', { key }],
      ['the document', {}],
    ] as const) {
      const answer = await call(page, `${api}${what === 'a roll' ? '/roll' : what === 'a read' ? '/user' : '/openapi.json'}`, init);
      t.false(answer.ok, `${what}: ${JSON.stringify(answer)}`);
      t.regex(answer.error ?? '', /Failed to fetch/, what);
    }
    const rolls = await server.api.as(key).get('/user');
    t.is(rolls.status, 200, 'the key itself is fine: only the browser refused');
    await page.close();
  });
  // And when the list names the page's origin, the page works again.
  await withServer({ CORS_ORIGINS: `https://vtt.example,${siteOrigin}` }, async (server) => {
    const { key } = await server.newUser();
    const { page } = await openSite();
    const rolled = await call(page, `${server.url}/api/1.0/roll`, { method: 'POST', key, body: { equation: '1d20', theme: 'standard' } });
    t.true(rolled.ok, rolled.error);
    t.is(rolled.status, 201);
    await page.close();
  });
});
