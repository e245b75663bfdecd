import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { useServer } from '../helpers/server';
import { png, wav } from '../fixtures/assets';
import { manifest, postTheme } from '../fixtures/themes';
import { screenshot, useChromium, watchPage } from './chromium';
import { checkPage } from './pageChecks';
import { PNG } from './png';
import { hex, share } from './table';
import { pageApi, signUpFor } from './diceAccount';

/**
 * `/dice/{themeId}/edit` in Chromium, by clicks and typing: the controls the spec gives a theme's
 * uniforms (a colour picker, a slider named after its float uniform, nothing for a vec3), the live 3D
 * preview following a new colour at once (measured in the screenshot's pixels), **Save version**
 * publishing the next patch version with the new values; a theme's own fragment shader drawing its
 * dice, and a broken one said with its line number while the preview falls back to the built-in look.
 * axe-core and 375 px; screenshots in $EDITOR_SCREENSHOTS (default: a temporary directory).
 */
const ctx = useServer(test);
const chrome = useChromium(test);
const SHOTS = process.env.EDITOR_SCREENSHOTS ?? fs.mkdtempSync(path.join(os.tmpdir(), 'dice-editor-'));
fs.mkdirSync(SHOTS, { recursive: true });

const GOLD = hex('#bf9f22');
// One at a time: each test's preview probes its shaders' cost on SwiftShader (a CPU), which three
// previews drawing at once on a small machine would stall past the board's 50 ms limit.
interface Die {
  dieId: string;
  screen: { x: number; y: number; r: number };
}

let people = 0;
async function signedIn(): Promise<{ context: BrowserContext; page: Page; log: string[] }> {
  const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const log: string[] = [];
  watchPage(page, log);
  await signUpFor(page, ctx.server.url, '/dice/new', `editor${++people}x${Date.now() % 10000}`);
  return { context, page, log };
}

/** Wait for the preview's next redraw after `before` redraws. */
async function redrawn(page: Page, before: number): Promise<number> {
  await page.waitForFunction((n) => Number(document.body.dataset.previewDrawn ?? 0) > n, before, { timeout: 30_000 });
  return Number(await page.evaluate(() => document.body.dataset.previewDrawn));
}

/** The preview's dice and a screenshot of the page as it is. */
async function look(page: Page, name: string): Promise<{ dice: Die[]; image: PNG }> {
  const dice = (await page.evaluate(() => (window as unknown as { __editor: { dice(): unknown[] } }).__editor.dice())) as Die[];
  return { dice, image: PNG.read(await screenshot(page, name)) };
}

const least = (l: { dice: Die[]; image: PNG }, colour: [number, number, number], tolerance = 90) =>
  Math.min(...l.dice.map((d) => share(l.image, d as never, colour, tolerance)));
const most = (l: { dice: Die[]; image: PNG }, colour: [number, number, number], tolerance = 60) =>
  Math.max(...l.dice.map((d) => share(l.image, d as never, colour, tolerance)));

test.serial(
  'the editor: a colour picker and a slider by the spec, the preview follows a new colour at once, Save version publishes the next patch',
  async (t) => {
    const { context, page, log } = await signedIn();
    try {
      const api = await pageApi(page, ctx.server.url);
      const m = manifest({
        name: 'Orchid',
        label: { color: '#ffffff', background_color: '#333333' },
        available_dice: ['d6', 'd20'],
        uniforms: {
          diffuse: { type: 'color', value: '#ff00ff' },
          glow: { type: 'f', value: 0.25, min: 0, max: 1 },
          tilt: { type: 'vec3', value: [0, 1, 0] },
          grain: { type: 'f', value: 2 },
        },
        values: { d6: ['1', '2', '3', '4', '5', { src: 'star.png' }] },
      });
      const created = await postTheme(api, m, [{ name: 'star.png', data: png([255, 220, 0, 255]) }]);
      t.is(created.status, 201, created.text);

      await page.goto(`${ctx.server.url}/dice/${m.id}/edit`);
      await redrawn(page, 0);
      await page.getByRole('heading', { name: 'Editing Orchid' }).waitFor();
      // The spec's controls: diffuse a colour picker, glow a slider at its value, tilt (vec3) and grain (no min/max) none.
      t.is(await page.getByLabel('diffuse', { exact: true }).getAttribute('type'), 'color');
      const glow = page.getByRole('slider', { name: 'glow', exact: true });
      t.is(await glow.inputValue(), '0.25');
      t.deepEqual([await glow.getAttribute('min'), await glow.getAttribute('max')], ['0', '1']);
      t.is(await page.getByLabel('tilt').count(), 0, 'a vec3 uniform is hidden from the editor');
      t.is(await page.getByLabel('grain').count(), 0, 'a float without min and max has no slider');
      const before = await look(page, 'editor-before.png');
      t.is(before.dice.length, 2);
      t.true(least(before, hex('#ff00ff')) > 0.2, `the dice are magenta first: ${least(before, hex('#ff00ff'))}`);

      // Move the slider by keyboard, pick a new colour: the preview follows with no reload.
      await glow.focus();
      for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
      t.is(await glow.inputValue(), '0.3');
      t.is(await page.locator('output[for="uniform-glow"]').textContent(), '0.3');
      const navigations: string[] = [];
      page.on('framenavigated', (f) => navigations.push(f.url()));
      let shown = Number(await page.evaluate(() => document.body.dataset.previewDrawn));
      await page.getByLabel('diffuse', { exact: true }).fill('#00ff00');
      // The slider's redraw may still be running as the colour is picked: the colour's is the one after
      // it (changes that come during a redraw are folded into the next). Up to three redraws are looked at.
      let after = await look(page, 'editor-green.png');
      for (let i = 0; i < 3 && least(after, hex('#00ff00')) <= 0.2; i++) {
        shown = await redrawn(page, shown);
        after = await look(page, 'editor-green.png');
      }
      t.true(least(after, hex('#00ff00')) > 0.2, `the dice turned green: ${least(after, hex('#00ff00'))}`);
      t.true(most(after, hex('#ff00ff')) < 0.01, `no magenta left: ${most(after, hex('#ff00ff'))}`);
      t.deepEqual(navigations, [], 'no reload');

      // A face's text, then save: the next patch version by default.
      await page.getByText('d6', { exact: true }).click();
      await page.getByLabel('d6 face 1', { exact: true }).fill('one');
      // An image face, picked with the face's button.
      const chooser = page.waitForEvent('filechooser');
      await page.getByRole('button', { name: 'Image for d6 face 2' }).click();
      await (await chooser).setFiles({ name: 'moon.png', mimeType: 'image/png', buffer: png([40, 40, 220, 255]) });
      await page.getByRole('img', { name: 'd6 face 2: moon.png' }).waitFor();
      // A sound, added and played here before it is published.
      await page.getByLabel('Add a sound (wav, mp3)').setInputFiles({ name: 'clack.wav', mimeType: 'audio/wav', buffer: wav(800) });
      await page.evaluate(() => {
        const played: string[] = ((window as unknown as { played: string[] }).played = []);
        // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the element as `this`
        const play = HTMLMediaElement.prototype.play;
        HTMLMediaElement.prototype.play = function (this: HTMLMediaElement) {
          played.push(this.src);
          return play.call(this);
        };
      });
      await page.getByRole('button', { name: 'Play clack.wav' }).click();
      t.regex(((await page.evaluate(() => (window as unknown as { played: string[] }).played)) as string[]).join(), /^blob:/);
      t.is(await page.getByLabel('Version').inputValue(), '1.0.1');
      await page.getByRole('button', { name: 'Save version' }).click();
      const answer = page.locator('#save-title ~ form .message');
      await answer.waitFor({ timeout: 30_000 });
      t.is(await answer.textContent(), `Version 1.0.1 of ${m.id} is published.`);
      const versions = (await api.get(`/theme/${m.id}/version`)).body.data as Array<Record<string, any>>;
      t.deepEqual(versions.map((v) => v.version).sort(), ['1.0.0', '1.0.1']);
      const saved = versions.find((v) => v.version === '1.0.1')!;
      t.deepEqual(saved.uniforms, { ...(m.uniforms as object), diffuse: { type: 'color', value: '#00ff00' }, glow: { type: 'f', value: 0.3, min: 0, max: 1 } });
      t.is(saved.values.d6[0], 'one');
      t.regex(saved.values.d6[1].src, /moon\.png$/, 'the image picked here is published');
      t.like(saved.sounds[0], { on: 'die.collide' });
      t.regex(saved.sounds[0].src, /clack\.wav$/);
      t.regex(saved.values.d6[5].src, /star\.png$/, 'the image face goes on, its file published again');
      t.is(await page.getByLabel('Version').inputValue(), '1.0.2', 'the next save proposes the next patch');
      await checkPage(t, page, 'editor', { shots: SHOTS });
      t.deepEqual(log, []);
    } finally {
      await context.close();
    }
  },
);

test.serial("a theme's own fragment shader paints the preview; a broken one is said with its line number and the preview falls back", async (t) => {
  const { context, page, log } = await signedIn();
  try {
    const api = await pageApi(page, ctx.server.url);
    const blue = 'uniform vec3 tint;\nvoid main() {\n  gl_FragColor = vec4(tint, 1.0);\n}\n';
    const m = manifest({ name: 'Solid', available_dice: ['d6', 'd8'], uniforms: { tint: { type: 'color', value: [0, 0, 1] } } });
    const created = await postTheme(api, m, [], { frag_shader: blue });
    t.is(created.status, 201, created.text);

    await page.goto(`${ctx.server.url}/dice/${m.id}/edit`);
    let drawn = await redrawn(page, 0);
    const painted = await look(page, 'editor-shader.png');
    t.true(least(painted, [0, 0, 255], 40) > 0.3, `the shader paints the dice blue: ${least(painted, [0, 0, 255], 40)}`);
    t.is(await page.locator('#preview-note').count(), 0);

    // The shader's own uniform, from the editor's colour picker, reaches it at once.
    await page.getByLabel('tint', { exact: true }).fill('#ff0000');
    drawn = await redrawn(page, drawn);
    const red = await look(page, 'editor-shader-red.png');
    t.true(least(red, [255, 0, 0], 40) > 0.3, `the shader's uniform follows the picker: ${least(red, [255, 0, 0], 40)}`);

    // A typo on line 3: the compiler's error with its line, one message, the dice in the built-in look.
    await page.getByLabel('Fragment shader').fill('uniform vec3 tint;\nvoid main() {\n  gl_FragColor = vec4(tnt, 1.0);\n}\n');
    drawn = await redrawn(page, drawn);
    const diagnostics = page.locator('#frag-shader-diagnostics li');
    await diagnostics.first().waitFor();
    t.regex((await diagnostics.first().textContent()) ?? '', /^Error, line 3: .*tnt/);
    t.regex(
      (await page.locator('#preview-note').textContent()) ?? '',
      /The theme "Solid" could not be drawn \(its fragment shader does not compile: line 3: .*\): its dice are drawn in the built-in look\./,
    );
    const fallen = await look(page, 'editor-shader-broken.png');
    t.true(least(fallen, GOLD, 90) > 0.2, `the built-in gold: ${least(fallen, GOLD, 90)}`);
    t.true(most(fallen, [255, 0, 0], 40) < 0.01, 'no red');
    await checkPage(t, page, 'editor-shader-error', { shots: SHOTS, dark: false });

    // Fixed: drawn by the shader again.
    await page.getByLabel('Fragment shader').fill(blue);
    await redrawn(page, drawn);
    t.is(await page.locator('#frag-shader-diagnostics li').count(), 0);
    t.is(await page.locator('#preview-note').count(), 0);
    t.true(least(await look(page, 'editor-shader-fixed.png'), [255, 0, 0], 40) > 0.3);
    t.deepEqual(log, []);
  } finally {
    await context.close();
  }
});

test.serial("someone else's theme is saved as a theme of one's own, with `extend` naming it", async (t) => {
  const { context, page, log } = await signedIn();
  try {
    const api = await pageApi(page, ctx.server.url);
    const base = (await api.get('/theme/standard')).body.data;
    await page.goto(`${ctx.server.url}/dice/standard/edit`);
    await redrawn(page, 0);
    await page.getByRole('heading', { name: `A copy of ${base.name}` }).waitFor();
    const id = await page.getByLabel('Theme id of your copy').inputValue();
    t.regex(id, /^standard-editor/);
    await page.getByLabel('Label background colour').fill('#116633');
    await page.getByLabel('Version').fill('2.0.0');
    const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/api/1.0/theme'));
    await page.getByRole('button', { name: 'Save version' }).click();
    // The manifest field of the multipart body, as the page sent it.
    const body = (await sent).postData() ?? '';
    const manifestSent = JSON.parse(/name="manifest"\r\n\r\n(.*)\r\n/.exec(body)![1]!);
    t.is(manifestSent.extend, 'standard');
    t.is(manifestSent.id, id);
    const answer = page.locator('#save-title ~ form .message');
    await answer.waitFor({ timeout: 30_000 });
    t.is(await answer.textContent(), `Version 2.0.0 of ${id} is published.`);
    t.is(new URL(page.url()).pathname, `/dice/${id}/edit`, "the address is the copy's");
    const copy = (await api.get(`/theme/${id}`)).body.data;
    t.is(copy.label.background_color, '#116633');
    t.deepEqual(copy.available_dice, base.available_dice);
    t.is(copy.user.username, (await api.get('/user')).body.data.username, "the copy is the account's");
    // Saved again: one's own theme now, so no copy id, the next patch.
    t.is(await page.getByLabel('Theme id of your copy').count(), 0);
    t.is(await page.getByLabel('Version').inputValue(), '2.0.1');
    t.deepEqual(log, []);
  } finally {
    await context.close();
  }
});
