import test from 'ava';
import { useServer } from '../helpers/server';
import { png } from '../fixtures/assets';
import { manifest, postTheme } from '../fixtures/themes';
import { DEFAULT_THEME_ID } from '../../src/themes/defaultTheme';
import { useChromium, screenshot, watchPage } from './chromium';
import { PNG } from './png';
import { hex, share } from './table';

const GOLD = '#bf9f22';
const HIGHEST: Record<string, number> = { d4: 4, d6: 6, d8: 8, d10: 10, d12: 12, d20: 20 };

/**
 * The theme preview page in a real browser, as someone who got a share link opens it: from the share
 * page's link, no key anywhere; the dice listed with their faces, an image face loaded from its keyless
 * URL under the page's Content-Security-Policy. Screenshot in test-artifacts/.
 */
const ctx = useServer(test);
const chrome = useChromium(test);

test("from the share page to the preview: the theme's dice with their faces, an image face loaded without a key", async (t) => {
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

  const context = await chrome.browser.newContext();
  const page = await context.newPage();
  const log: string[] = [];
  watchPage(page, log);
  // A request the page itself abandoned (net::ERR_ABORTED, as when a list re-renders while an image is
  // loading) and made again is not a failure a person sees; the image is checked to load below.
  const failures: { url: string; error: string }[] = [];
  page.on('requestfailed', (r) => failures.push({ url: r.url(), error: r.failure()?.errorText ?? '?' }));
  await page.goto(`${ctx.server.url}/share/${link.code}`);
  await page.click('#preview');
  await page.waitForSelector('body[data-state="ready"], body[data-state="error"]', { timeout: 30_000 });
  t.is(await page.getAttribute('body', 'data-state'), 'ready', log.join('\n'));
  t.is(await page.textContent('h1'), 'Meadow');
  const dice = await page.$$eval('#dice > li', (items) =>
    items.map((li) => ({
      id: (li as HTMLElement).dataset.die,
      type: (li as HTMLElement).dataset.type,
      faces: Array.from(li.querySelectorAll('.faces > li')).map((f) => f.textContent),
    })),
  );
  t.deepEqual(dice, [
    { id: 'd4', type: 'd4', faces: [] },
    { id: 'wild', type: 'd6', faces: ['leaf', 'sun', 'rain', 'wind', 'moon', ''] },
  ]);
  const image = await page.$eval('img.face-image', (img) => ({
    src: (img as HTMLImageElement).src,
    width: (img as HTMLImageElement).naturalWidth,
    complete: (img as HTMLImageElement).complete,
  }));
  t.is(image.src, created.body.data.values.wild[5].src);
  await page.waitForFunction(() => (document.querySelector('img.face-image') as HTMLImageElement).naturalWidth > 0, null, { timeout: 10_000 });
  const finished = new Set(
    await page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .filter((e) => (e as PerformanceResourceTiming).responseStatus === 200)
        .map((e) => e.name),
    ),
  );
  t.deepEqual(
    failures.filter((f) => !(f.error === 'net::ERR_ABORTED' && finished.has(f.url))),
    [],
  );
  t.deepEqual(log, []);
  const shot = PNG.read(await screenshot(page, 'theme-preview.png'));
  // In 3D too: the wild die rests with its last face, the image, up, and the image shows on it.
  const wild = (await page.evaluate(() => (window as unknown as { __preview: { dice(): PreviewDie[] } }).__preview.dice())).find((d) => d.dieId === 'wild')!;
  t.is(wild.topText, 'star.png');
  t.true(share(shot, wild as never, [255, 220, 0], 60) > 0.1, `the image face is on the die: ${share(shot, wild as never, [255, 220, 0], 60)}`);
  await context.close();
});

interface PreviewDie {
  dieId: string;
  type: string;
  drawn: string;
  top: number;
  topText: string | null;
  flat: number;
  screen: { x: number; y: number; r: number };
}

/** The preview page of `path` once drawn: its dice as the renderer shows them, and a screenshot. */
async function openPreview(path: string, name: string) {
  const context = await chrome.browser.newContext({ viewport: { width: 1000, height: 720 } });
  const page = await context.newPage();
  const log: string[] = [];
  watchPage(page, log);
  await page.goto(`${ctx.server.url}${path}`);
  await page.waitForSelector('body[data-state="ready"], body[data-state="error"]', { timeout: 30_000 });
  const dice = await page.evaluate(() => (window as unknown as { __preview: { webgl: boolean; dice(): PreviewDie[] } }).__preview.dice());
  const image = PNG.read(await screenshot(page, name));
  return { page, context, log, dice, image, state: await page.getAttribute('body', 'data-state') };
}

test("the preview draws every die of the theme in 3D, resting with a face up, in the theme's colours; the built-in one in its gold", async (t) => {
  const owner = await ctx.server.newUser();
  const m = manifest({
    name: 'Magenta',
    label: { color: '#00ff00', background_color: '#ff00ff' },
    available_dice: ['d4', 'd6', 'd8', 'd10', 'd12', 'd20', { id: 'big', type: 'd20', notation: 'dB' }],
    values: { d6: ['a', 'b', 'c', 'd', 'e', 'top'] },
    sizes: { big: 1.5 },
  });
  const created = await postTheme(owner.api, m);
  t.is(created.status, 201, created.text);
  const link = (await owner.api.post('/share-request', { theme: m.id })).body.data;
  const magenta = await openPreview(`/theme/${m.id}/preview?share=${link.code}`, 'theme-preview-3d.png');
  t.is(magenta.state, 'ready', magenta.log.join('\n'));
  t.deepEqual(
    magenta.dice.map((d) => [d.dieId, d.type, d.drawn]),
    [
      ['d4', 'd4', 'solid'],
      ['d6', 'd6', 'solid'],
      ['d8', 'd8', 'solid'],
      ['d10', 'd10', 'solid'],
      ['d12', 'd12', 'solid'],
      ['d20', 'd20', 'solid'],
      ['big', 'd20', 'solid'],
    ],
    'every die, shaped from its type',
  );
  for (const die of magenta.dice) {
    t.true(die.flat > 0.999, `${die.dieId} rests on a face (${die.flat})`);
    t.is(die.top, HIGHEST[die.type], `${die.dieId}: its highest face lies up`);
    const pink = share(magenta.image, die as never, hex('#ff00ff'), 90);
    t.true(pink > 0.2, `${die.dieId} is magenta: ${pink}`);
    t.true(share(magenta.image, die as never, hex(GOLD), 60) < 0.01, `${die.dieId} shows no gold`);
    t.true(die.screen.x > 0 && die.screen.x < 1000 && die.screen.y > 0 && die.screen.y < 720, `${die.dieId} is in view`);
  }
  t.is(magenta.dice.find((d) => d.dieId === 'd6')!.topText, 'top');
  const big = magenta.dice.find((d) => d.dieId === 'big')!,
    d20 = magenta.dice.find((d) => d.dieId === 'd20')!;
  t.true(big.screen.r > d20.screen.r * 1.3, '`sizes` apply');
  // The numbers, in the label colour, are on the dice too.
  t.true(magenta.dice.some((d) => share(magenta.image, d as never, hex('#00ff00'), 90) > 0.005));
  t.deepEqual(magenta.log, []);
  await magenta.context.close();

  const builtIn = await openPreview(`/theme/${DEFAULT_THEME_ID}/preview`, 'theme-preview-3d-standard.png');
  t.is(builtIn.state, 'ready', builtIn.log.join('\n'));
  t.true(builtIn.dice.length >= 6);
  for (const die of builtIn.dice) {
    t.true(share(builtIn.image, die as never, hex(GOLD), 90) > 0.2, `${die.dieId} is gold: ${share(builtIn.image, die as never, hex(GOLD), 90)}`);
    t.true(share(builtIn.image, die as never, hex('#ff00ff'), 90) < 0.01);
  }
  await builtIn.context.close();
});
