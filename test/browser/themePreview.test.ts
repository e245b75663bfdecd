import test from 'ava';
import type { Browser } from 'playwright-core';
import { useServer } from '../helpers/server';
import { png } from '../fixtures/assets';
import { manifest, postTheme } from '../fixtures/themes';
import { launchChromium, screenshot, watchPage } from './chromium';

/**
 * The theme preview page in a real browser, as someone who got a share link opens it: from the share
 * page's link, no key anywhere; the dice listed with their faces, an image face loaded from its keyless
 * URL under the page's Content-Security-Policy. Screenshot in test-artifacts/.
 */
const ctx = useServer(test);
let browser: Browser;

test.before(async () => {
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
});

test('from the share page to the preview: the theme\'s dice with their faces, an image face loaded without a key', async (t) => {
  const owner = await ctx.server.newUser();
  const m = manifest({
    name: 'Meadow',
    label: { color: '#ffffff', background_color: '#1b5e20' },
    available_dice: ['d4', { id: 'wild', type: 'd6', notation: 'dW' }],
    values: { wild: ['leaf', 'sun', 'rain', 'wind', 'moon', { src: 'star.png' }] },
  });
  const created = await postTheme(owner.api, m, [{ name: 'star.png', data: png([255, 220, 0, 255]) }]);
  t.is(created.status, 201, created.text);
  const link = (await owner.api.post('/share-request', { theme: m.id })).body.data;

  const context = await browser.newContext();
  const page = await context.newPage();
  const log: string[] = [];
  watchPage(page, log);
  const failed: string[] = [];
  page.on('requestfailed', (r) => failed.push(r.url()));
  await page.goto(`${ctx.server.url}/share/${link.code}`);
  await page.click('#preview');
  await page.waitForSelector('body[data-state="ready"], body[data-state="error"]', { timeout: 30_000 });
  t.is(await page.getAttribute('body', 'data-state'), 'ready', log.join('\n'));
  t.is(await page.textContent('h1'), 'Meadow');
  const dice = await page.$$eval('#dice > li', (items) => items.map((li) => ({ id: (li as HTMLElement).dataset.die, type: (li as HTMLElement).dataset.type, faces: Array.from(li.querySelectorAll('.faces > li')).map((f) => f.textContent) })));
  t.deepEqual(dice, [
    { id: 'd4', type: 'd4', faces: [] },
    { id: 'wild', type: 'd6', faces: ['leaf', 'sun', 'rain', 'wind', 'moon', ''] },
  ]);
  const image = await page.$eval('img.face-image', (img) => ({ src: (img as HTMLImageElement).src, width: (img as HTMLImageElement).naturalWidth, complete: (img as HTMLImageElement).complete }));
  t.is(image.src, created.body.data.values.wild[5].src);
  await page.waitForFunction(() => (document.querySelector('img.face-image') as HTMLImageElement).naturalWidth > 0, null, { timeout: 10_000 });
  t.deepEqual(failed, []);
  t.deepEqual(log, []);
  await screenshot(page, 'theme-preview.png');
  await context.close();
});
