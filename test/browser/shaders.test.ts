import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import type { Page } from 'playwright-core';
import { png } from '../fixtures/assets';
import { manifest, postTheme, themeId } from '../fixtures/themes';
import { useServer } from '../helpers/server';
import { ARTIFACTS, useChromium, watchPage } from './chromium';
import { PNG } from './png';
import { hex, openBoard, restingDice, share, type ShownDie } from './table';

/**
 * A theme's own shaders (`frag_shader`, `vert_shader`) on the board's dice and in the theme preview, in
 * real Chromium (WebGL through SwiftShader): pixels measured in screenshots. Screenshots go to
 * $SHADER_SCREENSHOTS (default test-artifacts/shaders/).
 */
// Serial: a heavy shader in one page holds the browser's one GPU thread, which another page's probe would wait for.
const ctx = useServer(test);
const chrome = useChromium(test);
const SHOTS = process.env.SHADER_SCREENSHOTS || path.join(ARTIFACTS, 'shaders');

const GOLD = '#bf9f22';
const MAGENTA: [number, number, number] = [255, 0, 255];

/** Magenta, faded by the board's `opacity` (a dropped die). */
const SOLID_MAGENTA = 'uniform float opacity;\nvoid main() {\n  gl_FragColor = vec4(1.0, 0.0, 1.0, opacity);\n}\n';
/** Line 3 is wrong (an undeclared name). */
const BROKEN = 'void main() {\n  vec3 colour = vec3(1.0);\n  gl_FragColor = vec4(colour * nothing, 1.0);\n}\n';

async function shot(page: Page, name: string): Promise<PNG> {
  fs.mkdirSync(SHOTS, { recursive: true });
  const file = path.join(SHOTS, name);
  await page.screenshot({ path: file });
  return PNG.read(file);
}

async function note(page: Page) {
  await page.locator('#theme-note').waitFor({ state: 'visible', timeout: 20_000 });
  return (await page.locator('#theme-note').textContent()) ?? '';
}

test.serial(
  "the board draws dice with their theme's shaders: a solid colour, uniforms and textures bound by name, a vertex shader alone; a broken one falls back with one message",
  async (t) => {
    const owner = await ctx.server.newUser();
    const { slug } = (await owner.api.post('/room', { name: 'Shaders', is_public: true })).body.data;
    const logs: string[] = [];

    const solid = manifest({ id: themeId('solid'), name: 'Solid', label: { color: '#ffffff', background_color: '#ff8000' }, available_dice: ['d6', 'd20'] });
    // tint × the die's texture × strength × two vectors of ones: green on the cyan d6, red on the magenta d20.
    // Any of them left unbound would be 0: a black die.
    const bound = manifest({
      id: themeId('bound'),
      name: 'Bound',
      label: { color: '#ffffff', background_color: '#2040c0' },
      available_dice: ['d6', 'd20'],
      uniforms: {
        tint: { type: 'color', value: '#ffff00' },
        strength: { type: 'f', value: 1, min: 0, max: 2 },
        u_gain: { type: 'vec3', value: { x: 1, y: 1, z: 1 } },
        u_mix: { type: 'vec4', value: [0, 0, 0, 1] },
      },
      textures: [{ binding: 'u_paint', src: { d6: 'cyan.png', d20: 'magenta.png' } }],
    });
    const boundFrag = [
      'uniform vec3 tint;',
      'uniform float strength;',
      'uniform vec3 u_gain;',
      'uniform vec4 u_mix;',
      'uniform sampler2D u_paint;',
      'varying vec2 vUv;',
      'void main() {',
      '  vec3 c = tint * texture2D(u_paint, vUv).rgb * strength * u_gain * u_mix.w + u_mix.xyz;',
      '  gl_FragColor = vec4(c, 1.0);',
      '  #include <colorspace_fragment>',
      '}',
    ].join('\n');
    // A vertex shader alone: the default fragment shader draws the face atlas (the label colours), lit.
    const vertOnly = manifest({ id: themeId('vert'), name: 'Vertex', label: { color: '#ffffff', background_color: '#2040c0' }, available_dice: ['d6'] });
    const vert = [
      'varying vec2 vUv;',
      'varying vec3 vNormal;',
      'void main() {',
      '  vUv = uv;',
      '  vNormal = normalize(mat3(modelMatrix) * normal);',
      '  gl_Position = projectionMatrix * viewMatrix * modelMatrix * vec4(position * 1.1, 1.0);',
      '}',
    ].join('\n');
    const broken = manifest({ id: themeId('broken'), name: 'Broken', label: { color: '#00ff00', background_color: '#ff00ff' }, available_dice: ['d6'] });
    // Compiles, but costs 400,000 steps a pixel: a frame of the table would take minutes here, and the
    // probe stays far above the board's limit on a quiet machine too (50,000 steps measured 35 ms: too near).
    const heavy = manifest({ id: themeId('heavy'), name: 'Heavy', label: { color: '#00ff00', background_color: '#ff00ff' }, available_dice: ['d6'] });
    const heavyFrag = [
      'uniform float u_time;',
      'void main() {',
      '  float c = 0.5;',
      '  for (int i = 0; i < 400000; i++) { c = fract(sin(c * 12.9898 + float(i) + u_time) * 43758.5453); }',
      '  gl_FragColor = vec4(c, 0.0, 1.0, 1.0);',
      '}',
    ].join('\n');
    for (const [m, files, fields] of [
      [solid, [], { frag_shader: SOLID_MAGENTA }],
      [
        bound,
        [
          { name: 'cyan.png', data: png([0, 255, 255, 255]) },
          { name: 'magenta.png', data: png([255, 0, 255, 255]) },
        ],
        { frag_shader: boundFrag },
      ],
      [vertOnly, [], { vert_shader: vert }],
      [broken, [], { frag_shader: BROKEN }],
      [heavy, [], { frag_shader: heavyFrag }],
    ] as const) {
      const res = await postTheme(owner.api, m, [...files], fields);
      t.is(res.status, 201, res.text);
    }

    const page = await openBoard(chrome.browser, `${ctx.server.url}/board/${slug}#key=${owner.key}`, logs);
    const roll = async (dice: Record<string, unknown>[]): Promise<ShownDie[]> => {
      const res = await owner.api.post('/roll', { room: slug, dice });
      t.is(res.status, 201, JSON.stringify(res.body));
      return restingDice(
        page,
        res.body.data.values.map((v: { uuid: string }) => v.uuid),
      );
    };

    const painted = await roll([
      { type: 'd6', theme: solid.id },
      { type: 'd20', theme: solid.id },
    ]);
    let image = await shot(page, 'board-solid-magenta.png');
    const probeMs = async () => page.evaluate(() => (window as unknown as { __board: { stats(): { shaderProbeMs: number } } }).__board.stats().shaderProbeMs);
    const light = await probeMs();
    t.log(`the solid shader's probe: ${light.toFixed(2)} ms for 256 pixels`);
    t.true(light < 50);
    for (const die of painted) {
      t.true(share(image, die, MAGENTA, 40) > 0.4, `${die.dieId} is painted magenta by the shader: ${share(image, die, MAGENTA, 40)}`);
      t.true(share(image, die, hex('#ff8000'), 90) < 0.01, `${die.dieId}: not the label colour`);
      t.is(die.top, die.value as number, 'its value still lies up');
    }

    // A dropped die: the same shader, its `opacity` 0.4 (the felt shows through); the kept one stays magenta.
    const kept = await owner.api.post('/roll', { room: slug, equation: '2d6kh1', theme: solid.id });
    t.is(kept.status, 201, JSON.stringify(kept.body));
    const keptDice = await restingDice(
      page,
      kept.body.data.values.map((v: { uuid: string }) => v.uuid),
    );
    image = await shot(page, 'board-dropped.png');
    // Measured against each other: a die of the earlier rolls may rest beside one of these two and lend
    // its region some magenta, but a faded die never shows half of a kept one's.
    const pureOf = (dropped: boolean) => {
      const value = (kept.body.data.values as { uuid: string; is_dropped: boolean }[]).find((v) => v.is_dropped === dropped)!;
      return share(
        image,
        keptDice.find((d) => d.uuid === value.uuid)!,
        MAGENTA,
        40,
      );
    };
    const [keptPure, droppedPure] = [pureOf(false), pureOf(true)];
    t.true(keptPure > 0.4, `kept: magenta (${keptPure})`);
    t.true(droppedPure < keptPure / 2, `dropped: faded (${droppedPure} against the kept die's ${keptPure})`);

    const [d6, d20] = await roll([
      { type: 'd6', theme: bound.id },
      { type: 'd20', theme: bound.id },
    ]);
    image = await shot(page, 'board-uniforms-textures.png');
    t.true(share(image, d6!, [0, 255, 0], 40) > 0.4, `d6: yellow tint × cyan texture = green: ${share(image, d6!, [0, 255, 0], 40)}`);
    t.true(share(image, d20!, [255, 0, 0], 40) > 0.4, `d20: yellow tint × its own magenta texture = red: ${share(image, d20!, [255, 0, 0], 40)}`);

    const [lifted] = await roll([{ type: 'd6', theme: vertOnly.id }]);
    image = await shot(page, 'board-vertex-only.png');
    t.true(share(image, lifted!, hex('#2040c0'), 90) > 0.25, `the face atlas in the label colour: ${share(image, lifted!, hex('#2040c0'), 90)}`);
    t.false(await page.locator('#theme-note').isVisible(), 'no message for shaders that work');

    const [fallen, standard] = await roll([
      { type: 'd6', theme: broken.id },
      { type: 'd20', theme: 'standard' },
    ]);
    image = await shot(page, 'board-broken-shader.png');
    const message = await note(page);
    t.regex(message, /"Broken".*fragment shader does not compile: line 3: .*built-in look/);
    t.true(share(image, fallen!, hex(GOLD), 90) > 0.25, `built-in gold: ${share(image, fallen!, hex(GOLD), 90)}`);
    t.true(share(image, fallen!, MAGENTA, 90) < 0.01, 'neither the shader nor the label colour');
    t.is(fallen!.top, fallen!.value as number, 'its value still lies up');
    t.true(share(image, standard!, hex(GOLD), 90) > 0.25, 'the other die of the roll is drawn');
    // Again, with a working theme beside it: still one message, the others still drawn with their shaders.
    const [again, solidAgain] = await roll([
      { type: 'd6', theme: broken.id },
      { type: 'd6', theme: solid.id },
    ]);
    image = await shot(page, 'board-broken-again.png');
    t.true(share(image, again!, hex(GOLD), 90) > 0.25);
    t.true(share(image, solidAgain!, MAGENTA, 40) > 0.4);
    t.is(await page.locator('#theme-note').textContent(), message, 'the same one message');
    t.is((await page.locator('#theme-note').getAttribute('data-messages'))!.trim().split('\n').length, 1, 'said once');

    // A shader too heavy for this device: the built-in look, its own message (the latest shown), the page goes on.
    const [slow] = await roll([{ type: 'd6', theme: heavy.id }]);
    image = await shot(page, 'board-heavy-shader.png');
    const heavyMs = await probeMs();
    t.log(`the heavy shader's probe: ${heavyMs.toFixed(0)} ms for 256 pixels (${(heavyMs / light).toFixed(0)}x the solid one)`);
    t.regex((await page.locator('#theme-note').textContent()) ?? '', /"Heavy".*too heavy for this device.*built-in look/);
    t.true(share(image, slow!, hex(GOLD), 90) > 0.25, `built-in gold: ${share(image, slow!, hex(GOLD), 90)}`);
    t.is((await page.locator('#theme-note').getAttribute('data-messages'))!.trim().split('\n').length, 2, 'one message per failed theme');

    // (Joining the room one is already in answers 409: the board expects it.)
    t.deepEqual(
      logs.filter((l) => !l.includes('status of 409')),
      [],
      "no page error, no console error (three's own shader error report is replaced by the message)",
    );
    await page.context().close();
  },
);

interface PreviewDie {
  dieId: string;
  screen: { x: number; y: number; r: number };
}
interface Diagnostic {
  stage: string;
  line: number | null;
  message: string;
  severity: string;
}
type PreviewWindow = { __preview: { dice(): PreviewDie[]; shaderDiagnostics(frag: string | null, vert: string | null): Diagnostic[] } };

async function openPreview(path: string, name: string) {
  const context = await chrome.browser.newContext({ viewport: { width: 1000, height: 720 } });
  const page = await context.newPage();
  const log: string[] = [];
  watchPage(page, log);
  await page.goto(`${ctx.server.url}${path}`);
  await page.waitForSelector('body[data-state="ready"], body[data-state="error"]', { timeout: 30_000 });
  const dice = await page.evaluate(() => (window as unknown as PreviewWindow).__preview.dice());
  const image = await shot(page, name);
  return { page, context, log, dice, image, state: await page.getAttribute('body', 'data-state') };
}

test.serial(
  "the theme preview draws the theme's shaders, falls back from a broken one with one message, and reports compile errors with line numbers",
  async (t) => {
    const owner = await ctx.server.newUser();
    const solid = manifest({
      id: themeId('psolid'),
      name: 'Solid preview',
      label: { color: '#ffffff', background_color: '#ff8000' },
      available_dice: ['d4', 'd6', 'd8', 'd10', 'd12', 'd20'],
    });
    const broken = manifest({
      id: themeId('pbroken'),
      name: 'Broken preview',
      label: { color: '#00ff00', background_color: '#ff00ff' },
      available_dice: ['d6', 'd20'],
    });
    t.is((await postTheme(owner.api, solid, [], { frag_shader: SOLID_MAGENTA })).status, 201);
    t.is((await postTheme(owner.api, broken, [], { frag_shader: BROKEN })).status, 201);
    const code = async (id: unknown) => (await owner.api.post('/share-request', { theme: id })).body.data.code as string;

    const painted = await openPreview(`/theme/${solid.id}/preview?share=${await code(solid.id)}`, 'preview-solid-magenta.png');
    t.is(painted.state, 'ready', painted.log.join('\n'));
    t.is(painted.dice.length, 6);
    for (const die of painted.dice) {
      t.true(share(painted.image, die as never, MAGENTA, 40) > 0.4, `${die.dieId} is magenta: ${share(painted.image, die as never, MAGENTA, 40)}`);
      t.true(share(painted.image, die as never, hex('#ff8000'), 90) < 0.01, `${die.dieId}: not the label colour`);
    }
    t.false(await painted.page.locator('#theme-note').isVisible());

    // The function an editor uses: the compiler's messages, lines counted in the theme's own source.
    const diagnose = (frag: string | null, vert: string | null) =>
      painted.page.evaluate(([f, v]) => (window as unknown as PreviewWindow).__preview.shaderDiagnostics(f, v), [frag, vert] as const);
    t.deepEqual(await diagnose(SOLID_MAGENTA, null), []);
    const fragErrors = await diagnose(BROKEN, null);
    t.true(fragErrors.length >= 1, JSON.stringify(fragErrors));
    t.like(fragErrors[0], { stage: 'fragment', line: 3, severity: 'error' });
    t.regex(fragErrors[0]!.message, /nothing/);
    const vertErrors = await diagnose(null, 'void main() {\n  gl_Position = vec4(position, 1.0)\n}\n');
    t.like(vertErrors[0], { stage: 'vertex', severity: 'error' });
    t.true(vertErrors[0]!.line === 2 || vertErrors[0]!.line === 3, `the missing ";" is reported at line 2 or 3: ${JSON.stringify(vertErrors)}`);
    // A vertex shader without the varyings the default fragment shader reads does not link.
    const linkErrors = await diagnose(null, 'void main() {\n  gl_Position = projectionMatrix * modelViewMatrix * vec4(position, 1.0);\n}\n');
    t.true(
      linkErrors.some((d) => d.severity === 'error'),
      JSON.stringify(linkErrors),
    );
    t.log(JSON.stringify({ fragErrors, vertErrors, linkErrors }));
    t.deepEqual(painted.log, [], 'diagnosing writes no console error');
    await painted.context.close();

    const fallen = await openPreview(`/theme/${broken.id}/preview?share=${await code(broken.id)}`, 'preview-broken-shader.png');
    t.is(fallen.state, 'ready', fallen.log.join('\n'));
    t.regex(await note(fallen.page), /"Broken preview".*fragment shader does not compile: line 3: .*built-in look/);
    t.is(fallen.dice.length, 2, 'the dice still show');
    for (const die of fallen.dice) {
      t.true(share(fallen.image, die as never, hex(GOLD), 90) > 0.2, `${die.dieId} in the built-in gold: ${share(fallen.image, die as never, hex(GOLD), 90)}`);
      t.true(share(fallen.image, die as never, MAGENTA, 90) < 0.01);
    }
    t.deepEqual(fallen.log, []);
    await fallen.context.close();
  },
);
