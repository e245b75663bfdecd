import test from 'ava';
import type { Page } from 'playwright-core';
import { wav } from '../fixtures/assets';
import { manifest, postTheme, themeId } from '../fixtures/themes';
import { useServer } from '../helpers/server';
import { loadingMatches } from '../../src/board/dice/sound';
import { MOTION, useChromium } from './chromium';
import { openBoard, restingDice } from './table';

/**
 * Theme sounds in Chromium: nothing before the first click (no AudioContext at all), then the theme's
 * `die.collide` and `die.value` sounds as its dice land; a mute switch kept across reloads; the overlay
 * silent unless asked. What is counted is sounds started on a running AudioContext (no speaker here).
 */
const ctx = useServer(test);
const chrome = useChromium(test);
const logs: string[] = [];

type Sound = { state: string; muted: boolean; played: Record<string, number> };
const stats = (page: Page) => page.evaluate(() => (window as unknown as { __board: { stats(): { renders: number; frames: number } } }).__board.stats());
const sound = (page: Page) => page.evaluate(() => (window as unknown as { __board: { sound(): Sound } }).__board.sound());

async function noisyRoom(t: { is(a: unknown, b: unknown, m?: string): void }) {
  const owner = await ctx.server.newUser();
  const { slug } = (await owner.api.post('/room', { name: 'Noisy', is_public: true })).body.data;
  const theme = manifest({
    id: themeId('noisy'),
    available_dice: ['d6'],
    sounds: [
      { on: 'die.collide', src: 'knock.wav' },
      ...[1, 2, 3, 4, 5, 6].map((value) => ({ on: 'die.value', value, src: 'ding.wav' })),
      { on: 'roll.loading', value: '>=1', src: 'shake.wav' },
    ],
  });
  const res = await postTheme(owner.api, theme, [
    { name: 'knock.wav', data: wav(800) },
    { name: 'ding.wav', data: wav(800) },
    { name: 'shake.wav', data: wav(8000) },
  ]);
  t.is(res.status, 201, JSON.stringify(res.body));
  const roll = async (page: Page) => {
    const r = await owner.api.post('/roll', {
      room: slug,
      dice: [
        { type: 'd6', theme: theme.id },
        { type: 'd6', theme: theme.id },
      ],
      velocity: 1.5,
    });
    t.is(r.status, 201);
    const uuids: string[] = r.body.data.values.map((v: { uuid: string }) => v.uuid);
    await restingDice(page, uuids);
    return uuids;
  };
  return { owner, slug, theme, roll };
}

test('silent until the first click; then collisions and the resting values sound; muting is remembered', async (t) => {
  const { owner, slug, theme, roll } = await noisyRoom(t);
  const page = await openBoard(chrome.browser, `${ctx.server.url}/board/${slug}#key=${owner.key}`, logs, undefined, MOTION);
  await roll(page);
  t.deepEqual(
    await sound(page),
    { state: 'none', muted: false, played: { 'die.collide': 0, 'die.value': 0, 'roll.loading': 0 } },
    'no AudioContext before a gesture',
  );

  await page.click('#stage');
  await page.waitForFunction(() => (window as unknown as { __board: { sound(): Sound } }).__board.sound().state === 'running');
  await roll(page);
  await page.waitForFunction(() => (window as unknown as { __board: { sound(): Sound } }).__board.sound().played['die.value']! >= 2);
  const heard = await sound(page);
  t.true(heard.played['die.collide']! > 0, `collisions: ${heard.played['die.collide']}`);
  t.is(heard.played['die.value'], 2, 'each die rang its value once');

  // Rolling from the form: the roll.loading sound starts (and stops when the roll is back).
  await page.selectOption('#theme', theme.id as string);
  await page.fill('#equation', '2d6');
  await page.click('#roll-button');
  await page.waitForFunction(() => (window as unknown as { __board: { sound(): Sound } }).__board.sound().played['roll.loading']! >= 1, null, {
    timeout: 10_000,
  });
  t.pass('roll.loading sounded');

  // Muted: nothing more, and still muted after a reload.
  await page.click('#sound-toggle');
  t.is(await page.locator('#sound-toggle').getAttribute('aria-pressed'), 'false');
  const before = (await sound(page)).played;
  await roll(page);
  t.deepEqual((await sound(page)).played, before);
  await page.reload();
  await page.locator('#connection[data-state="online"]').waitFor({ state: 'attached', timeout: 20_000 });
  t.true((await sound(page)).muted);
  t.is(await page.locator('#sound-toggle').textContent(), 'Sound off');
});

test('a viewer who asked for less motion sees each roll land at once: a frame or two drawn, not the tumble; its values still ring, its collisions do not', async (t) => {
  const { owner, slug, roll } = await noisyRoom(t);
  const url = `${ctx.server.url}/board/${slug}#key=${owner.key}`;
  const still = await openBoard(chrome.browser, url, logs);
  const moving = await openBoard(chrome.browser, url, logs, undefined, MOTION);
  t.true(await still.evaluate(() => matchMedia('(prefers-reduced-motion: reduce)').matches));
  for (const page of [still, moving]) {
    await page.click('#stage');
    await page.waitForFunction(() => (window as unknown as { __board: { sound(): Sound } }).__board.sound().state === 'running');
  }
  const [stillBefore, movingBefore] = await Promise.all([stats(still), stats(moving)]);
  await restingDice(moving, await roll(still));
  await still.waitForFunction(() => (window as unknown as { __board: { sound(): Sound } }).__board.sound().played['die.value']! >= 2);
  const [stillAfter, movingAfter] = await Promise.all([stats(still), stats(moving)]);
  const drawnStill = stillAfter.renders - stillBefore.renders;
  const drawnMoving = movingAfter.renders - movingBefore.renders;
  t.log(`frames drawn for one throw of ${stillAfter.frames} frames: ${drawnStill} with less motion, ${drawnMoving} tumbling`);
  t.true(drawnStill <= 3, `with less motion the roll is drawn where it lands: ${drawnStill} frames drawn`);
  t.true(drawnMoving > 10, `tumbling, the throw is drawn frame after frame: ${drawnMoving} frames drawn`);
  const heard = await sound(still);
  t.is(heard.played['die.collide'], 0, 'no collision sounds without the motion they belong to');
  t.is(heard.played['die.value'], 2, 'each die rang its value once');
});

test('the overlay is silent unless the URL says &sound=1', async (t) => {
  const { owner, slug, roll } = await noisyRoom(t);
  const quiet = await openBoard(chrome.browser, `${ctx.server.url}/board/${slug}?overlay=1#key=${owner.key}`, logs);
  const loud = await openBoard(chrome.browser, `${ctx.server.url}/board/${slug}?overlay=1&sound=1#key=${owner.key}`, logs);
  for (const page of [quiet, loud]) await page.mouse.click(300, 300);
  await loud.waitForFunction(() => (window as unknown as { __board: { sound(): Sound } }).__board.sound().state === 'running');
  await roll(loud);
  await restingDice(quiet, []);
  await loud.waitForFunction(() => (window as unknown as { __board: { sound(): Sound } }).__board.sound().played['die.value']! >= 2);
  t.is((await sound(quiet)).state, 'none');
  t.deepEqual((await sound(quiet)).played, { 'die.collide': 0, 'die.value': 0, 'roll.loading': 0 });
});

test('roll.loading values as themes write them', (t) => {
  t.true(loadingMatches(2, 2));
  t.true(loadingMatches('=2', 2));
  t.true(loadingMatches('==2', 2));
  t.false(loadingMatches('==2', 3));
  t.true(loadingMatches('>=3', 3));
  t.true(loadingMatches('>2', 3));
  t.false(loadingMatches('>3', 3));
  t.true(loadingMatches('<2', 1));
  t.true(loadingMatches('<=2', 2));
  t.false(loadingMatches('about 2', 2));
});
