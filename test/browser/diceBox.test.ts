import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { useServer } from '../helpers/server';
import { manifest, postTheme } from '../fixtures/themes';
import { useChromium, watchPage } from './chromium';
import { checkPage } from './pageChecks';

/**
 * The dice box page (/dice-box) in Chromium, by clicks and typing: a user's themes each with a picture
 * drawn by the board's renderer, the filter, Upgrade to latest (the API then shows the new version) and
 * Remove (the API then has it out of the box). axe-core and 375 px; screenshots in
 * $DICE_SCREENSHOTS (default: a temporary directory), to be looked at.
 */
const ctx = useServer(test);
const chrome = useChromium(test);
const logs: string[] = [];
test.afterEach.always((t) => {
  if (!t.passed && logs.length) t.log(logs.join('\n'));
});
const SHOTS = process.env.DICE_SCREENSHOTS ?? fs.mkdtempSync(path.join(os.tmpdir(), 'dice-pages-'));
fs.mkdirSync(SHOTS, { recursive: true });

/** A browser context whose pages use `key` as this browser's guest key (src/pages/client/pageKey.ts). */
async function browserWithKey(key: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript((k) => localStorage.setItem('openDice.apiKey', k), key);
  const page = await context.newPage();
  watchPage(page, logs);
  return { context, page };
}

/** Share of a picture's pixels that are not the stage's plain background: dice were drawn on it. */
async function drawnShare(page: Page, selector: string): Promise<number> {
  return page.$eval(selector, async (img) => {
    const image = img as HTMLImageElement;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = image.naturalWidth;
    canvas.height = image.naturalHeight;
    const g = canvas.getContext('2d')!;
    g.drawImage(image, 0, 0);
    const { data } = g.getImageData(0, 0, canvas.width, canvas.height);
    let drawn = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i + 3]! > 0) drawn++;
    return drawn / (data.length / 4);
  });
}

test.serial("a user's dice box: each theme with a picture of its dice, filter, upgrade to the latest version, remove", async (t) => {
  t.timeout(180_000);
  const owner = await ctx.server.newUser();
  const taker = await ctx.server.newUser();
  const m = manifest({
    name: 'Oak Grove',
    description: 'Wooden dice.',
    label: { color: '#ffffff', background_color: '#7a4b1e' },
    available_dice: ['d6', 'd20'],
    uniforms: { tint: { type: 'color', value: '#a0522d' } },
  });
  t.is((await postTheme(owner.api, m)).status, 201);
  const link = (await owner.api.post('/share-request', { theme: m.id })).body.data;
  t.is((await taker.api.post(`/share-request/code/${link.code}/accept`)).status, 200);
  t.is((await postTheme(owner.api, { ...m, version: '1.1.0', label: { color: '#ffffff', background_color: '#2e7d32' } })).status, 201);
  t.is((await taker.api.get(`/dice-box/${m.id}`)).body.data.version, '1.0.0', 'the box stays at the version accepted');

  const { context, page } = await browserWithKey(taker.key);
  const res = await page.goto(`${ctx.server.url}/dice-box`);
  t.is(res?.status(), 200);
  await page.getByRole('heading', { name: 'My dice box' }).waitFor();
  const card = page.locator(`li.theme[data-theme="${m.id}"]`);
  await card.waitFor();
  t.is(await card.getAttribute('data-version'), '1.0.0');
  t.true((await page.locator('li.theme').count()) >= 2, 'the public themes are in the box too');
  // Every theme's picture is drawn (a data: URL from the renderer, with dice on it).
  await page.waitForFunction(() => Array.from(document.querySelectorAll('li.theme')).every((li) => li.querySelector('img.preview')), null, { timeout: 60_000 });
  // How long the page took to have every picture (a figure for docs/pages.md; nothing is asserted on it).
  t.log(
    `${await page.locator('li.theme').count()} pictures drawn ${Math.round((await page.evaluate('performance.now()')) as number)} ms after the page started loading (its script bundled on this first view)`,
  );
  await page.reload();
  await page.waitForFunction(
    () => document.querySelectorAll('li.theme').length > 0 && Array.from(document.querySelectorAll('li.theme')).every((li) => li.querySelector('img.preview')),
    null,
    { timeout: 60_000 },
  );
  t.log(`again: ${Math.round((await page.evaluate('performance.now()')) as number)} ms`);
  for (const id of [m.id as string, 'standard']) {
    const share = await drawnShare(page, `li.theme[data-theme="${id}"] img.preview`);
    t.true(share > 0.02, `${id}: dice drawn on its picture (${share})`);
  }
  t.is(await card.getByRole('link', { name: 'Oak Grove' }).getAttribute('href'), `/dice/${m.id}`);
  await card.getByText('Version 1.1.0 is out.').waitFor();
  await checkPage(t, page, 'dice-box', { shots: SHOTS });

  // Filter by typing.
  await page.getByLabel('Filter themes').fill('grove');
  await page.waitForFunction(() => document.querySelectorAll('li.theme').length === 1, null, { timeout: 10_000 });
  t.is(await page.locator('li.theme').getAttribute('data-theme'), m.id as string);
  await page.getByLabel('Filter themes').fill('no theme is called this');
  await page.locator('#empty').waitFor();
  await page.getByLabel('Filter themes').fill('');
  await card.waitFor();

  // Upgrade: the card and the API show the new version.
  await page.getByRole('button', { name: 'Upgrade to latest: Oak Grove 1.1.0' }).click();
  await page.locator(`li.theme[data-theme="${m.id}"][data-version="1.1.0"]`).waitFor();
  t.is((await taker.api.get(`/dice-box/${m.id}`)).body.data.version, '1.1.0', 'the API shows the new version');
  t.is(await page.getByRole('button', { name: /^Upgrade to latest: Oak Grove/ }).count(), 0, 'nothing newer now');
  await page.screenshot({ path: path.join(SHOTS, 'dice-box-upgraded.png'), fullPage: true });

  // Remove, after the question.
  await page.getByRole('button', { name: 'Remove Oak Grove' }).click();
  const question = page.getByRole('group', { name: 'Remove "Oak Grove" from your dice box?' });
  await question.getByRole('button', { name: 'Remove' }).click();
  await card.waitFor({ state: 'detached' });
  t.is((await taker.api.get(`/dice-box/${m.id}`)).status, 404, 'the API has it out of the box');

  // A public theme cannot be removed: the API's sentence shows beside it.
  await page.getByRole('button', { name: 'Remove Standard' }).click();
  await page.getByRole('group', { name: 'Remove "Standard" from your dice box?' }).getByRole('button', { name: 'Remove' }).click();
  const refusal = page.locator('#theme-standard-remove');
  await refusal.filter({ hasText: /./ }).waitFor();
  t.regex((await refusal.textContent())!, /public theme/);
  t.is((await taker.api.get('/dice-box/standard')).status, 200);
  await context.close();
  t.deepEqual(
    logs.filter((l) => !l.includes('403')),
    [],
  );
});

test.serial('a browser with no key is offered to sign in or play as a guest, and then sees its dice box', async (t) => {
  t.timeout(90_000);
  const context = await chrome.browser.newContext();
  const page = await context.newPage();
  watchPage(page, logs);
  await page.goto(`${ctx.server.url}/dice-box`);
  await page.getByText('This browser has no dice box yet.').waitFor();
  t.is(await page.getByRole('link', { name: 'Sign in' }).first().getAttribute('href'), '/signin?next=%2Fdice-box');
  await page.getByRole('button', { name: 'Play as a guest' }).click();
  await page.locator('li.theme[data-theme="standard"]').waitFor();
  t.truthy(await page.evaluate(() => localStorage.getItem('openDice.apiKey')));
  await context.close();
});
