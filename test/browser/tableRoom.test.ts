import test from 'ava';
import { png } from '../fixtures/assets';
import { manifest, postTheme, themeId } from '../fixtures/themes';
import { useServer } from '../helpers/server';
import { useChromium } from './chromium';
import { distance, openBoard, restingDice, shot } from './table';

/** The table as a room shows it: its background image, the latest roll at rest, the theme's dice in the picker. */
const ctx = useServer(test);
const chrome = useChromium(test);
const logs: string[] = [];

type Win = { __board: { screenOf(x: number, y: number, z: number): { x: number; y: number } } };

test("the room's background image is drawn on the table; a board opened later shows the latest roll at rest, where it landed for others", async (t) => {
  const owner = await ctx.server.newUser();
  const { slug } = (await owner.api.post('/room', { name: 'Backdrop', is_public: true })).body.data;
  const form = new FormData();
  form.append('bg_file_path', new Blob([new Uint8Array(png([255, 140, 0, 255]))], { type: 'image/png' }), 'bg.png');
  const uploaded = await owner.api.post(`/room/${slug}`, undefined, { raw: form });
  t.is(uploaded.status, 200, JSON.stringify(uploaded.body));

  const watcher = await openBoard(chrome.browser, `${ctx.server.url}/board/${slug}#key=${owner.key}`, logs);
  const roll = await owner.api.post('/roll', { room: slug, equation: '3d6+1d20', theme: 'standard' });
  t.is(roll.status, 201);
  const uuids = roll.body.data.values.map((v: { uuid: string }) => v.uuid);
  const live = await restingDice(watcher, uuids);

  // Opened after the roll: the same dice lie in the same places, with the same faces up, at once.
  const late = await openBoard(chrome.browser, `${ctx.server.url}/board/${slug}#key=${owner.key}`, logs);
  const seen = await restingDice(late, uuids);
  await late.waitForFunction(
    (url) => (window as unknown as { __board: { background(): string | null } }).__board.background() === url,
    uploaded.body.data.bg_file_path,
  );
  // drawn at the next frame
  await late.waitForTimeout(200);
  const image = await shot(late, 'table-background.png');
  for (const die of live) {
    const same = seen.find((d) => d.uuid === die.uuid)!;
    t.true(Math.hypot(die.position[0] - same.position[0], die.position[2] - same.position[2]) < 0.01);
    t.is(same.top, die.top);
  }
  // The background's orange, on the table where no die (nor its shadow) is.
  const free: [number, number][] = [];
  for (let x = -6; x <= 6; x += 2)
    for (let z = -4; z <= 4; z += 2) if (seen.every((d) => Math.hypot(d.position[0] - x, d.position[2] - z) > 2)) free.push([x, z]);
  t.true(free.length >= 4);
  for (const [x, z] of free) {
    const p = await late.evaluate(([x, z]) => (window as unknown as Win).__board.screenOf(x, 0, z), [x, z] as const);
    const pixel = image.rgb(p.x, p.y);
    t.true(distance(pixel, [255, 140, 0]) < 40, `table at (${x}, ${z}) is orange: ${pixel}`);
  }
  t.deepEqual(
    logs.filter((l) => l.startsWith('pageerror')),
    [],
  );
});

test("the dice picker offers the chosen theme's dice, with their notation, and rolls them", async (t) => {
  const owner = await ctx.server.newUser();
  const { slug } = (await owner.api.post('/room', { name: 'Picker', is_public: true })).body.data;
  const fate = manifest({
    id: themeId('fate'),
    name: 'Fate',
    available_dice: [{ id: 'fate', type: 'd6', notation: 'dF' }, 'd8'],
    values: { fate: ['-', '-', ' ', ' ', '+', '+'] },
  });
  t.is((await postTheme(owner.api, fate)).status, 201);
  const page = await openBoard(chrome.browser, `${ctx.server.url}/board/${slug}#key=${owner.key}`, logs);
  await page.waitForFunction((id) => Array.from(document.querySelectorAll('#theme option')).some((o) => (o as HTMLOptionElement).value === id), fate.id);
  t.deepEqual(await page.locator('#picker button').evaluateAll((b) => b.map((x) => x.getAttribute('data-die'))), [
    'd4',
    'd6',
    'd8',
    'd10',
    'd12',
    'd20',
    'd2',
    'd16',
    'd100',
  ]);
  await page.selectOption('#theme', fate.id as string);
  t.deepEqual(await page.locator('#picker button').allTextContents(), ['dF', 'd8']);
  await page.click('#picker button[data-die="fate"]');
  await page.click('#picker button[data-die="fate"]');
  await page.click('#picker button[data-die="d8"]');
  t.is(await page.inputValue('#equation'), '2{fate}+1d8');
  await page.click('#roll-button');
  await page.waitForFunction(() => document.querySelector('#rolls li') || document.querySelector('#roll-error')?.textContent, null, { timeout: 20_000 });
  t.is(await page.locator('#roll-error').textContent(), '');
  const types = await page.locator('#rolls li .die .t').allTextContents();
  t.deepEqual(types, ['fate', 'fate', 'd8']);
  const uuids = await page.locator('#rolls li .die').evaluateAll((d) => d.map((x) => x.getAttribute('data-value-uuid')!));
  const dice = await restingDice(page, uuids);
  t.deepEqual(
    dice.map((d) => d.type),
    ['d6', 'd6', 'd8'],
  );
  await shot(page, 'table-picker.png');
});

test('in overlay mode, with three large roll cards, no die rests under them', async (t) => {
  const owner = await ctx.server.newUser();
  const { slug } = (await owner.api.post('/room', { name: 'Stream', is_public: true })).body.data;
  const page = await openBoard(chrome.browser, `${ctx.server.url}/board/${slug}?overlay=1#key=${owner.key}`, logs, { width: 960, height: 540 });
  let uuids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const roll = await owner.api.post('/roll', { room: slug, equation: '8d6', theme: 'standard', direction: 90, velocity: 1.5 });
    t.is(roll.status, 201);
    uuids = roll.body.data.values.map((v: { uuid: string }) => v.uuid);
  }
  await page.waitForFunction(() => document.querySelectorAll('#last-roll .card').length === 3);
  const dice = await restingDice(page, uuids);
  await shot(page, 'table-overlay-cards.png');
  const bottom = await page.evaluate(() => document.querySelector('#last-roll .card:last-child')!.getBoundingClientRect().bottom);
  for (const die of dice) t.true(die.screen.y - die.screen.r > bottom, `die at ${die.screen.y} below the cards (${bottom})`);
});
