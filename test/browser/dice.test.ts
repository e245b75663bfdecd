import test from 'ava';
import { useServer } from '../helpers/server';
import { useChromium } from './chromium';
import { png } from '../fixtures/assets';
import { manifest, postTheme, themeId } from '../fixtures/themes';
import { hex, openBoard, restingDice, share, shot } from './table';

/** The standard theme's body colour (its label background). */
const BUILT_IN_BODY = '#bf9f22';

/**
 * The 3D table in a real browser: dice shaped by their type, thrown by the physics the same way for
 * every viewer, resting with the rolled face up. Screenshots in test-artifacts/.
 */
const ctx = useServer(test);
const chrome = useChromium(test);
const logs: string[] = [];

test('every die type rests flat with its rolled face on top, in the same place for two viewers', async (t) => {
  const owner = await ctx.server.newUser();
  const guest = await ctx.server.newUser();
  const { slug } = (await owner.api.post('/room', { name: 'Shapes', is_public: true })).body.data;
  t.is((await guest.api.post(`/room/${slug}/participant`, {})).status, 200);
  const a = await openBoard(chrome.browser, `${ctx.server.url}/board/${slug}#key=${owner.key}`, logs);
  const b = await openBoard(chrome.browser, `${ctx.server.url}/board/${slug}#key=${guest.key}`, logs, { width: 900, height: 700 });
  const types = ['d2', 'd4', 'd6', 'd8', 'd10', 'd10x', 'd12', 'd20'];
  const roll = await owner.api.post('/roll', {
    room: slug,
    dice: [...types.map((type) => ({ type, theme: 'standard' })), { type: 'mod', theme: 'standard', value: 3 }],
  });
  t.is(roll.status, 201, JSON.stringify(roll.body));
  const values = roll.body.data.values.filter((v: { type: string }) => v.type !== 'mod');
  const uuids = values.map((v: { uuid: string }) => v.uuid);
  const [seenA, seenB] = await Promise.all([restingDice(a, uuids), restingDice(b, uuids)]);
  await shot(a, 'dice-shapes.png');
  await shot(b, 'dice-shapes-other-viewer.png');
  t.is(seenA.length, types.length, 'the modifier is not thrown');
  for (const [i, v] of values.entries()) {
    const die = seenA.find((d) => d.uuid === v.uuid)!;
    const other = seenB.find((d) => d.uuid === v.uuid)!;
    t.is(die.type, v.type);
    // A d10x's value is its tens digit (10 for 00); its model's faces run 00, 10, ..., 90.
    const position = v.type === 'd10x' ? Number(v.value_to_display) / 10 + 1 : v.value;
    t.is(die.top, position, `${v.type}: face ${position} lies up`);
    t.is(die.topText, String(v.value_to_display), `${v.type}: ${v.value_to_display} shows`);
    t.true(die.flat > 0.99, `${v.type} lies flat (${die.flat})`);
    const gap = Math.hypot(die.position[0] - other.position[0], die.position[1] - other.position[1], die.position[2] - other.position[2]);
    t.true(gap < 0.01, `${types[i]} rests in the same place for both (${gap})`);
  }
  t.deepEqual(
    logs.filter((l) => l.startsWith('pageerror')),
    [],
  );
});

test("a theme's colours, text faces, image faces and custom dice are drawn on the dice; a hidden die shows no value", async (t) => {
  const owner = await ctx.server.newUser();
  const other = await ctx.server.newUser();
  const { slug } = (await owner.api.post('/room', { name: 'Themes', is_public: true })).body.data;
  await other.api.post(`/room/${slug}/participant`, {});
  const magenta = manifest({
    id: themeId('magenta'),
    name: 'Magenta',
    label: { color: '#00ff00', background_color: '#ff00ff' },
    available_dice: ['d6', { id: 'big', type: 'd20' }, { id: 'fate', type: 'd6', notation: 'dF' }],
    values: { fate: ['minus', 'minus', 'blank', 'blank', 'plus', 'plus'] },
  });
  const blue = manifest({
    id: themeId('blue'),
    name: 'Uniform blue',
    label: { color: '#00ff00', background_color: '#ff00ff' },
    available_dice: ['d6'],
    uniforms: { diffuse: { type: 'color', value: '#1e64ff' }, number: { type: 'color', value: [1, 1, 0] } },
  });
  const pictures = manifest({
    id: themeId('pictures'),
    name: 'Pictures',
    label: { color: '#ffffff', background_color: '#202020' },
    available_dice: [{ id: 'pic', type: 'd6' }],
    values: { pic: [1, 2, 3, 4, 5, 6].map(() => ({ src: 'red.png' })) },
  });
  for (const [m, files] of [
    [magenta, []],
    [blue, []],
    [pictures, [{ name: 'red.png', data: png([255, 0, 0, 255]) }]],
  ] as const) {
    const res = await postTheme(owner.api, m, [...files]);
    t.is(res.status, 201, JSON.stringify(res.body));
  }
  const a = await openBoard(chrome.browser, `${ctx.server.url}/board/${slug}#key=${owner.key}`, logs);
  const b = await openBoard(chrome.browser, `${ctx.server.url}/board/${slug}#key=${other.key}`, logs);
  const throwDice = async (dice: Record<string, unknown>[], name: string) => {
    const roll = await owner.api.post('/roll', { room: slug, dice });
    t.is(roll.status, 201, JSON.stringify(roll.body));
    const uuids = roll.body.data.values.map((v: { uuid: string }) => v.uuid);
    const [seenA, seenB] = await Promise.all([restingDice(a, uuids), restingDice(b, uuids)]);
    return {
      uuid: roll.body.data.uuid as string,
      values: roll.body.data.values,
      seenA,
      seenB,
      pngA: await shot(a, `${name}.png`),
      pngB: await shot(b, `${name}-other.png`),
    };
  };

  // Magenta body, green numbers; the custom die `big` is a d20 by its type; `fate` has word faces.
  const m = await throwDice(
    [
      { type: 'd6', theme: magenta.id },
      { type: 'big', theme: magenta.id },
      { type: 'fate', theme: magenta.id },
    ],
    'theme-colours',
  );
  const [d6, big, fate] = m.seenA;
  t.is(big!.type, 'd20', 'a die takes its shape from its type, not its id');
  t.is(fate!.topText, m.values[2].value_to_display, 'word faces: the rolled word lies up');
  for (const die of m.seenA) {
    t.true(share(m.pngA, die, hex('#ff00ff'), 90) > 0.25, `${die.dieId} is magenta: ${share(m.pngA, die, hex('#ff00ff'), 90)}`);
    t.true(share(m.pngA, die, hex('#00ff00'), 110) > 0.005, `${die.dieId} has green numbers: ${share(m.pngA, die, hex('#00ff00'), 110)}`);
    t.true(share(m.pngA, die, hex(BUILT_IN_BODY), 40) < 0.02, `${die.dieId} shows no built-in gold`);
  }
  t.is(d6!.top, m.values[0].value);

  // The built-in theme's dice show its gold and no magenta.
  const s = await throwDice(
    [
      { type: 'd6', theme: 'standard' },
      { type: 'd20', theme: 'standard' },
    ],
    'theme-standard',
  );
  for (const die of s.seenA) {
    t.true(share(s.pngA, die, hex(BUILT_IN_BODY), 90) > 0.25, `standard ${die.dieId} is gold: ${share(s.pngA, die, hex(BUILT_IN_BODY), 90)}`);
    t.true(share(s.pngA, die, hex('#ff00ff'), 90) < 0.01, 'and not magenta');
  }

  // uniforms.diffuse and uniforms.number win over the label colours.
  const u = await throwDice([{ type: 'd6', theme: blue.id }], 'theme-uniforms');
  t.true(share(u.pngA, u.seenA[0]!, hex('#1e64ff'), 90) > 0.25, `uniforms.diffuse: ${share(u.pngA, u.seenA[0]!, hex('#1e64ff'), 90)}`);
  t.true(share(u.pngA, u.seenA[0]!, hex('#ff00ff'), 90) < 0.01);
  t.true(share(u.pngA, u.seenA[0]!, hex('#ffff00'), 110) > 0.005, 'uniforms.number');

  // Image faces: the red picture is on the face that lies up.
  const p = await throwDice([{ type: 'pic', theme: pictures.id }], 'theme-image-face');
  t.regex(String(p.seenA[0]!.topText), /(^|\/)red\.png$/, 'the face names its image file');
  t.true(share(p.pngA, p.seenA[0]!, [255, 0, 0], 110) > 0.1, `the image face shows: ${share(p.pngA, p.seenA[0]!, [255, 0, 0], 110)}`);

  // A hidden die: its roller sees its numbers, the other player a blank die.
  const h = await throwDice([{ type: 'd6', theme: magenta.id, is_hidden: true }], 'theme-hidden');
  t.is(h.seenB[0]!.value, null);
  t.true(share(h.pngA, h.seenA[0]!, hex('#00ff00'), 110) > 0.005, 'the roller sees the value');
  t.is(share(h.pngB, h.seenB[0]!, hex('#00ff00'), 110), 0, 'the others see no number at all');

  // Revealed by its roller: the other player's die gets its faces, where it lay, the value on top.
  const hiddenDie = h.values[0];
  const revealed = await owner.api.patch(`/roll/${h.uuid}`, { dice: [{ uuid: hiddenDie.uuid, is_hidden: false }] });
  t.is(revealed.status, 200, JSON.stringify(revealed.body));
  await b.waitForFunction(
    (uuid) =>
      (window as unknown as { __board: { dice(): { uuid: string; value: number | null }[] } }).__board.dice().some((d) => d.uuid === uuid && d.value !== null),
    hiddenDie.uuid,
    { timeout: 20_000 },
  );
  const [shown] = await restingDice(b, [hiddenDie.uuid]);
  const after = await shot(b, 'theme-revealed-other.png');
  t.is(shown!.top, hiddenDie.value);
  t.true(Math.hypot(shown!.position[0] - h.seenB[0]!.position[0], shown!.position[2] - h.seenB[0]!.position[2]) < 0.01, 'it stays where it lay');
  t.true(share(after, shown!, hex('#00ff00'), 110) > 0.005, 'now with its numbers');
  t.deepEqual(
    logs.filter((l) => l.startsWith('pageerror')),
    [],
  );
});

test('30 dice: thrown alike for two viewers, all on the table below the roll cards, the rolled faces up; idle draws nothing', async (t) => {
  const owner = await ctx.server.newUser();
  const { slug } = (await owner.api.post('/room', { name: 'Many', is_public: true })).body.data;
  const a = await openBoard(chrome.browser, `${ctx.server.url}/board/${slug}#key=${owner.key}`, logs);
  const b = await openBoard(chrome.browser, `${ctx.server.url}/board/${slug}#key=${owner.key}`, logs, { width: 1000, height: 640 });
  const roll = await owner.api.post('/roll', { room: slug, equation: '6d4+6d6+6d8+6d10+6d20', theme: 'standard', direction: 135, velocity: 1.4 });
  t.is(roll.status, 201);
  const values = roll.body.data.values;
  const uuids = values.map((v: { uuid: string }) => v.uuid);
  const started = Date.now();
  const [seenA, seenB] = await Promise.all([restingDice(a, uuids), restingDice(b, uuids)]);
  t.log(`30 dice at rest in ${Date.now() - started} ms (wall clock, both pages)`);
  await shot(a, 'dice-30.png');
  const band = await a.evaluate(() => document.querySelector('#last-roll')!.getBoundingClientRect().bottom);
  for (const v of values) {
    const die = seenA.find((d) => d.uuid === v.uuid)!;
    const other = seenB.find((d) => d.uuid === v.uuid)!;
    t.is(die.top, v.value);
    t.true(die.flat > 0.99, `${die.type} lies flat: ${die.flat} at ${die.position.map((x) => x.toFixed(2))}`);
    t.true(Math.hypot(die.position[0] - other.position[0], die.position[2] - other.position[2]) < 0.01, 'same place for both');
    t.true(die.screen.y - die.screen.r > band, `below the roll cards (${die.screen.y} vs ${band})`);
  }
  const stats = async () =>
    a.evaluate(() =>
      (window as unknown as { __board: { stats(): { renders: number; simulateMs: number; simulatedIn: string; frames: number } } }).__board.stats(),
    );
  const before = await stats();
  t.is(before.simulatedIn, 'worker', 'simulated off the main thread');
  t.log(
    `simulating the throw took ${before.simulateMs} ms (in the worker); ${before.frames} frames of animation (${(before.frames / 60).toFixed(1)} s), laid where it ends (the pages ask for less motion)`,
  );
  await a.waitForTimeout(1500);
  t.is((await stats()).renders, before.renders, 'no frame is drawn while nothing moves');
});
