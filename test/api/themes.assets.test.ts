import { createHash } from 'node:crypto';
import test from 'ava';
import { useServer } from '../helpers/server';
import { request } from '../helpers/http';
import { fbx, mp3, png, wav, webp } from '../fixtures/assets';
import { fileNameOf, manifest, postTheme } from '../fixtures/themes';
import { closeAll, connectUser, type Client } from '../helpers/sockets';

const ctx = useServer(test);
const clients: Client[] = [];
test.after.always(() => closeAll(...clients));
const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const ERROR_BODY = (t: { is: (a: unknown, b: unknown) => void; truthy: (a: unknown) => void }, res: { headers: Headers; body: any }, code: string) => {
  t.truthy((res.headers.get('content-type') ?? '').includes('application/json'));
  t.is(res.body?.type, 'error');
  t.is(res.body?.data?.code, code);
  t.truthy(typeof res.body?.data?.message === 'string' && res.body.data.message.length > 0);
};

/** A theme with a file in every place a manifest can name one. */
function themeWithFiles() {
  const files = [
    { name: 'd6 mesh.fbx', data: fbx() },
    { name: 'wood.png', data: png([120, 80, 20, 255]) },
    { name: 'gold.png', data: png([250, 200, 0, 255]) },
    { name: 'hit.wav', data: wav() },
    { name: 'crit.mp3', data: mp3() },
    { name: 'plus.webp', data: webp() },
  ];
  const m = manifest({
    available_dice: ['d6', 'd20'],
    meshes: { d6: 'd6 mesh.fbx' },
    textures: [
      { binding: 'map', src: { d6: 'wood.png', d20: 'gold.png' } },
      { binding: 'emissiveMap', src: 'gold.png' },
    ],
    sounds: [
      { on: 'die.collide', src: 'hit.wav' },
      { on: 'die.value', src: { d20: 'crit.mp3' }, value: 20 },
    ],
    values: { d6: [1, 2, 3, 4, 5, { src: 'plus.webp', value: 6 }] },
  });
  return { m, files };
}

/** Every URL a presented theme gives for a file, with where it stands. */
function fileUrls(theme: any): [string, string][] {
  const out: [string, string][] = [];
  const src = (s: unknown, at: string) => {
    if (typeof s === 'string') out.push([at, s]);
    else for (const [die, url] of Object.entries(s as Record<string, string>)) out.push([`${at}.${die}`, url]);
  };
  for (const [die, url] of Object.entries(theme.meshes as Record<string, string>)) out.push([`meshes.${die}`, url]);
  theme.textures.forEach((x: any, i: number) => src(x.src, `textures[${i}].src`));
  theme.sounds.forEach((x: any, i: number) => src(x.src, `sounds[${i}].src`));
  for (const [die, faces] of Object.entries(theme.values as Record<string, any[]>)) {
    faces.forEach((f, i) => typeof f === 'object' && out.push([`values.${die}[${i}].src`, f.src]));
  }
  for (const [name, url] of Object.entries(theme.assets as Record<string, string>)) out.push([`assets.${name}`, url]);
  return out;
}

test('every file field of a theme answer is a URL that loads without a key, cached as immutable', async (t) => {
  const { api } = await ctx.server.newUser();
  const { m, files } = themeWithFiles();
  t.is((await postTheme(api, m, files)).status, 201);
  const theme = (await api.get(`/theme/${m.id}`)).body.data;
  const urls = fileUrls(theme);
  t.is(urls.length, 7 + 6, 'seven places in the manifest, six files in assets');
  const types: Record<string, string> = { fbx: 'application/octet-stream', png: 'image/png', wav: 'audio/wav', mp3: 'audio/mpeg', webp: 'image/webp' };
  for (const [at, url] of urls) {
    const file = files.find((f) => f.name === fileNameOf(url))!;
    t.truthy(file, `${at}: ${url} names a file of the theme`);
    t.is(url, `${ctx.server.url}/api/1.0/theme/${m.id}/version/1.0.0/asset/${sha(file.data)}/${encodeURIComponent(file.name)}`, at);
    const res = await fetch(url); // no key, no header at all: as <img src> or three.js loaders fetch
    t.is(res.status, 200, at);
    t.true(Buffer.from(await res.arrayBuffer()).equals(file.data), `${at}: the file's bytes`);
    t.is(res.headers.get('content-type'), types[file.name.split('.').pop()!], at);
    t.is(res.headers.get('cache-control'), 'private, max-age=31536000, immutable');
    t.is(res.headers.get('etag'), `"${sha(file.data)}"`);
    t.is(res.headers.get('x-content-type-options'), 'nosniff');
    t.is(res.headers.get('content-security-policy'), "default-src 'none'; sandbox");
    t.is(res.headers.get('cross-origin-resource-policy'), 'cross-origin');
    const again = await fetch(url, { headers: { 'if-none-match': res.headers.get('etag')! } });
    t.is(again.status, 304, `${at}: revalidated by its hash`);
    t.is((await again.arrayBuffer()).byteLength, 0);
  }
  const head = await fetch(urls[0]![1], { method: 'HEAD' });
  t.is(head.status, 200);
  t.is(head.headers.get('content-length'), String(files[0]!.data.length));

  // The same URLs wherever the theme is presented: by version, in lists, in the dice box.
  t.deepEqual((await api.get(`/theme/${m.id}/version/1.0.0`)).body.data, theme);
  t.deepEqual((await api.get(`/dice-box/${m.id}`)).body.data.assets, theme.assets);
  t.deepEqual((await api.get('/theme?per_page=100')).body.data.find((x: any) => x.id === m.id).textures, theme.textures);
  t.deepEqual((await api.get('/dice-box?per_page=100')).body.data.find((x: any) => x.id === m.id).meshes, theme.meshes);
});

test('an unknown or guessed file URL is a 404 with the JSON error body, and tells nothing', async (t) => {
  const { api } = await ctx.server.newUser();
  const { m, files } = themeWithFiles();
  t.is((await postTheme(api, m, files)).status, 201);
  const theme = (await api.get(`/theme/${m.id}`)).body.data;
  const good = theme.assets['wood.png'] as string;
  const base = `${ctx.server.url}/api/1.0/theme/${m.id}/version/1.0.0/asset`;
  const guesses = {
    'zero hash': `${base}/${'0'.repeat(64)}/wood.png`,
    "another file's hash": `${base}/${sha(files.find((f) => f.name === 'gold.png')!.data)}/wood.png`,
    'hash in upper case': `${base}/${sha(files[1]!.data).toUpperCase()}/wood.png`,
    'short hash': `${base}/${sha(files[1]!.data).slice(0, 16)}/wood.png`,
    'unknown name': `${base}/${sha(files[1]!.data)}/nope.png`,
    'unknown version': good.replace('/version/1.0.0/', '/version/9.9.9/'),
    'unknown theme': good.replace(`/theme/${m.id}/`, '/theme/no-such-theme/'),
  };
  for (const [what, url] of Object.entries(guesses)) {
    const res = await request(url, 'GET');
    t.is(res.status, 404, what);
    ERROR_BODY(t, res, 'not_found');
    t.false(res.text.includes(sha(files[1]!.data)), `${what}: the real hash is not told`);
  }
  // After deletion the URLs stop working.
  t.is((await fetch(good)).status, 200);
  t.is((await api.delete(`/theme/${m.id}`)).status, 204);
  const gone = await request(good, 'GET');
  t.is(gone.status, 404);
  ERROR_BODY(t, gone, 'not_found');
});

test('the keyed route by name still works with a key, and still needs one', async (t) => {
  const { api } = await ctx.server.newUser();
  const { m, files } = themeWithFiles();
  t.is((await postTheme(api, m, files)).status, 201);
  const keyed = `${ctx.server.url}/api/1.0/theme/${m.id}/version/1.0.0/asset/${encodeURIComponent('d6 mesh.fbx')}`;
  const res = await fetch(keyed, { headers: { authorization: `Bearer ${api.key}` } });
  t.is(res.status, 200);
  t.true(Buffer.from(await res.arrayBuffer()).equals(files[0]!.data));
  t.is(res.headers.get('etag'), `"${sha(files[0]!.data)}"`);
  t.is((await request(keyed, 'GET')).status, 401);
});

test('roll.loading sounds take "=N", "==N", ">=N", "<N" (and ">N", "<=N"); junk is a 400 naming the field', async (t) => {
  const { api } = await ctx.server.newUser();
  const forms = [2, '2', '=2', '==2', '>=3', '<2', '>4', '<=1'];
  const m = manifest({ available_dice: ['d6'], sounds: forms.map((value) => ({ on: 'roll.loading', src: 'shake.wav', value })) });
  const created = await postTheme(api, m, [{ name: 'shake.wav', data: wav() }]);
  t.is(created.status, 201, created.text);
  t.deepEqual(
    created.body.data.sounds.map((s: { value: unknown }) => s.value),
    forms,
    'kept as the theme wrote them',
  );
  t.true(created.body.data.sounds.every((s: { src: string }) => s.src === created.body.data.assets['shake.wav']));

  for (const value of ['=>3', '>=', '3 dice', '!=2', true, [3]]) {
    const bad = await postTheme(
      api,
      manifest({
        available_dice: ['d6'],
        sounds: [
          { on: 'die.collide', src: 'shake.wav' },
          { on: 'roll.loading', src: 'shake.wav', value },
        ],
      }),
      [{ name: 'shake.wav', data: wav() }],
    );
    t.is(bad.status, 400, JSON.stringify(value));
    ERROR_BODY(t, bad, 'validation_error');
    // (the upload it names is then also reported as unreferenced: the sounds key as a whole was refused)
    const paths = bad.body.data.details.map((d: { path: string }) => d.path).filter((p: string) => p.startsWith('manifest.'));
    t.deepEqual(paths, ['manifest.sounds[1].value'], JSON.stringify(value));
    t.regex(bad.body.data.details.find((d: { path: string }) => d.path === 'manifest.sounds[1].value').message, /comparison such as "=2"/);
  }
});

test("a theme deleted and published again under the same id and version gets the new files' URLs", async (t) => {
  const { api } = await ctx.server.newUser();
  const m = manifest({ textures: [{ binding: 'map', src: 'skin.png' }] });
  const first = png([255, 0, 0, 255]);
  const second = png([0, 0, 255, 255]);
  t.is((await postTheme(api, m, [{ name: 'skin.png', data: first }])).status, 201);
  const before = (await api.get(`/theme/${m.id}`)).body.data.textures[0].src as string;
  t.is((await api.delete(`/theme/${m.id}`)).status, 204);
  const again = await postTheme(api, m, [{ name: 'skin.png', data: second }]);
  t.is(again.status, 201);
  for (const theme of [again.body.data, (await api.get(`/theme/${m.id}`)).body.data]) {
    const url = theme.textures[0].src as string;
    t.not(url, before);
    t.true(url.includes(`/asset/${sha(second)}/skin.png`));
    t.true(Buffer.from(await (await fetch(url)).arrayBuffer()).equals(second));
  }
  t.is((await fetch(before)).status, 404, 'the old URL names bytes the theme no longer has');
});

test('the dice box event carries the same file URLs, root-relative without PUBLIC_URL (no request to take an origin from)', async (t) => {
  const { api, key } = await ctx.server.newUser();
  const socket = await connectUser(ctx.server.url, key);
  clients.push(socket);
  const m = manifest({ textures: [{ binding: 'map', src: 'skin.png' }] });
  const created = await postTheme(api, m, [{ name: 'skin.png', data: png() }]);
  t.is(created.status, 201);
  const event = await socket.waitFor('DiceBoxCreateEvent', (p: { data: { id: string } }) => p.data.id === m.id);
  const src = event.data.textures[0].src as string;
  t.is(src, `/api/1.0/theme/${m.id}/version/1.0.0/asset/${sha(png())}/skin.png`);
  t.is(event.data.assets['skin.png'], src);
  t.is(created.body.data.textures[0].src, ctx.server.url + src, 'the REST answer: the same URL, absolute');
  t.true(Buffer.from(await (await fetch(ctx.server.url + src)).arrayBuffer()).equals(png()));
});
