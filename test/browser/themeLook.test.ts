import test from 'ava';
import type { Page } from 'playwright-core';
import { png } from '../fixtures/assets';
import { fbxPyramid } from '../fixtures/fbx';
import { glbPyramid, gltfPyramid } from '../fixtures/gltf';
import { manifest, postTheme, themeId, type FormFile } from '../fixtures/themes';
import { useServer } from '../helpers/server';
import { useChromium } from './chromium';
import { hex, openBoard, restingDice, share, shot } from './table';

/** A theme's textures, sizes and models on the dice, and a theme that fails to load falling back. */
const ctx = useServer(test);
const chrome = useChromium(test);
const logs: string[] = [];

const GOLD = '#bf9f22';

async function setup(t: { is(a: unknown, b: unknown, m?: string): void }, themes: [Record<string, unknown>, FormFile[]][]) {
  const owner = await ctx.server.newUser();
  const { slug } = (await owner.api.post('/room', { name: 'Looks', is_public: true })).body.data;
  for (const [m, files] of themes) {
    const res = await postTheme(owner.api, m, files);
    t.is(res.status, 201, JSON.stringify(res.body));
  }
  const page = await openBoard(chrome.browser, `${ctx.server.url}/board/${slug}#key=${owner.key}`, logs);
  const roll = async (dice: Record<string, unknown>[]) => {
    const res = await owner.api.post('/roll', { room: slug, dice });
    t.is(res.status, 201, JSON.stringify(res.body));
    return restingDice(
      page,
      res.body.data.values.map((v: { uuid: string }) => v.uuid),
    );
  };
  return { page, roll };
}

test('a `map` texture is the die’s surface (under its numbers); other maps do not break it', async (t) => {
  const textured = manifest({
    id: themeId('tex'),
    label: { color: '#000000', background_color: '#ff00ff' },
    available_dice: ['d6', 'd20'],
    textures: [
      { binding: 'map', src: 'cyan.png' },
      { binding: 'normalMap', src: 'flat.png' },
      { binding: 'emissiveMap', src: { d20: 'dark.png' } },
    ],
  });
  const { page, roll } = await setup(t, [
    [
      textured,
      [
        { name: 'cyan.png', data: png([0, 255, 255, 255]) },
        { name: 'flat.png', data: png([128, 128, 255, 255]) },
        { name: 'dark.png', data: png([0, 0, 0, 255]) },
      ],
    ],
  ]);
  const dice = await roll([
    { type: 'd6', theme: textured.id },
    { type: 'd20', theme: textured.id },
  ]);
  const image = await shot(page, 'theme-texture.png');
  for (const die of dice) {
    t.true(share(image, die, [0, 255, 255], 90) > 0.25, `${die.dieId} is cyan: ${share(image, die, [0, 255, 255], 90)}`);
    t.true(share(image, die, hex('#ff00ff'), 90) < 0.01, 'the texture replaces the label colour');
  }
});

test('`sizes` scale a die (its throw too), and a `.fbx` model is drawn instead of the built-in solid', async (t) => {
  const big = manifest({ id: themeId('big'), label: { color: '#ffffff', background_color: '#2040c0' }, available_dice: ['d6'], sizes: { d6: 2 } });
  const model = manifest({
    id: themeId('model'),
    label: { color: '#ffffff', background_color: '#20a040' },
    available_dice: ['d6'],
    meshes: { d6: 'pyramid.fbx' },
  });
  const { page, roll } = await setup(t, [
    [big, []],
    [model, [{ name: 'pyramid.fbx', data: Buffer.from(fbxPyramid()) }]],
  ]);
  const [large] = await roll([{ type: 'd6', theme: big.id }]);
  await shot(page, 'theme-size.png');
  const [plain] = await roll([{ type: 'd6', theme: 'standard' }]);
  t.true(Math.abs(large!.position[1] / plain!.position[1] - 2) < 0.05, `twice as high at rest: ${large!.position[1]} vs ${plain!.position[1]}`);
  t.true(large!.screen.r > plain!.screen.r * 1.6);
  const [shaped] = await roll([{ type: 'd6', theme: model.id }]);
  const image = await shot(page, 'theme-mesh.png');
  t.is(shaped!.drawn, 'model');
  t.true(share(image, shaped!, hex('#20a040'), 90) > 0.1, `the model in the theme's colour: ${share(image, shaped!, hex('#20a040'), 90)}`);
});

test("a `.glb` and a self-contained `.gltf` model (made by three's GLTFExporter) are drawn through GLTFLoader, in their own material", async (t) => {
  const theme = manifest({
    id: themeId('gltf'),
    label: { color: '#ffffff', background_color: '#ff00ff' },
    available_dice: ['d6', 'd8'],
    meshes: { d6: 'pyramid.glb', d8: 'pyramid.gltf' },
  });
  const { page, roll } = await setup(t, [
    [
      theme,
      [
        { name: 'pyramid.glb', data: await glbPyramid() },
        { name: 'pyramid.gltf', data: await gltfPyramid() },
      ],
    ],
  ]);
  const dice = await roll([
    { type: 'd6', theme: theme.id },
    { type: 'd8', theme: theme.id },
  ]);
  const image = await shot(page, 'theme-mesh-gltf.png');
  t.deepEqual(
    dice.map((d) => [d.dieId, d.drawn]),
    [
      ['d6', 'model'],
      ['d8', 'model'],
    ],
  );
  for (const die of dice) {
    // The models bring a green PBR material: it is kept (the label's magenta is only for models without one).
    t.true(share(image, die, hex('#20a040'), 90) > 0.1, `${die.dieId} is the green model: ${share(image, die, hex('#20a040'), 90)}`);
    t.true(share(image, die, hex('#ff00ff'), 90) < 0.01, `${die.dieId} is not the magenta solid`);
  }
  t.false(await page.locator('#theme-note').isVisible(), 'no fallback message');
  t.deepEqual(
    logs.filter((l) => l.startsWith('pageerror') || l.includes('Content Security Policy')),
    [],
  );
});

async function note(page: Page) {
  await page.locator('#theme-note').waitFor({ state: 'visible', timeout: 20_000 });
  return page.locator('#theme-note').textContent();
}

test('a theme whose files cannot be loaded is drawn in the built-in look, said once, and the board goes on', async (t) => {
  const broken = manifest({
    id: themeId('broken'),
    name: 'Broken',
    label: { color: '#00ff00', background_color: '#ff00ff' },
    available_dice: ['d6'],
    textures: [{ binding: 'map', src: 'broken.png' }],
  });
  // A PNG whose header (signature and IHDR: 1x1) passes the upload's checks and whose data then is garbage.
  const { page, roll } = await setup(t, [[broken, [{ name: 'broken.png', data: Buffer.concat([png().subarray(0, 33), Buffer.alloc(40, 7)]) }]]]);
  const [first] = await roll([{ type: 'd6', theme: broken.id }]);
  const image = await shot(page, 'theme-fallback.png');
  t.regex((await note(page)) ?? '', /Broken.*built-in look/);
  t.true(share(image, first!, hex(GOLD), 90) > 0.25, `built-in gold: ${share(image, first!, hex(GOLD), 90)}`);
  t.true(share(image, first!, hex('#ff00ff'), 90) < 0.01);
  t.is(first!.top, first!.value as number, 'its value still lies up');
  // Again: still drawn, still one message.
  const [second] = await roll([
    { type: 'd6', theme: broken.id },
    { type: 'd20', theme: 'standard' },
  ]);
  t.truthy(second);
  t.is(await page.locator('#theme-note').count(), 1);
  t.deepEqual(
    logs.filter((l) => l.startsWith('pageerror')),
    [],
  );
});

test('a roll whose theme was deleted since is drawn in the built-in look, with one message', async (t) => {
  const owner = await ctx.server.newUser();
  const { slug } = (await owner.api.post('/room', { name: 'Gone', is_public: true })).body.data;
  const gone = manifest({
    id: themeId('gone'),
    name: 'Gone',
    label: { color: '#00ff00', background_color: '#ff00ff' },
    available_dice: [{ id: 'big', type: 'd20' }],
  });
  t.is((await postTheme(owner.api, gone)).status, 201);
  // A roll names a custom die by its id only: with its theme gone, the board cannot know `big` was a
  // d20 and draws the built-in d6 (docs/board.md), so the value is one a d6 can show on top.
  const roll = await owner.api.post('/roll', { room: slug, dice: [{ type: 'big', theme: gone.id, value: 4 }] });
  t.is(roll.status, 201);
  t.is((await owner.api.delete(`/theme/${gone.id}`)).status, 204);
  const page = await openBoard(chrome.browser, `${ctx.server.url}/board/${slug}#key=${owner.key}`, logs);
  const [die] = await restingDice(page, [roll.body.data.values[0].uuid]);
  const image = await shot(page, 'theme-deleted.png');
  t.regex((await note(page)) ?? '', /could not be loaded.*built-in look/);
  t.true(share(image, die!, hex(GOLD), 90) > 0.25, 'built-in gold');
  t.is(die!.top, roll.body.data.values[0].value, 'the value still lies up');
  t.deepEqual(
    logs.filter((l) => l.startsWith('pageerror')),
    [],
  );
});
