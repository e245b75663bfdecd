import test from 'ava';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext } from 'playwright-core';
import { useServer } from '../helpers/server';
import { useChromium, watchPage } from './chromium';

/**
 * The board joins rooms with the key the browser keeps, so a link or another site must not make it
 * join one: opened with that key on a room the user is not a player of, it asks first and joins only on
 * its Join button; another site cannot frame it (`frame-ancestors 'self'`), while the overlay, which
 * streaming tools and integrations frame, stays framable and never offers to join.
 */
const ctx = useServer(test);
const chrome = useChromium(test);
const logs: string[] = [];
test.afterEach.always((t) => {
  if (!t.passed && logs.length) t.log(logs.join('\n'));
});

type P = { user: { uuid: string } };

async function publicRoom() {
  const owner = await ctx.server.newUser();
  const created = await owner.api.post('/room', { name: 'Open table', is_public: true });
  if (created.status !== 201) throw new Error(created.text);
  const slug = created.body.data.slug as string;
  const players = async () => ((await owner.api.get(`/room/${slug}`)).body.data.participants as P[]).map((p) => p.user.uuid);
  return { owner, slug, players };
}

/** A browser profile that already keeps `key` for this server, as after an earlier visit. */
async function browserKeeping(key: string): Promise<BrowserContext> {
  const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript((k) => {
    if (location.protocol === 'http:' && location.pathname.startsWith('/board/')) localStorage.setItem('openDice.apiKey', k);
  }, key);
  return context;
}

test("the board page may be framed by this server's pages only; the overlay by any site", async (t) => {
  const board = await fetch(`${ctx.server.url}/board/abc123`);
  t.regex(board.headers.get('content-security-policy') ?? '', /; frame-ancestors 'self'$/);
  t.is(board.headers.get('x-frame-options'), 'SAMEORIGIN');
  const overlay = await fetch(`${ctx.server.url}/board/abc123?overlay=1`);
  t.is(overlay.status, 200);
  t.notRegex(overlay.headers.get('content-security-policy') ?? '', /frame-ancestors/);
  t.regex(overlay.headers.get('content-security-policy') ?? '', /script-src 'self'/, 'the rest of the policy stays');
  t.is(overlay.headers.get('x-frame-options'), null);
});

test('opened with a kept key on a room the user has not joined, the board asks, and joins only on Join', async (t) => {
  const { slug, players } = await publicRoom();
  const visitor = await ctx.server.newUser();
  const context = await browserKeeping(visitor.key);
  const page = await context.newPage();
  watchPage(page, logs);
  await page.goto(`${ctx.server.url}/board/${slug}`);

  await page.locator('#join').waitFor({ state: 'visible', timeout: 20_000 });
  t.is(await page.locator('#join-title').textContent(), 'Join "Open table"?');
  t.is(await page.evaluate(() => document.activeElement?.id), 'join-confirm', 'the question has the focus');
  t.false(await page.locator('#board').isVisible());
  t.false((await players()).includes(visitor.user.uuid), 'not joined before the click');

  await page.click('#join-confirm');
  await page.locator('#connection[data-state="online"]').waitFor({ state: 'attached', timeout: 20_000 });
  t.true((await players()).includes(visitor.user.uuid), 'joined on the click');

  // A player now: the same kept key goes straight in.
  await page.reload();
  await page.locator('#connection[data-state="online"]').waitFor({ state: 'attached', timeout: 20_000 });
  t.false(await page.locator('#join').isVisible());
  await context.close();
});

test('another site framing the board gets nothing; the framed overlay does not join either', async (t) => {
  const { slug, players } = await publicRoom();
  const visitor = await ctx.server.newUser();
  const context = await browserKeeping(visitor.key);
  const page = await context.newPage();
  watchPage(page, logs);
  const board = `${ctx.server.url}/board/${slug}`;
  // Another origin (another port) on the same machine: Chromium keeps pages of public sites from
  // framing a loopback server at all, which would prove nothing about the board's own policy.
  // `new http.Server`, not createServer: the suite's OpenAPI recorder (test/openapi/record.ts) wraps
  // createServer, and this page is not the API.
  const elsewhere = new http.Server((_req, res) => {
    res.setHeader('Content-Type', 'text/html');
    res.end(`<iframe id="board" src="${board}"></iframe><iframe id="overlay" src="${board}?overlay=1"></iframe>`);
  });
  await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
  t.teardown(() => elsewhere.close());
  await page.goto(`http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/`);

  const overlay = page.frameLocator('#overlay');
  await overlay.locator('#fatal').waitFor({ state: 'visible', timeout: 20_000 });
  t.regex((await overlay.locator('#fatal').textContent()) ?? '', /not a player of "Open table"/);
  t.is(await overlay.locator('#join').count(), 1);
  t.false(await overlay.locator('#join').isVisible(), 'no Join button in a frame any site may draw');

  // The board's frame was refused by the browser: none of its page is there.
  const framed = page.frames().find((f) => f.url() === board || f.url().startsWith('chrome-error:'));
  const screen = framed ? await framed.evaluate(() => document.body?.dataset.screen ?? null).catch(() => null) : null;
  t.is(screen, null, 'the board did not run inside another site');
  t.false((await players()).includes(visitor.user.uuid), 'neither frame joined the room');
  await context.close();
});
