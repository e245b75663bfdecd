import test from 'ava';
import { WebClient } from '../accounts/webClient';
import { useServer } from '../helpers/server';
import { bare, draftOf, fieldFor, fileNames, groupDetails, manifestOf, nextPatch, sliderValue, uniformControl } from '../../src/pages/editor/draft';
import type { Theme } from '../../src/client/types';

/** /dice/new and /dice/{themeId}/edit (src/pages/editor): who gets them, their headers and assets; the drafts' rules (draft.ts). */
const ctx = useServer(test);

test('signed out, the dice pages send the browser to sign in and come back', async (t) => {
  for (const path of ['/dice/new', '/dice/standard/edit']) {
    const res = await fetch(`${ctx.server.url}${path}`, { redirect: 'manual' });
    t.is(res.status, 303, path);
    t.is(res.headers.get('location'), `/signin?next=${encodeURIComponent(path)}`);
  }
  t.is((await fetch(`${ctx.server.url}/dice/Not%20An%20Id/edit`)).status, 404);
});

test('signed in: the pages, their headers (sounds picked on the page may play: blob: media) and their assets', async (t) => {
  const web = new WebClient(ctx.server.url);
  await web.signUp(`dice${Date.now() % 100_000}`, 'a long enough password');
  for (const [path, view] of [
    ['/dice/new', 'new'],
    ['/dice/standard/edit', 'edit'],
  ] as const) {
    const res = await web.get(path);
    t.is(res.status, 200, path);
    t.regex(res.text, new RegExp(`data-view="${view}"`));
  }
  const raw = await fetch(`${ctx.server.url}/dice/new`, { headers: { cookie: web.cookieHeader() } });
  t.regex(raw.headers.get('content-security-policy') ?? '', /script-src 'self';.*frame-ancestors 'none'; media-src 'self' blob:$/);
  t.is(raw.headers.get('cache-control'), 'no-store');
  const html = await raw.text();
  t.regex(html, /data-theme|data-view="new"/);
  for (const src of [...html.matchAll(/(?:src|href)="(\/dice-editor\/assets\/[^"]+)"/g)].map((m) => m[1]!)) {
    const asset = await fetch(`${ctx.server.url}${src}`);
    t.is(asset.status, 200, src);
    t.is(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  }
  t.is((await fetch(`${ctx.server.url}/dice-editor/assets/other.js`)).status, 404);
});

test("the editor's controls by docs/spec.md 2.3.3: a colour picker, a slider for a float with both min and max, nothing else", (t) => {
  t.is(uniformControl({ type: 'color', value: '#fff' }), 'color');
  t.is(uniformControl({ type: 'f', value: 0.5, min: 0, max: 1 }), 'slider');
  t.is(uniformControl({ type: 'f', value: 0.5, min: 0 }), null);
  t.is(uniformControl({ type: 'vec3', value: [0, 0, 0] }), null);
  t.is(uniformControl({ type: 'vec4', value: [0, 0, 0, 1] }), null);
  t.is(sliderValue({ type: 'f', value: 0.25, min: 0, max: 1 }), 0.25, 'the slider starts at the value');
  t.is(sliderValue({ type: 'f', value: 7, min: 0, max: 1 }), 1);
});

test("next patch versions; error paths to the page's fields", (t) => {
  t.is(nextPatch('1.0.0'), '1.0.1');
  t.is(nextPatch('2.9.19'), '2.9.20');
  t.is(nextPatch('1.2.3-beta.1'), '1.2.3');
  t.is(nextPatch('1.2.3+build'), '1.2.4');
  t.is(bare('manifest.uniforms.glow.max'), 'uniforms.glow.max');
  const fields = ['id', 'uniforms.glow', 'uniforms.glow2', 'values.d6', 'assets[0]'];
  t.is(fieldFor('manifest.uniforms.glow.max', fields), 'uniforms.glow');
  t.is(fieldFor('manifest.uniforms.glow2', fields), 'uniforms.glow2');
  t.is(fieldFor('manifest.values.d6[2].src', fields), 'values.d6');
  t.is(fieldFor('assets[0]', fields), 'assets[0]');
  t.is(fieldFor('manifest.extend', fields), null);
  t.deepEqual(
    [
      ...groupDetails(
        [
          { path: 'manifest.id', message: '"manifest.id" is bad' },
          { path: 'manifest.extend', message: 'no such theme' },
        ],
        fields,
      ),
    ],
    [
      ['id', ['"id" is bad']],
      ['', ['extend: no such theme']],
    ],
  );
});

test('a theme as the API answers it becomes a manifest with file names, and back to the API unchanged', (t) => {
  const url = (name: string) => `http://x/api/1.0/theme/t/version/1.0.0/asset/abc/${name}`;
  const theme = {
    id: 't',
    name: 'T',
    description: '',
    version: '1.0.0',
    api_version: '1.0',
    label: { color: '#fff', background_color: '#000' },
    available_dice: ['d6'],
    values: { d6: [1, 2, 3, 4, 5, { src: url('star.png') }] },
    sounds: [{ src: { d6: url('clack.wav') }, on: 'die.collide' }],
    textures: [{ binding: 'normalMap', src: url('n.png') }],
    meshes: {},
    sizes: { d6: 1.5 },
    physics: {},
    uniforms: { glow: { type: 'f', value: 1 } },
    assets: { 'star.png': url('star.png'), 'clack.wav': url('clack.wav'), 'n.png': url('n.png') },
    frag_shader: null,
    vert_shader: null,
    user: null,
    created_at: '',
    updated_at: '',
  } as unknown as Theme;
  const { draft, urls } = draftOf(theme);
  t.deepEqual(draft.values.d6![5], { src: 'star.png' });
  t.deepEqual(draft.sounds[0]!.src, { d6: 'clack.wav' });
  t.deepEqual(fileNames(draft).sort(), ['clack.wav', 'n.png', 'star.png']);
  t.is(urls.get('n.png'), url('n.png'));
  const m = manifestOf({ ...draft, version: '1.0.1' }, 'base');
  t.like(m, { api_version: '1.0', id: 't', version: '1.0.1', extend: 'base', sizes: { d6: 1.5 } });
  t.false('meshes' in m || 'physics' in m, 'empty keys are left out');
});
