import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { useServer } from '../helpers/server';
import { png, wav } from '../fixtures/assets';
import { useChromium, watchPage } from './chromium';
import { checkPage } from './pageChecks';
import { pageApi, signUpFor } from './diceAccount';

/**
 * `/dice/new` in Chromium, by clicks and typing: a signed-out browser is sent to sign in and comes
 * back; a theme with a colour uniform and a float uniform with min and max is filled in; the server's
 * problems are said beside the field and the file they name (a bad theme id, a file the manifest does
 * not use), never as JSON; fixed by typing, the form publishes; a manifest file with its files dropped
 * in publishes too, the upload's progress shown. axe-core and 375 px; screenshots in $EDITOR_SCREENSHOTS (default: a temporary directory).
 */
const ctx = useServer(test);
const chrome = useChromium(test);
const SHOTS = process.env.EDITOR_SCREENSHOTS ?? fs.mkdtempSync(path.join(os.tmpdir(), 'dice-editor-'));
fs.mkdirSync(SHOTS, { recursive: true });

/** Drop files on an element as a person drags them from their desktop. */
async function dropFiles(page: Page, selector: string, files: Array<{ name: string; type: string; data: Buffer }>) {
  const transfer = await page.evaluateHandle(
    (list) => {
      const dt = new DataTransfer();
      for (const f of list) dt.items.add(new File([Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0))], f.name, { type: f.type }));
      return dt;
    },
    files.map((f) => ({ name: f.name, type: f.type, base64: f.data.toString('base64') })),
  );
  await page.dispatchEvent(selector, 'dragover', { dataTransfer: transfer });
  await page.dispatchEvent(selector, 'drop', { dataTransfer: transfer });
}

test("a theme uploaded through the form: the server's problems beside their fields, then published with its files", async (t) => {
  const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const log: string[] = [];
  watchPage(page, log);
  try {
    await signUpFor(page, ctx.server.url, '/dice/new', `maker${Date.now() % 100000}`);
    await page.getByRole('heading', { name: 'New dice theme' }).waitFor();

    // The form: a bad id, a colour uniform and a float with min and max, and a file nothing names.
    await page.getByLabel('Theme id').fill('Glass Dice!');
    await page.getByLabel('Name').fill('Glass');
    await page.getByLabel('Label background colour').fill('#204080');
    await page.getByRole('button', { name: 'Add a uniform' }).click();
    await page.getByLabel('Uniform 1 name').fill('diffuse');
    await page.getByLabel('Uniform 1 type').selectOption('color');
    await page.getByLabel('Uniform 1 value').fill('#cc2222');
    await page.getByRole('button', { name: 'Add a uniform' }).click();
    await page.getByLabel('Uniform 2 name').fill('glow');
    await page.getByLabel('Uniform 2 value').fill('0.25');
    await page.getByLabel('Uniform 2 minimum').fill('0');
    await page.getByLabel('Uniform 2 maximum').fill('1');
    await page.getByLabel('Choose files').setInputFiles({ name: 'stray.png', mimeType: 'image/png', buffer: png([0, 0, 255, 255]) });
    await page.getByText('stray.png').waitFor();
    await page.getByRole('button', { name: 'Upload theme' }).click();

    // Each problem beside its field: the id's under the id, the stray file's under the file.
    await page.getByText('The theme was not published').waitFor();
    const idField = page.locator('.field', { has: page.getByLabel('Theme id') });
    t.regex((await idField.locator('.problems').textContent()) ?? '', /id/i);
    t.is(await page.getByLabel('Theme id').getAttribute('aria-invalid'), 'true');
    const stray = page.locator('.files > li', { hasText: 'stray.png' });
    t.regex((await stray.locator('.problems').textContent()) ?? '', /not referenced/);
    t.is(
      await page
        .locator('.field', { has: page.getByLabel('Name') })
        .locator('.problems')
        .count(),
      0,
      'no problem where there is none',
    );
    t.notRegex((await page.locator('main').textContent()) ?? '', /"path"|\{"/, 'never the raw JSON');
    await checkPage(t, page, 'upload-problems', { shots: SHOTS });

    // Fixed by typing, the stray file removed: published from the form alone.
    const formId = `form-${Date.now() % 100000}`;
    await page.getByLabel('Theme id').fill(formId);
    await page.getByRole('button', { name: 'Remove stray.png' }).click();
    await page.getByRole('button', { name: 'Upload theme' }).click();
    await page.getByRole('heading', { name: 'Theme published' }).waitFor({ timeout: 30_000 });
    const api = await pageApi(page, ctx.server.url);
    const fromForm = (await api.get(`/theme/${formId}`)).body.data;
    t.deepEqual(fromForm.uniforms, { diffuse: { type: 'color', value: '#cc2222' }, glow: { type: 'f', value: 0.25, min: 0, max: 1 } });
    t.like(fromForm, { name: 'Glass', version: '1.0.0', label: { color: '#ffffff', background_color: '#204080' } });

    // A manifest file fills the form; its files are dropped in; the upload shows its progress.
    await page.getByRole('link', { name: 'New theme' }).click();
    await page.getByRole('heading', { name: 'New dice theme' }).waitFor();
    const id = `glass-${Date.now() % 100000}`;
    const manifest = {
      api_version: '1.0',
      id,
      name: 'Glass',
      description: 'Clear dice',
      version: '1.0.0',
      label: { color: '#ffffff', background_color: '#204080' },
      available_dice: ['d6', 'd20'],
      uniforms: { diffuse: { type: 'color', value: '#cc2222' }, glow: { type: 'f', value: 0.25, min: 0, max: 1 }, tilt: { type: 'vec3', value: [0, 1, 0] } },
      values: { d6: ['1', '2', '3', '4', '5', { src: 'star.png' }] },
      sounds: [{ src: 'clack.wav', on: 'die.collide' }],
    };
    await page
      .getByLabel('Manifest file (optional)')
      .setInputFiles({ name: 'glass.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(manifest)) });
    await page.getByText('The form now holds glass.json').waitFor();
    t.is(await page.getByLabel('Theme id').inputValue(), id);
    t.is(await page.getByLabel('Uniform 2 name').inputValue(), 'glow');
    const big = wav(3 * 1024 * 1024);
    await dropFiles(page, '.drop', [
      { name: 'star.png', type: 'image/png', data: png([255, 220, 0, 255]) },
      { name: 'clack.wav', type: 'audio/wav', data: big },
    ]);
    await page.getByText('clack.wav').waitFor();
    // Record what the progress bar showed while the body went out.
    await page.evaluate(() => {
      const seen: number[] = ((window as unknown as { seenProgress: number[] }).seenProgress = []);
      new MutationObserver(() => {
        const bar = document.querySelector('progress');
        if (bar) seen.push(Number(bar.getAttribute('value') ?? (bar as HTMLProgressElement).value));
      }).observe(document.body, { subtree: true, childList: true, attributes: true });
    });
    await page.getByRole('button', { name: 'Upload theme' }).click();
    await page.getByRole('heading', { name: 'Theme published' }).waitFor({ timeout: 30_000 });
    t.regex((await page.getByRole('status').textContent()) ?? '', new RegExp(`Glass \\(${id}\\) version 1\\.0\\.0 is published`));
    const seen = (await page.evaluate(() => (window as unknown as { seenProgress: number[] }).seenProgress)) as number[];
    t.true(seen.length > 0 && Math.max(...seen) > 0, `the progress bar moved: ${seen.slice(0, 5).join(', ')}`);
    await checkPage(t, page, 'upload-done', { shots: SHOTS });

    // What the API holds is what the form said.
    const theme = (await api.get(`/theme/${id}`)).body.data;
    t.deepEqual(theme.uniforms, manifest.uniforms);
    t.deepEqual(theme.available_dice, ['d6', 'd20']);
    t.deepEqual(Object.keys(theme.assets).sort(), ['clack.wav', 'star.png']);
    t.is(await page.getByRole('link', { name: 'Open it in the editor' }).getAttribute('href'), `/dice/${id}/edit`);
    // The refused upload's 400 is the only thing the console said.
    t.deepEqual(
      log.filter((l) => !l.includes('status of 400')),
      [],
    );
  } finally {
    await context.close();
  }
});
