import { createHash } from 'node:crypto';
import test from 'ava';
import { useServer } from '../helpers/server';
import { request } from '../helpers/http';
import { fbx, fbxAscii, html, jpeg, ktx2, mp3, png, wav, webp } from '../fixtures/assets';
import { fileFieldsAsNames, manifest, postTheme, themeId } from '../fixtures/themes';
import { BUILT_IN_THEME_IDS, DEFAULT_THEME_ID } from '../../src/themes/defaultTheme';
import { contrastRatio } from '../../src/themes/manifest/label';

const ctx = useServer(test);
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const THEME_KEYS = [
  'id',
  'name',
  'description',
  'version',
  'api_version',
  'label',
  'available_dice',
  'meshes',
  'sizes',
  'physics',
  'sounds',
  'uniforms',
  'values',
  'textures',
  'frag_shader',
  'vert_shader',
  'assets',
  'user',
  'created_at',
  'updated_at',
].sort();

/** A theme using one file of every kind. */
function fullTheme(overrides: Record<string, unknown> = {}) {
  return {
    m: manifest({
      name: 'Wooden Dice',
      available_dice: ['d6', 'd20', { id: 'df', type: 'd6', notation: 'dF' }],
      meshes: { d6: 'd6.fbx', d20: 'd20.fbx' },
      sizes: { d6: 1, d20: 1.2 },
      physics: { inertia: { d6: 3 }, weight: { d20: 1.5 } },
      sounds: [
        { on: 'die.collide', src: 'hit.wav' },
        { on: 'die.value', src: { d20: 'crit.mp3' }, value: 20 },
        { on: 'roll.loading', src: 'drum.mp3', value: '>=15' },
      ],
      uniforms: { roughness: { type: 'f', value: 0.4, min: 0, max: 1 }, tint: { type: 'color', value: '#884422' } },
      values: { df: [-1, -1, 0, 0, 1, { src: 'plus.webp' }] },
      textures: [
        { binding: 'map', src: { d6: 'wood.png', d20: 'wood.jpg' } },
        { binding: 'env', src: 'sky.ktx2' },
      ],
      ...overrides,
    }),
    files: [
      { name: 'd6.fbx', data: fbx() },
      { name: 'd20.fbx', data: fbxAscii() },
      { name: 'hit.wav', data: wav() },
      { name: 'crit.mp3', data: mp3() },
      { name: 'drum.mp3', data: mp3() },
      { name: 'plus.webp', data: webp() },
      { name: 'wood.png', data: png() },
      { name: 'wood.jpg', data: jpeg() },
      { name: 'sky.ktx2', data: ktx2() },
    ],
  };
}

test('the built-in theme exists from the first start and every new user sees it', async (t) => {
  const { api } = await ctx.server.newUser();
  t.is(DEFAULT_THEME_ID, 'standard');
  const list = await api.get('/theme');
  t.is(list.status, 200);
  t.is(list.body.type, 'theme[]');
  t.deepEqual(
    list.body.data.map((th: { id: string }) => th.id),
    [...BUILT_IN_THEME_IDS].sort(),
  );
  const one = await api.get(`/theme/${DEFAULT_THEME_ID}`);
  t.is(one.status, 200);
  t.is(one.body.type, 'theme');
  const theme = one.body.data;
  t.deepEqual(Object.keys(theme).sort(), THEME_KEYS);
  t.deepEqual(theme.available_dice, ['d4', 'd6', 'd8', 'd10', 'd10x', 'd12', 'd20', 'd2', 'd16']);
  t.deepEqual(theme.values.d10x, [0, 10, 20, 30, 40, 50, 60, 70, 80, 90]);
  t.deepEqual(
    theme.values.d20,
    Array.from({ length: 20 }, (_, i) => i + 1),
  );
  t.deepEqual(theme.assets, {});
  t.is(theme.user.username, 'system');
  t.is(theme.version, '1.0.0');
  t.true(contrastRatio(theme.label.color, theme.label.background_color) >= 4.5);
});

test('nobody can delete or publish over the built-in theme', async (t) => {
  const { api } = await ctx.server.newUser();
  const del = await api.delete(`/theme/${DEFAULT_THEME_ID}`);
  t.is(del.status, 403);
  t.is(del.body.data.code, 'forbidden');
  const post = await postTheme(api, manifest({ id: DEFAULT_THEME_ID, version: '9.0.0' }));
  t.is(post.status, 403);
  t.is((await api.get(`/theme/${DEFAULT_THEME_ID}`)).body.data.version, '1.0.0');
});

test('POST /theme stores a full theme and answers it whole, owned by the caller', async (t) => {
  const { api, user } = await ctx.server.newUser();
  const { m, files } = fullTheme();
  const res = await postTheme(api, m, files, { frag_shader: 'void main() { gl_FragColor = vec4(1.0); }', vert_shader: 'void main() {}' });
  t.is(res.status, 201, res.text);
  t.is(res.body.type, 'theme');
  const theme = res.body.data;
  t.deepEqual(Object.keys(theme).sort(), THEME_KEYS);
  t.is(theme.id, m.id);
  t.is(theme.name, 'Wooden Dice');
  t.is(theme.description, m.description);
  t.is(theme.version, '1.0.0');
  t.is(theme.api_version, '1.0');
  t.deepEqual(theme.available_dice, m.available_dice);
  // File fields are presented as the URLs of the files (docs/api/themes.md), in the manifest's places.
  t.deepEqual(fileFieldsAsNames(theme), { meshes: m.meshes, sounds: m.sounds, values: m.values, textures: m.textures });
  t.deepEqual(theme.sizes, m.sizes);
  t.deepEqual(theme.physics, m.physics);
  t.deepEqual(theme.uniforms, m.uniforms);
  t.is(theme.frag_shader, 'void main() { gl_FragColor = vec4(1.0); }');
  t.is(theme.vert_shader, 'void main() {}');
  t.is(theme.user.uuid, user.uuid);
  for (const key of ['subscription', 'subscription_level', 'is_merchant', 'is_registered']) t.true(key in theme.user, key);
  t.false('id' in theme.user);
  t.regex(theme.created_at, TIMESTAMP);
  t.regex(theme.updated_at, TIMESTAMP);
  t.deepEqual(Object.keys(theme.assets).sort(), files.map((f) => f.name).sort());
  for (const [name, url] of Object.entries(theme.assets)) {
    const sha256 = createHash('sha256')
      .update(files.find((f) => f.name === name)!.data)
      .digest('hex');
    t.is(url, `${ctx.server.url}/api/1.0/theme/${m.id}/version/1.0.0/asset/${sha256}/${encodeURIComponent(name)}`);
  }
  // reading it back gives the same
  const again = await api.get(`/theme/${m.id}`);
  t.deepEqual(again.body.data, theme);
});

test('assets are served with their sniffed type, a hash ETag and immutable caching', async (t) => {
  const { api } = await ctx.server.newUser();
  const { m, files } = fullTheme();
  const res = await postTheme(api, m, files);
  t.is(res.status, 201, res.text);
  const types: Record<string, string> = {
    'd6.fbx': 'application/octet-stream',
    'hit.wav': 'audio/wav',
    'crit.mp3': 'audio/mpeg',
    'plus.webp': 'image/webp',
    'wood.png': 'image/png',
    'wood.jpg': 'image/jpeg',
    'sky.ktx2': 'image/ktx2',
  };
  for (const [name, type] of Object.entries(types)) {
    const url = res.body.data.assets[name];
    const got = await fetch(url, { headers: { authorization: `Bearer ${api.key}` } });
    t.is(got.status, 200, name);
    t.is(got.headers.get('content-type'), type, name);
    t.is(got.headers.get('cache-control'), 'private, max-age=31536000, immutable');
    t.is(got.headers.get('x-content-type-options'), 'nosniff');
    const etag = got.headers.get('etag');
    t.regex(etag ?? '', /^"[0-9a-f]{64}"$/);
    const bytes = Buffer.from(await got.arrayBuffer());
    t.true(bytes.equals(files.find((f) => f.name === name)!.data), name);
    const cached = await fetch(url, { headers: { authorization: `Bearer ${api.key}`, 'if-none-match': etag! } });
    t.is(cached.status, 304);
    t.is((await cached.arrayBuffer()).byteLength, 0);
  }
  const missing = await api.get(`/theme/${m.id}/version/1.0.0/asset/nope.png`);
  t.is(missing.status, 404);
  t.is(missing.body.data.code, 'not_found');
  t.is((await api.get(`/theme/${m.id}/version/9.9.9/asset/wood.png`)).status, 404);
  const keyed = `${ctx.server.url}/api/1.0/theme/${m.id}/version/1.0.0/asset/wood.png`;
  t.is((await request(keyed, 'GET')).status, 401, 'the keyed route (by name) still needs a key');
  t.is((await fetch(keyed, { headers: { authorization: `Bearer ${api.key}` } })).status, 200, 'and still works with one');
});

test('a manifest may arrive as a file part, and shaders too', async (t) => {
  const { api } = await ctx.server.newUser();
  const m = manifest();
  const form = new FormData();
  form.append('manifest', new Blob([JSON.stringify(m)], { type: 'application/json' }), 'manifest.json');
  form.append('frag_shader', new Blob(['void main() {}']), 'shader.frag');
  const res = await api.post('/theme', undefined, { raw: form });
  t.is(res.status, 201, res.text);
  t.is(res.body.data.frag_shader, 'void main() {}');
  t.is(res.body.data.vert_shader, null);
});

test('available_dice left out is the standard set; an empty label is derived from the name', async (t) => {
  const { api } = await ctx.server.newUser();
  const res = await postTheme(api, manifest({ name: 'Emerald Hoard' }));
  t.is(res.status, 201, res.text);
  t.deepEqual(res.body.data.available_dice, ['d4', 'd6', 'd8', 'd10', 'd10x', 'd12', 'd20']);
  const { label } = res.body.data;
  t.regex(label.background_color, /^#[0-9a-f]{6}$/);
  t.true(['#000000', '#ffffff'].includes(label.color));
  t.true(contrastRatio(label.color, label.background_color) >= 4.5);
  const same = await postTheme(api, manifest({ name: 'Emerald Hoard', label: {} }));
  t.deepEqual(same.body.data.label, label, 'the same name gives the same colours');
  const given = await postTheme(api, manifest({ label: { color: '#ffffff', background_color: '#123456' } }));
  t.deepEqual(given.body.data.label, { color: '#ffffff', background_color: '#123456' });
});

test('every problem of a creation is listed with its path in one 400', async (t) => {
  const { api } = await ctx.server.newUser();
  const res = await postTheme(
    api,
    manifest({
      api_version: '2',
      version: 'one',
      label: { color: 'red' },
      available_dice: ['d6', { id: 'x', type: 'd7' }],
      meshes: { d6: 'd6.fbx', d8: 'd8.fbx' },
      sounds: [{ on: 'die.bounce', src: 'hit.wav' }],
      uniforms: { tint: { type: 'color', value: 'orange' } },
    }),
    [
      { name: 'd6.fbx', data: png() },
      { name: 'unused.wav', data: wav() },
    ],
  );
  t.is(res.status, 400);
  t.is(res.body.data.code, 'validation_error');
  const paths = res.body.data.details.map((d: { path: string }) => d.path).sort();
  t.deepEqual(paths, [
    'assets[0]',
    'assets[1]',
    'manifest.api_version',
    'manifest.available_dice[1].type',
    'manifest.label.color',
    'manifest.meshes.d8',
    'manifest.sounds[0].on',
    'manifest.uniforms.tint.value',
    'manifest.version',
  ]);
  for (const d of res.body.data.details) t.is(typeof d.message, 'string');
  t.regex(res.body.data.message, /more problems/);
});

test('references to missing dice and files are 400s with paths', async (t) => {
  const { api } = await ctx.server.newUser();
  const res = await postTheme(api, manifest({ available_dice: ['d6'], sizes: { d20: 2 }, textures: [{ binding: 'map', src: 'wood.png' }] }));
  t.is(res.status, 400);
  t.deepEqual(res.body.data.details.map((d: { path: string }) => d.path).sort(), ['manifest.sizes.d20', 'manifest.textures[0].src']);
});

test('files are checked by content, not by name', async (t) => {
  const { api } = await ctx.server.newUser();
  const disguised = await postTheme(api, manifest({ textures: [{ binding: 'map', src: 'x.png' }] }), [{ name: 'x.png', data: html(), type: 'image/png' }]);
  t.is(disguised.status, 400);
  t.deepEqual(
    disguised.body.data.details.map((d: { path: string }) => d.path),
    ['assets[0]'],
  );
  t.regex(disguised.body.data.details[0].message, /not an accepted file type/);
  const misnamed = await postTheme(api, manifest({ textures: [{ binding: 'map', src: 'x.png' }] }), [{ name: 'x.png', data: jpeg() }]);
  t.is(misnamed.status, 400);
  t.regex(misnamed.body.data.details[0].message, /jpeg/);
  const wrongUse = await postTheme(api, manifest({ meshes: { d6: 'd6.fbx' }, sounds: [{ on: 'die.collide', src: 'd6.fbx' }] }), [
    { name: 'd6.fbx', data: fbx() },
  ]);
  t.is(wrongUse.status, 400);
  t.deepEqual(
    wrongUse.body.data.details.map((d: { path: string }) => d.path),
    ['manifest.sounds[0].src'],
  );
});

test('file names with folder parts, duplicates and unreferenced uploads are refused', async (t) => {
  const { api } = await ctx.server.newUser();
  const m = manifest({ textures: [{ binding: 'map', src: 'evil.png' }] });
  for (const name of ['../evil.png', 'dir/evil.png', '..\\evil.png', '/etc/evil.png']) {
    const res = await postTheme(api, m, [{ name, data: png() }]);
    t.is(res.status, 400, name);
    t.true(
      res.body.data.details.some((d: { path: string; message: string }) => d.path === 'assets[0]' && /folder/.test(d.message)),
      name,
    );
  }
  const dup = await postTheme(api, m, [
    { name: 'evil.png', data: png() },
    { name: 'evil.png', data: png() },
  ]);
  t.is(dup.status, 400);
  t.deepEqual(
    dup.body.data.details.map((d: { path: string }) => d.path),
    ['assets[1]'],
  );
  const extra = await postTheme(api, m, [
    { name: 'evil.png', data: png() },
    { name: 'extra.png', data: png() },
  ]);
  t.is(extra.status, 400);
  t.deepEqual(
    extra.body.data.details.map((d: { path: string }) => d.path),
    ['assets[1]'],
  );
  t.regex(extra.body.data.details[0].message, /not referenced/);
});

test('the multipart form itself: 415 for JSON, 400 for a missing manifest, an unexpected file field or a broken body', async (t) => {
  const { api, key } = await ctx.server.newUser();
  const json = await api.post('/theme', { manifest: manifest() });
  t.is(json.status, 415);
  t.is(json.body.data.code, 'unsupported_media_type');
  const empty = await api.post('/theme');
  t.is(empty.status, 415);
  const none = await postTheme(api, null);
  t.is(none.status, 400);
  t.deepEqual(
    none.body.data.details.map((d: { path: string }) => d.path),
    ['manifest'],
  );
  const badJson = await postTheme(api, '{"id": ');
  t.is(badJson.status, 400);
  t.regex(badJson.body.data.details[0].message, /not valid JSON/);
  const odd = await postTheme(api, manifest(), [{ name: 'a.png', data: png(), field: 'pictures' }]);
  t.is(odd.status, 400);
  t.deepEqual(
    odd.body.data.details.map((d: { path: string }) => d.path),
    ['pictures'],
  );
  const broken = await request(`${ctx.server.url}/api/1.0/theme`, 'POST', {
    key,
    raw: '--xyz\r\nContent-Disposition: form-data; name="manifest"\r\n\r\n{"id"',
    headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
  });
  t.is(broken.status, 400);
  t.is(broken.body.data.code, 'invalid_upload');
  // busboy throws on a multipart header without a boundary before multer sees the body: still a 400.
  const noBoundary = await request(`${ctx.server.url}/api/1.0/theme`, 'POST', { key, raw: '--x\r\n\r\n', headers: { 'content-type': 'multipart/form-data' } });
  t.is(noBoundary.status, 400);
  t.is(noBoundary.body.data.code, 'invalid_upload');
});

test('size limits: one file over 8 MiB, files over 32 MiB together, a manifest over 256 KiB are 413s', async (t) => {
  const { api } = await ctx.server.newUser();
  const big = Buffer.concat([png(), Buffer.alloc(8 * 1024 * 1024)]);
  const one = await postTheme(api, manifest({ textures: [{ binding: 'map', src: 'big.png' }] }), [{ name: 'big.png', data: big }]);
  t.is(one.status, 413);
  t.is(one.body.data.code, 'payload_too_large');
  const seven = Buffer.concat([png(), Buffer.alloc(7 * 1024 * 1024)]);
  const names = ['a.png', 'b.png', 'c.png', 'd.png', 'e.png'];
  const many = await postTheme(
    api,
    manifest({ textures: names.map((src) => ({ binding: 'map', src })) }),
    names.map((name) => ({ name, data: seven })),
  );
  t.is(many.status, 413);
  t.regex(many.body.data.message, /32 MiB/);
  const longManifest = manifest({ description: 'x'.repeat(300 * 1024) });
  const text = await postTheme(api, longManifest);
  t.is(text.status, 413);
  // the same user can go on at once: nothing was left half-read
  t.is((await postTheme(api, manifest())).status, 201);
});

test('versions: the owner adds greater ones; lower, equal and same-precedence ones are 409s', async (t) => {
  const { api } = await ctx.server.newUser();
  const id = themeId();
  t.is((await postTheme(api, manifest({ id, version: '1.0.0' }))).status, 201);
  const v110 = await postTheme(api, manifest({ id, version: '1.1.0', name: 'Second' }));
  t.is(v110.status, 201);
  for (const version of ['1.0.5', '1.1.0', '1.1.0+build.2', '1.1.0-rc.1']) {
    const res = await postTheme(api, manifest({ id, version }));
    t.is(res.status, 409, version);
    t.is(res.body.data.code, 'version_conflict');
  }
  t.is((await postTheme(api, manifest({ id, version: '2.0.0-rc.1' }))).status, 201);
  t.is((await api.get(`/theme/${id}`)).body.data.version, '2.0.0-rc.1', 'a pre-release of 2.0.0 is above 1.1.0');
  t.is((await postTheme(api, manifest({ id, version: '2.0.0-rc.2' }))).status, 201);
  t.is((await postTheme(api, manifest({ id, version: '2.0.0+exp.sha.5114f85' }))).status, 201);
  const latest = await api.get(`/theme/${id}`);
  t.is(latest.body.data.version, '2.0.0+exp.sha.5114f85');
  const versions = await api.get(`/theme/${id}/version`);
  t.is(versions.status, 200);
  t.is(versions.body.type, 'theme[]');
  t.deepEqual(
    versions.body.data.map((v: { version: string }) => v.version),
    ['2.0.0+exp.sha.5114f85', '2.0.0-rc.2', '2.0.0-rc.1', '1.1.0', '1.0.0'],
  );
  const v1 = await api.get(`/theme/${id}/version/1.1.0`);
  t.is(v1.status, 200);
  t.is(v1.body.type, 'theme');
  t.is(v1.body.data.name, 'Second');
  const withBuild = await api.get(`/theme/${id}/version/${encodeURIComponent('2.0.0+exp.sha.5114f85')}`);
  t.is(withBuild.body.data.version, '2.0.0+exp.sha.5114f85');
  t.is((await api.get(`/theme/${id}/version/3.0.0`)).status, 404);
  const paged = await api.get(`/theme/${id}/version?per_page=2&page=2`);
  t.deepEqual(
    paged.body.data.map((v: { version: string }) => v.version),
    ['2.0.0-rc.1', '1.1.0'],
  );
  t.is(paged.body.meta.total, 5);
  t.truthy(paged.body.links.next);
});

test('a theme id belongs to its first publisher: another user gets 403', async (t) => {
  const a = await ctx.server.newUser();
  const b = await ctx.server.newUser();
  const id = themeId();
  t.is((await postTheme(a.api, manifest({ id }))).status, 201);
  const res = await postTheme(b.api, manifest({ id, version: '2.0.0' }));
  t.is(res.status, 403);
  t.is(res.body.data.code, 'forbidden');
  t.is((await a.api.get(`/theme/${id}`)).body.data.version, '1.0.0');
});

test('concurrent first versions of one id by two users: exactly one user owns it', async (t) => {
  const a = await ctx.server.newUser();
  const b = await ctx.server.newUser();
  for (let round = 0; round < 8; round++) {
    const id = themeId('race');
    const [ra, rb] = await Promise.all([postTheme(a.api, manifest({ id, version: '1.0.0' })), postTheme(b.api, manifest({ id, version: '2.0.0' }))]);
    const statuses = [ra.status, rb.status].sort();
    t.deepEqual(statuses, [201, 403], `round ${round}: ${ra.text} ${rb.text}`);
    const versions = await a.api.get(`/theme/${id}/version`);
    t.is(versions.body.data.length, 1);
    t.is(new Set(versions.body.data.map((v: { user: { uuid: string } }) => v.user.uuid)).size, 1);
  }
});

test('concurrent POSTs of versions keep the rule: equal ones, exactly one wins; each accepted one was the greatest', async (t) => {
  const { api } = await ctx.server.newUser();
  const id = themeId('conc');
  t.is((await postTheme(api, manifest({ id, version: '1.0.0' }))).status, 201);
  const same = await Promise.all(Array.from({ length: 8 }, () => postTheme(api, manifest({ id, version: '1.5.0' }))));
  t.deepEqual(same.map((r) => r.status).sort(), [201, 409, 409, 409, 409, 409, 409, 409]);
  // Different versions at once, in descending order: whatever the interleaving, no accepted version is
  // below one accepted before it, so the versions by creation time are strictly increasing.
  const versions = ['1.9.0', '1.8.0', '1.7.0', '1.6.0', '2.0.0-beta', '2.0.0-alpha'];
  const results = await Promise.all(versions.map((version) => postTheme(api, manifest({ id, version }))));
  for (const r of results) t.true(r.status === 201 || r.status === 409, r.text);
  t.true(results.some((r) => r.status === 201));
  const all = (await api.get(`/theme/${id}/version?per_page=100`)).body.data as { version: string; created_at: string }[];
  const accepted = results.filter((r) => r.status === 201).map((r) => r.body.data.version);
  t.deepEqual(all.map((v) => v.version).filter((v) => accepted.includes(v)).length, accepted.length);
  const byCreation = [...all].reverse();
  for (let i = 1; i < byCreation.length; i++)
    t.true(
      byCreation[i - 1]!.created_at <= byCreation[i]!.created_at,
      'by SemVer order the accepted versions were also created in order: none was accepted below an existing one',
    );
});

test("GET /theme lists the latest version of your themes and the built-in one, paged; not others' themes", async (t) => {
  const me = await ctx.server.newUser();
  const other = await ctx.server.newUser();
  const mine = [themeId('a'), themeId('b')];
  for (const id of mine) t.is((await postTheme(me.api, manifest({ id }))).status, 201);
  t.is((await postTheme(me.api, manifest({ id: mine[0], version: '1.0.1' }))).status, 201);
  const theirs = themeId('c');
  t.is((await postTheme(other.api, manifest({ id: theirs }))).status, 201);
  const list = await me.api.get('/theme');
  const ids = list.body.data.map((th: { id: string }) => th.id);
  t.deepEqual(ids, [...mine, ...BUILT_IN_THEME_IDS].sort());
  t.is(list.body.data.find((th: { id: string }) => th.id === mine[0]).version, '1.0.1');
  t.is(list.body.meta.total, 6);
  const page1 = await me.api.get('/theme?per_page=4');
  t.is(page1.body.data.length, 4);
  t.is(page1.body.links.prev, null);
  const page2 = await request(page1.body.links.next, 'GET', { key: me.key });
  t.is(page2.status, 200);
  t.is(page2.body.data.length, 2);
  t.is(page2.body.links.next, null);
  t.deepEqual(
    [...page1.body.data, ...page2.body.data].map((th: { id: string }) => th.id),
    ids,
  );
  t.is((await me.api.get('/theme?per_page=0')).status, 400);
});

test("any signed-in user can read a theme by id, its versions and its files (to render others' dice)", async (t) => {
  const owner = await ctx.server.newUser();
  const viewer = await ctx.server.newUser();
  const { m, files } = fullTheme();
  const res = await postTheme(owner.api, m, files);
  t.is(res.status, 201);
  t.is((await viewer.api.get(`/theme/${m.id}`)).status, 200);
  t.is((await viewer.api.get(`/theme/${m.id}/version`)).status, 200);
  t.is((await viewer.api.get(`/theme/${m.id}/version/1.0.0`)).status, 200);
  t.is((await viewer.api.get(res.body.data.assets['wood.png'])).status, 200);
  t.is((await viewer.api.get('/theme/no-such-theme')).status, 404);
  t.is((await viewer.api.get('/theme/no-such-theme/version')).status, 404);
});

test('DELETE /theme/{id}: the owner deletes every version and its files; others get 403', async (t) => {
  const owner = await ctx.server.newUser();
  const other = await ctx.server.newUser();
  const { m, files } = fullTheme();
  const created = await postTheme(owner.api, m, files);
  t.is((await postTheme(owner.api, { ...m, version: '1.1.0' }, files)).status, 201);
  t.is((await other.api.delete(`/theme/${m.id}`)).status, 403);
  t.is((await owner.api.get(`/theme/${m.id}`)).status, 200);
  const del = await owner.api.delete(`/theme/${m.id}`);
  t.is(del.status, 204);
  t.is(del.text, '');
  t.is((await owner.api.get(`/theme/${m.id}`)).status, 404);
  t.is((await owner.api.get(`/theme/${m.id}/version`)).status, 404);
  t.is((await owner.api.get(`/theme/${m.id}/version/1.0.0`)).status, 404);
  t.is((await owner.api.get(created.body.data.assets['wood.png'])).status, 404);
  t.is((await owner.api.delete(`/theme/${m.id}`)).status, 404);
  t.false((await owner.api.get('/theme')).body.data.some((th: { id: string }) => th.id === m.id));
  // the id is free again
  t.is((await postTheme(other.api, manifest({ id: m.id }))).status, 201);
});

test("extend: keys and files left out come from the base's latest version", async (t) => {
  const { api } = await ctx.server.newUser();
  const baseId = themeId('base');
  const baseFiles = [
    { name: 'd6.fbx', data: fbx() },
    { name: 'wood.png', data: png([1, 2, 3, 255]) },
    { name: 'hit.wav', data: wav() },
  ];
  const baseManifest = manifest({
    id: baseId,
    available_dice: ['d6', 'd20'],
    meshes: { d6: 'd6.fbx' },
    textures: [{ binding: 'map', src: 'wood.png' }],
    sounds: [{ on: 'die.collide', src: 'hit.wav' }],
    sizes: { d6: 1.5 },
  });
  t.is((await postTheme(api, baseManifest, baseFiles, { frag_shader: 'base frag' })).status, 201);
  t.is((await postTheme(api, { ...baseManifest, version: '1.1.0', sizes: { d6: 2 } }, baseFiles, { frag_shader: 'base frag' })).status, 201);

  const childId = themeId('child');
  const newWood = png([9, 9, 9, 255]);
  const child = await postTheme(
    api,
    manifest({ id: childId, name: 'Child', extend: baseId, textures: [{ binding: 'map', src: 'wood.png' }], uniforms: { shine: { type: 'f', value: 1 } } }),
    [{ name: 'wood.png', data: newWood }],
  );
  t.is(child.status, 201, child.text);
  const c = child.body.data;
  t.deepEqual(c.available_dice, ['d6', 'd20']);
  const names = fileFieldsAsNames(c);
  t.deepEqual(names.meshes, { d6: 'd6.fbx' });
  t.deepEqual(c.sizes, { d6: 2 }, 'from the latest version of the base');
  t.deepEqual(names.sounds, [{ on: 'die.collide', src: 'hit.wav' }]);
  t.deepEqual(c.uniforms, { shine: { type: 'f', value: 1 } });
  t.is(c.frag_shader, 'base frag');
  t.is(c.name, 'Child');
  t.not(c.label.background_color, undefined);
  t.deepEqual(Object.keys(c.assets).sort(), ['d6.fbx', 'hit.wav', 'wood.png']);
  for (const name of Object.keys(c.assets)) t.true(c.assets[name].includes(`/theme/${childId}/version/1.0.0/asset/`));
  const mesh = await api.get(c.assets['d6.fbx']);
  t.is(mesh.status, 200);
  t.true(Buffer.from(mesh.text, 'binary').length > 0);
  const meshBytes = Buffer.from(await (await fetch(c.assets['d6.fbx'], { headers: { authorization: `Bearer ${api.key}` } })).arrayBuffer());
  t.true(meshBytes.equals(fbx()), 'inherited files are copied');
  const woodBytes = Buffer.from(await (await fetch(c.assets['wood.png'], { headers: { authorization: `Bearer ${api.key}` } })).arrayBuffer());
  t.true(woodBytes.equals(newWood), 'an upload of the same name replaces the inherited file');

  // the base can be deleted afterwards: the child keeps everything
  t.is((await api.delete(`/theme/${baseId}`)).status, 204);
  t.is((await api.get(c.assets['d6.fbx'])).status, 200);
});

test('extend: the built-in theme is a base everyone can use', async (t) => {
  const { api } = await ctx.server.newUser();
  const res = await postTheme(api, manifest({ extend: DEFAULT_THEME_ID, sizes: { d20: 1.5 } }));
  t.is(res.status, 201, res.text);
  t.deepEqual(res.body.data.available_dice, ['d4', 'd6', 'd8', 'd10', 'd10x', 'd12', 'd20', 'd2', 'd16']);
  t.deepEqual(res.body.data.values.d10x, [0, 10, 20, 30, 40, 50, 60, 70, 80, 90]);
});

test('extend: a missing base, a base you cannot use, itself, or a cycle are 422s', async (t) => {
  const me = await ctx.server.newUser();
  const other = await ctx.server.newUser();
  const missing = await postTheme(me.api, manifest({ extend: 'no-such-base' }));
  t.is(missing.status, 422);
  t.is(missing.body.data.code, 'unprocessable');
  t.deepEqual(
    missing.body.data.details.map((d: { path: string }) => d.path),
    ['manifest.extend'],
  );

  const theirs = themeId('theirs');
  t.is((await postTheme(other.api, manifest({ id: theirs }))).status, 201);
  const notMine = await postTheme(me.api, manifest({ extend: theirs }));
  t.is(notMine.status, 422);
  t.regex(notMine.body.data.message, /dice box/);

  const self = themeId('self');
  const selfRes = await postTheme(me.api, manifest({ id: self, extend: self }));
  t.is(selfRes.status, 422);

  const a = themeId('cyc-a');
  const b = themeId('cyc-b');
  t.is((await postTheme(me.api, manifest({ id: a }))).status, 201);
  t.is((await postTheme(me.api, manifest({ id: b, extend: a }))).status, 201);
  const cycle = await postTheme(me.api, manifest({ id: a, version: '2.0.0', extend: b }));
  t.is(cycle.status, 422);
  t.regex(cycle.body.data.message, /cycle/);
  t.is((await me.api.get(`/theme/${a}`)).body.data.version, '1.0.0');
});

test('extend: problems in what is inherited are 400s naming the base', async (t) => {
  const { api } = await ctx.server.newUser();
  const baseId = themeId('b');
  t.is((await postTheme(api, manifest({ id: baseId, available_dice: ['d6', 'd8'], sizes: { d8: 2 } }))).status, 201);
  const res = await postTheme(api, manifest({ extend: baseId, available_dice: ['d6'] }));
  t.is(res.status, 400);
  t.deepEqual(
    res.body.data.details.map((d: { path: string }) => d.path),
    ['manifest.sizes.d8'],
  );
  t.regex(res.body.data.details[0].message, new RegExp(`inherited from "${baseId}"`));
});
