import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { useServer } from '../helpers/server';
import { useChromium, watchPage } from './chromium';
import { seriousViolations } from './pageChecks';

/**
 * The board checks every roll it shows in the browser (src/board/verify.ts, Web Crypto) and marks it
 * "verified", linking to /fairness: a roll typed into the form (which sends its own client seed), a
 * hidden die (verified for its roller; "not yet" for the others), and a ledger answer tampered with on
 * the way (the mark says the check failed). Screenshots in FAIRNESS_SCREENSHOTS (or a temporary directory).
 */
const ctx = useServer(test);
const chrome = useChromium(test);
const logs: string[] = [];
const SHOTS = process.env.FAIRNESS_SCREENSHOTS ?? fs.mkdtempSync(path.join(os.tmpdir(), 'fairness-pages-'));
fs.mkdirSync(SHOTS, { recursive: true });

async function fitsWidth(page: Page): Promise<boolean> {
  const [scrollWidth, innerWidth] = (await page.evaluate('[document.documentElement.scrollWidth, window.innerWidth]')) as [number, number];
  return scrollWidth <= innerWidth;
}

const mark = (page: Page, uuid: string) => page.locator(`#rolls li[data-roll-uuid="${uuid}"] a.fair`);

test('the board marks each roll verified after checking it in the browser; hidden dice wait; a tampered ledger fails', async (t) => {
  t.timeout(180_000);
  const owner = await ctx.server.newUser();
  const player = await ctx.server.newUser();
  const { slug } = (await owner.api.post('/room', { name: 'Fair table' })).body.data;
  t.is((await player.api.post(`/room/${slug}/participant`, {})).status, 200);

  const ownerContext = await chrome.browser.newContext({ viewport: { width: 1280, height: 800 } });
  const playerContext = await chrome.browser.newContext({ viewport: { width: 1280, height: 800 } });
  const a = await ownerContext.newPage();
  const b = await playerContext.newPage();
  watchPage(a, logs);
  watchPage(b, logs);
  const sent: string[] = [];
  a.on('request', (r) => {
    if (r.method() === 'POST' && r.url().endsWith('/api/1.0/roll')) sent.push(r.postData() ?? '');
  });
  await a.goto(`${ctx.server.url}/board/${slug}#key=${owner.key}`);
  await b.goto(`${ctx.server.url}/board/${slug}#key=${player.key}`);
  for (const p of [a, b]) await p.locator('#connection[data-state="online"]').waitFor({ state: 'attached', timeout: 20_000 });

  // Typed and clicked: the board sends 16 random bytes of client seed with the roll
  await a.fill('#equation', '2d6+1d20');
  await a.click('#roll-button');
  const first = await a.waitForFunction(() => (document.querySelector('#rolls li') as HTMLElement | null)?.dataset.rollUuid ?? null, null, { timeout: 20_000 });
  const uuid = (await first.jsonValue()) as string;
  const body = JSON.parse(sent[0]!) as { client_seed?: string };
  t.regex(body.client_seed ?? '', /^[0-9a-f]{32}$/);
  t.is((await owner.api.get(`/roll/${uuid}`)).body.data.fairness.client_seed, body.client_seed);
  for (const p of [a, b]) {
    await mark(p, uuid).waitFor({ timeout: 20_000 });
    t.is(await mark(p, uuid).getAttribute('data-fairness'), 'verified');
    t.is(await mark(p, uuid).textContent(), '✓ verified');
    t.is(await mark(p, uuid).getAttribute('href'), '/fairness');
  }

  // A hidden die: its roller verifies it, the other player cannot yet; once revealed, they can
  await a.fill('#equation', '1d20');
  await a.check('#hidden-roll');
  await a.click('#roll-button');
  const second = await a.waitForFunction(
    (seen) => {
      const id = (document.querySelector('#rolls li') as HTMLElement | null)?.dataset.rollUuid;
      return id && id !== seen ? id : null;
    },
    uuid,
    { timeout: 20_000 },
  );
  const hidden = (await second.jsonValue()) as string;
  await mark(a, hidden).waitFor({ timeout: 20_000 });
  await mark(b, hidden).waitFor({ timeout: 20_000 });
  t.is(await mark(a, hidden).getAttribute('data-fairness'), 'verified');
  t.is(await mark(b, hidden).getAttribute('data-fairness'), 'partial');
  t.regex((await mark(b, hidden).getAttribute('title')) ?? '', /hidden from you/);
  await b.screenshot({ path: path.join(SHOTS, 'board-verified-1280.png') });
  const die = (await owner.api.get(`/roll/${hidden}`)).body.data.values[0].uuid;
  t.is((await owner.api.patch(`/roll/${hidden}`, { dice: [{ uuid: die, is_hidden: false }] })).status, 200);
  await b.waitForFunction((id) => document.querySelector(`#rolls li[data-roll-uuid="${id}"] a.fair`)?.getAttribute('data-fairness') === 'verified', hidden, {
    timeout: 20_000,
  });
  t.pass('revealed: verified for the other player too');

  await b.setViewportSize({ width: 375, height: 740 });
  t.true(await fitsWidth(b), 'the board at 375 px: nothing scrolls sideways');
  t.deepEqual(await seriousViolations(b, '#rolls'), [], 'the roll list with its marks: no serious or critical axe violation');
  await b.screenshot({ path: path.join(SHOTS, 'board-verified-375.png') });

  // A ledger answer altered on its way in: the board says the check failed
  const third = await playerContext.newPage();
  watchPage(third, []);
  await third.route('**/api/1.0/room/*/fairness', async (route) => {
    const res = await route.fetch();
    const json = await res.json();
    for (const batch of json.data.batches) batch.root = batch.root.replace(/^./, (c: string) => (c === '0' ? '1' : '0'));
    await route.fulfill({ response: res, json });
  });
  await third.goto(`${ctx.server.url}/board/${slug}#key=${player.key}`);
  await mark(third, uuid).waitFor({ timeout: 20_000 });
  t.is(await mark(third, uuid).getAttribute('data-fairness'), 'failed');
  t.regex((await mark(third, uuid).getAttribute('title')) ?? '', /published root check failed/);
  await third.screenshot({ path: path.join(SHOTS, 'board-tampered-1280.png') });

  // What the mark means: the page it links to
  const explain = await playerContext.newPage();
  watchPage(explain, logs);
  await explain.goto(`${ctx.server.url}/fairness`);
  t.is(await explain.locator('h1').textContent(), 'Dice you can check');
  for (const width of [1280, 375]) {
    await explain.setViewportSize({ width, height: width === 375 ? 740 : 800 });
    t.deepEqual(await seriousViolations(explain), [], `/fairness at ${width} px`);
    t.true(await fitsWidth(explain), `/fairness at ${width} px: nothing scrolls sideways`);
    await explain.screenshot({ path: path.join(SHOTS, `fairness-page-${width}.png`), fullPage: true });
  }
  t.deepEqual(
    logs.filter((l) => /error/i.test(l)),
    [],
  );
  t.log(`screenshots: ${SHOTS}`);
  await ownerContext.close();
  await playerContext.close();
});
