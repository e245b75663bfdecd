import test from 'ava';
import { useServer } from '../helpers/server';
import { request } from '../helpers/http';
import { manifest, postTheme } from '../fixtures/themes';

/**
 * The dice pages over HTTP (src/pages/diceBox/routes.ts): /dice-box, /dice/{themeId}, their assets;
 * values reach the HTML only escaped, and a theme id that names no theme is a 404 page (HTML), not
 * JSON. The share link's page (/share/{code}) is in shareRequests.test.ts; the pages in a browser in
 * test/browser/diceBox.test.ts and themePage.test.ts.
 */
const ctx = useServer(test);
const page = (path: string) => request(`${ctx.server.url}${path}`, 'GET', { headers: { accept: 'text/html' } });

test("/dice-box and /dice/{themeId}: the pages' shell with their script, private headers", async (t) => {
  for (const path of ['/dice-box', '/dice/standard']) {
    const res = await page(path);
    t.is(res.status, 200, path);
    t.regex(res.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/);
    t.regex(res.headers.get('content-security-policy') ?? '', /script-src 'self'.*frame-ancestors 'none'/);
    t.is(res.headers.get('cache-control'), 'no-store');
    const script = /<script type="module" src="([^"]+)"/.exec(res.text)?.[1];
    t.regex(script ?? '', /^\/dice-pages\/assets\/(diceBox|theme)\.js\?v=\w{16}$/);
    const js = await request(`${ctx.server.url}${script}`, 'GET');
    t.is(js.status, 200);
    t.regex(js.headers.get('content-type') ?? '', /javascript/);
    t.regex(js.headers.get('cache-control') ?? '', /immutable/);
    const style = /<link rel="stylesheet" href="([^"]+)"/.exec(res.text)?.[1]?.replace(/&amp;/g, '&');
    const css = await request(`${ctx.server.url}${style}`, 'GET');
    t.is(css.status, 200);
    t.regex(css.headers.get('content-type') ?? '', /text\/css/);
  }
  t.true((await page('/dice/standard')).text.includes('data-theme="standard"'));
  t.is((await request(`${ctx.server.url}/dice-pages/assets/other.js`, 'GET')).status, 404);
  t.is((await request(`${ctx.server.url}/dice-pages/assets/dice.css?of=nothing`, 'GET')).status, 404);
});

test('a theme named <script> reaches its page only as text; a share page carries its name escaped', async (t) => {
  const owner = await ctx.server.newUser();
  const m = manifest({ name: '<script>alert(1)</script>', description: '"><img src=x onerror=alert(2)>' });
  t.is((await postTheme(owner.api, m)).status, 201);
  const res = await page(`/dice/${m.id}`);
  t.is(res.status, 200);
  t.false(res.text.includes('<script>alert'));
  t.false(res.text.includes('<img'));
  const link = (await owner.api.post('/share-request', { theme: m.id })).body.data;
  const shared = await page(`/share/${link.code}`);
  t.is(shared.status, 200);
  t.false(shared.text.includes('<script>alert'));
  t.false(shared.text.includes('<img'));
  t.true(shared.text.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
  t.true(shared.text.includes('&quot;&gt;&lt;img src=x onerror=alert(2)&gt;'));
});

test('an unknown theme id, or one that cannot be an id, is a 404 page in HTML, not JSON', async (t) => {
  for (const id of ['no-such-theme', encodeURIComponent('<script>alert(1)</script>'), 'x'.repeat(300), 'UPPER']) {
    const res = await page(`/dice/${id}`);
    t.is(res.status, 404, id);
    t.regex(res.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/, id);
    t.true(res.text.startsWith('<!doctype html>'), id);
    t.true(res.text.includes('data-refusal-title="No such theme"'), id);
    t.false(res.text.includes('<script>alert'), id);
  }
  // The theme exists no more once deleted.
  const owner = await ctx.server.newUser();
  const m = manifest();
  t.is((await postTheme(owner.api, m)).status, 201);
  t.is((await page(`/dice/${m.id}`)).status, 200);
  t.is((await owner.api.delete(`/theme/${m.id}`)).status, 204);
  t.is((await page(`/dice/${m.id}`)).status, 404);
});
