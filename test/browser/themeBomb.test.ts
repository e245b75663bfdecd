import test from 'ava';
import { db } from '../../src/db';
import { gltfBomb } from '../fixtures/bombs';
import { gltfPyramid } from '../fixtures/gltf';
import { manifest, postTheme, themeId } from '../fixtures/themes';
import { useServer } from '../helpers/server';
import { useChromium } from './chromium';
import { hex, openBoard, restingDice, share, shot } from './table';

/**
 * A theme stored before the upload checked what its files decode to (docs/board.md, "Theme asset
 * limits"): the board checks the model again before GLTFLoader sees it, draws the die in the built-in
 * look and says so once, and the page keeps answering.
 */
const ctx = useServer(test);
const chrome = useChromium(test);
const logs: string[] = [];

test('a stored 210-byte glTF bomb is refused by the board before it allocates: the built-in look, one message, a responsive page', async (t) => {
  const owner = await ctx.server.newUser();
  const { slug } = (await owner.api.post('/room', { name: 'Bombs', is_public: true })).body.data;
  const theme = manifest({
    id: themeId('bomb'),
    name: 'Bomb',
    label: { color: '#00ff00', background_color: '#ff00ff' },
    available_dice: ['d6'],
    meshes: { d6: 'bomb.gltf' },
  });
  t.is((await postTheme(owner.api, theme, [{ name: 'bomb.gltf', data: await gltfPyramid() }])).status, 201);
  // The API refuses the bomb now: swap it in behind the upload's back, as a theme stored earlier would be.
  const stored = await db().models.Theme.findOne({ where: { slug: theme.id as string } });
  const bomb = gltfBomb();
  const [changed] = await db().models.ThemeAsset.update({ data: bomb, size: bomb.length }, { where: { themeId: stored!.id, name: 'bomb.gltf' } });
  t.is(changed, 1);

  const page = await openBoard(chrome.browser, `${ctx.server.url}/board/${slug}#key=${owner.key}`, logs);
  const roll = async () => {
    const res = await owner.api.post('/roll', { room: slug, dice: [{ type: 'd6', theme: theme.id }] });
    t.is(res.status, 201);
    return (await restingDice(page, [res.body.data.values[0].uuid]))[0]!;
  };
  const die = await roll();
  const note = page.locator('#theme-note');
  await note.waitFor({ state: 'visible', timeout: 20_000 });
  t.regex((await note.textContent()) ?? '', /"Bomb".*bomb\.gltf is over the board's limits: its accessors decode to 1\.1 GiB.*built-in look/);
  t.is(die.drawn, 'solid');
  const image = await shot(page, 'theme-bomb.png');
  t.true(share(image, die, hex('#bf9f22'), 90) > 0.25, `built-in gold: ${share(image, die, hex('#bf9f22'), 90)}`);
  t.is(die.top, die.value as number, 'its value still lies up');
  // The page answers, rolls again with the same theme, and the message is still the one.
  t.is(await page.evaluate(() => 1 + 1), 2);
  const again = await roll();
  t.is(again.drawn, 'solid');
  t.is(await note.evaluate((el) => (el as HTMLElement).dataset.messages?.trim().split('\n').length), 1);
  t.deepEqual(
    logs.filter((l) => l.startsWith('pageerror')),
    [],
  );
});
