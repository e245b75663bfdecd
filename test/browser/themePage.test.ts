import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { useServer } from '../helpers/server';
import { png } from '../fixtures/assets';
import { manifest, postTheme } from '../fixtures/themes';
import { useChromium, watchPage } from './chromium';
import { checkPage } from './pageChecks';

/**
 * A theme's page (/dice/{id}) and its share links in Chromium, by clicks and typing: every version, the
 * chosen one's dice resting face up in 3D, the manifest in words; the owner creates a share link and
 * copies it; another person, signed up on the way, accepts it on the link's page and their open dice
 * box shows the theme at once; the owner revokes it and the link answers a clear refusal. axe-core and
 * 375 px; screenshots in $DICE_SCREENSHOTS (default: a temporary directory), to be looked at.
 */
const ctx = useServer(test);
const chrome = useChromium(test);
const logs: string[] = [];
test.afterEach.always((t) => {
  if (!t.passed && logs.length) t.log(logs.join('\n'));
  logs.length = 0;
});
const SHOTS = process.env.DICE_SCREENSHOTS ?? fs.mkdtempSync(path.join(os.tmpdir(), 'dice-pages-'));
fs.mkdirSync(SHOTS, { recursive: true });

async function newContext(key: string | null, permissions: string[] = []): Promise<{ context: BrowserContext; page: Page }> {
  const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 800 }, permissions });
  if (key) await context.addInitScript((k) => localStorage.setItem('openDice.apiKey', k), key);
  const page = await context.newPage();
  watchPage(page, logs);
  return { context, page };
}

type Drawn = { dieId: string; top: number; topText: string | null; flat: number };
const drawnDice = (page: Page) => page.evaluate(() => (window as unknown as { __themePage: { dice(): Drawn[] } }).__themePage.dice());

test.serial(
  'the theme page: versions, dice face up in 3D, the manifest in words; a share link made, copied, accepted by someone who signs up on the way (their open dice box shows it at once), revoked',
  async (t) => {
    t.timeout(240_000);
    const owner = await ctx.server.newUser();
    const m = manifest({
      name: 'Ember <b>Stones</b>',
      description: 'Hot dice.',
      label: { color: '#ffffff', background_color: '#b33a00' },
      available_dice: ['d6', { id: 'sun', type: 'd4', notation: 'dS' }],
      values: { sun: ['ray', 'glow', 'flare', { src: 'star.png' }] },
      sizes: { d6: 1.2 },
      uniforms: { tint: { type: 'color', value: '#ff8800' }, gloss: { type: 'f', value: 0.5, min: 0, max: 1 }, wobble: { type: 'vec3', value: [1, 2, 3] } },
    });
    t.is((await postTheme(owner.api, { ...m, version: '1.0.0' }, [{ name: 'star.png', data: png([255, 220, 0, 255]) }])).status, 201);
    t.is(
      (await postTheme(owner.api, { ...m, version: '1.1.0', description: 'Hotter dice.' }, [{ name: 'star.png', data: png([255, 220, 0, 255]) }])).status,
      201,
    );

    const { context: ownerContext, page } = await newContext(owner.key, ['clipboard-read', 'clipboard-write']);
    t.is((await page.goto(`${ctx.server.url}/dice/${m.id}`))?.status(), 200);
    await page.getByRole('heading', { name: 'Ember <b>Stones</b>', level: 1 }).waitFor();
    await page.locator('#stage[data-state="ready"][data-version="1.1.0"]').waitFor({ timeout: 60_000 });
    t.deepEqual(await page.locator('#versions > li').evaluateAll((items) => items.map((li) => (li as HTMLElement).dataset.version)), ['1.1.0', '1.0.0']);
    // Each die rests with its last face up, flat.
    const dice = await drawnDice(page);
    t.deepEqual(
      dice.map((d) => [d.dieId, d.top]),
      [
        ['d6', 6],
        ['sun', 4],
      ],
    );
    t.true(
      dice.every((d) => d.flat > 0.99),
      JSON.stringify(dice),
    );
    const words = (await page.locator('#manifest').textContent())!;
    for (const said of [
      'Hotter dice.',
      'text #ffffff',
      'background #b33a00',
      'size 1.2',
      'tint: colour #ff8800; a colour picker in the dice editor',
      'gloss: number 0.5, from 0 to 1; a slider in the dice editor',
      'wobble: vec3 (1, 2, 3); not shown in the dice editor',
      'star.png',
    ]) {
      t.true(words.includes(said), `the manifest says "${said}": ${words}`);
    }
    t.deepEqual(
      await page
        .getByRole('list', { name: 'Faces of dS' })
        .locator('li')
        .evaluateAll((items) => items.map((li) => li.textContent || li.querySelector('img')?.getAttribute('alt'))),
      ['ray', 'glow', 'flare', 'face 4: image star.png'],
    );
    t.is(await page.getByRole('link', { name: 'New version' }).getAttribute('href'), `/dice/${m.id}/edit`);
    await page.getByRole('button', { name: 'Show version 1.0.0' }).click();
    await page.locator('#stage[data-state="ready"][data-version="1.0.0"]').waitFor({ timeout: 60_000 });
    t.true((await page.locator('#manifest').textContent())!.includes('Hot dice.'));
    await checkPage(t, page, 'theme-page', { shots: SHOTS });

    // A share link: made with the form, copied with the button.
    await page.getByLabel('Uses allowed').fill('3');
    await page.getByRole('button', { name: 'Create a share link' }).click();
    const item = page.locator('#share-links > li').first();
    await item.waitFor();
    const url = (await item.getByRole('textbox').inputValue())!;
    t.regex(url, new RegExp(`^${ctx.server.url}/share/[\\w-]{22}$`));
    t.true((await item.textContent())!.includes('0 uses of 3'));
    await item.getByRole('button', { name: 'Copy link' }).click();
    await page.getByText('Link copied.').waitFor();
    t.is(await page.evaluate(() => navigator.clipboard.readText()), url);
    await checkPage(t, page, 'theme-page-shared', { shots: SHOTS, dark: false });

    // Someone with no key opens it, signs up on the way, and comes back to the link's page.
    const { context: takerContext, page: link } = await newContext(null);
    t.is((await link.goto(url))?.status(), 200);
    await link.getByRole('heading', { name: /shared a dice theme with you/ }).waitFor();
    t.is(await link.locator('.theme-label').first().textContent(), 'Ember <b>Stones</b>', 'the name is text');
    await checkPage(t, link, 'share-page', { shots: SHOTS, dark: false });
    await link.getByRole('link', { name: 'Sign in' }).last().click();
    await link.waitForURL('**/signin?**');
    await link.getByRole('link', { name: 'Sign up' }).click();
    const username = `taker${Date.now() % 100_000}`;
    await link.getByLabel('Username').fill(username);
    await link.getByLabel('Password').fill('a box of dice');
    await link.getByRole('button', { name: 'Sign up' }).click();
    await link.waitForURL(url);

    // Their dice box, open in another tab, is live before they accept.
    const box = await takerContext.newPage();
    watchPage(box, logs);
    await box.goto(`${ctx.server.url}/dice-box`);
    await box.locator('li.theme[data-theme="standard"]').waitFor();
    await box.locator('body[data-live="online"]').waitFor({ state: 'attached', timeout: 20_000 });
    t.is(await box.locator(`li.theme[data-theme="${m.id}"]`).count(), 0);

    await link.getByRole('button', { name: 'Add to my dice box' }).click();
    await link.getByText('"Ember <b>Stones</b>" (version 1.1.0) is now in your dice box.').waitFor();
    await link.screenshot({ path: path.join(SHOTS, 'share-accepted.png'), fullPage: true });
    await box.locator(`li.theme[data-theme="${m.id}"][data-version="1.1.0"]`).waitFor({ timeout: 20_000 });
    await box.getByText('"Ember <b>Stones</b>" (version 1.1.0) is now in your dice box.').waitFor();
    await box.screenshot({ path: path.join(SHOTS, 'dice-box-arrived.png'), fullPage: true });

    // The owner sees the use, then revokes the link: it answers a clear refusal.
    await page.reload();
    const used = page.locator('#share-links > li').first();
    await used.getByText(/1 use of 3/).waitFor();
    await used.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('group', { name: 'Revoke this link?' }).getByRole('button', { name: 'Revoke link' }).click();
    await page.getByText('No link shares this theme.').waitFor();
    const { context: lateContext, page: late } = await newContext(null);
    t.is((await late.goto(url))?.status(), 410);
    await late.getByRole('heading', { name: 'This share link no longer works' }).waitFor();
    t.regex((await late.getByRole('alert').textContent())!, /revoked/);
    await checkPage(t, late, 'share-revoked', { shots: SHOTS, dark: false });
    const code = url.split('/').pop();
    t.is((await (await ctx.server.newUser()).api.post(`/share-request/code/${code}/accept`)).status, 410);

    await Promise.all([ownerContext.close(), takerContext.close(), lateContext.close()]);
    t.deepEqual(
      logs.filter((l) => !/\b410\b/.test(l)),
      [],
    );
  },
);

test.serial('without a key: a public theme shows; a private one says how to see it; an unknown id is a 404 page', async (t) => {
  t.timeout(120_000);
  const owner = await ctx.server.newUser();
  const m = manifest({ name: 'Hidden' });
  t.is((await postTheme(owner.api, m)).status, 201);
  const { context, page } = await newContext(null);
  t.is((await page.goto(`${ctx.server.url}/dice/standard`))?.status(), 200);
  await page.locator('#stage[data-state="ready"]').waitFor({ timeout: 60_000 });
  await page.getByText('Only the latest version shows without signing in.').waitFor();
  await page.goto(`${ctx.server.url}/dice/${m.id}`);
  await page.getByText('Only public themes show without signing in.').waitFor();
  // With a live share link's code in the address, as the preview always allowed.
  const link = (await owner.api.post('/share-request', { theme: m.id })).body.data;
  await page.goto(`${ctx.server.url}/dice/${m.id}?share=${link.code}`);
  await page.getByRole('heading', { name: 'Hidden', level: 1 }).waitFor();
  await page.locator('#stage[data-state="ready"]').waitFor({ timeout: 60_000 });
  const missing = await page.goto(`${ctx.server.url}/dice/no-such-theme`);
  t.is(missing?.status(), 404);
  t.regex(missing!.headers()['content-type']!, /^text\/html/);
  await page.getByRole('heading', { name: 'No such theme' }).waitFor();
  await checkPage(t, page, 'theme-missing', { shots: SHOTS, dark: false });
  await context.close();
  t.deepEqual(
    logs.filter((l) => !/\b404\b/.test(l)),
    [],
  );
});

test.serial('the owner deletes the theme from its page, after the question: it is gone from the API and its page is a 404', async (t) => {
  t.timeout(120_000);
  const owner = await ctx.server.newUser();
  const m = manifest({ name: 'Short-lived' });
  t.is((await postTheme(owner.api, m)).status, 201);
  const { context, page } = await newContext(owner.key);
  await page.goto(`${ctx.server.url}/dice/${m.id}`);
  await page.getByRole('button', { name: 'Delete theme' }).click();
  await page.getByRole('group', { name: 'Delete "Short-lived" and all its versions?' }).getByRole('button', { name: 'Delete theme' }).click();
  await page.getByRole('heading', { name: 'Theme deleted' }).waitFor();
  t.is((await owner.api.get(`/theme/${m.id}`)).status, 404);
  t.is((await page.goto(`${ctx.server.url}/dice/${m.id}`))?.status(), 404);
  await context.close();
});
