import test from 'ava';
import { useServer } from '../helpers/server';
import { request } from '../helpers/http';
import { png, webp } from '../fixtures/assets';
import { manifest, postTheme } from '../fixtures/themes';
import { DEFAULT_THEME_ID } from '../../src/themes/defaultTheme';

const ctx = useServer(test);
const page = (path: string) => request(`${ctx.server.url}${path}`, 'GET', { headers: { accept: 'text/html' } });
const json = (path: string) => request(`${ctx.server.url}/api/1.0${path}`, 'GET');

/** A theme of `owner`'s with an image face and a texture, at two versions. */
async function publishTheme(owner: Awaited<ReturnType<typeof ctx.server.newUser>>) {
  const m = manifest({
    name: 'Secret Dice',
    available_dice: ['d6', { id: 'big', type: 'd20', notation: 'dBig' }],
    values: { d6: [1, 2, 3, 4, 5, { src: 'six.webp' }] },
    textures: [{ binding: 'map', src: 'skin.png' }],
  });
  const files = [
    { name: 'six.webp', data: webp() },
    { name: 'skin.png', data: png([10, 200, 30, 255]) },
  ];
  t_is(await postTheme(owner.api, m, files), 201);
  t_is(await postTheme(owner.api, { ...m, version: '1.1.0', name: 'Secret Dice 1.1' }, files), 201);
  return { m, files };
}
function t_is(res: { status: number; text: string }, status: number) {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text}`);
}

test('the built-in theme: its preview page and JSON need no key', async (t) => {
  const res = await page(`/theme/${DEFAULT_THEME_ID}/preview`);
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /^text\/html/);
  t.regex(res.headers.get('content-security-policy') ?? '', /script-src 'self'/);
  t.is(res.headers.get('cache-control'), 'no-store');
  t.is(res.headers.get('referrer-policy'), 'no-referrer');
  t.true(res.text.includes(`data-theme="${DEFAULT_THEME_ID}"`));
  const script = /<script type="module" src="(\/board\/assets\/preview\.js\?v=[0-9a-f]{16})"><\/script>/.exec(res.text);
  t.truthy(script, 'the page loads its own script');
  const js = await request(`${ctx.server.url}${script![1]}`, 'GET');
  t.is(js.status, 200);
  t.regex(js.headers.get('content-type') ?? '', /^text\/javascript/);
  t.is(js.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  t.true(js.text.includes('/preview'));

  const data = await json(`/theme/${DEFAULT_THEME_ID}/preview`);
  t.is(data.status, 200);
  t.is(data.body.type, 'theme');
  t.is(data.body.data.id, DEFAULT_THEME_ID);
  t.is(data.body.data.user, null, 'keyless answers name no owner');
  t.is(data.headers.get('cache-control'), 'no-store');
  t.is((await json(`/theme/${DEFAULT_THEME_ID}/version/1.0.0/preview`)).body.data.version, '1.0.0');
  t.is((await page(`/theme/${DEFAULT_THEME_ID}/version/1.0.0/preview`)).status, 200);
});

test("a private theme's preview is not served to outsiders: the same 404 as a theme that does not exist", async (t) => {
  const owner = await ctx.server.newUser();
  const { m } = await publishTheme(owner);
  for (const path of [`/theme/${m.id}/preview`, `/theme/${m.id}/version/1.0.0/preview`]) {
    const html = await page(path);
    t.is(html.status, 404, path);
    t.regex(html.headers.get('content-type') ?? '', /^text\/html/);
    t.false(html.text.includes('Secret Dice'), 'nothing of the theme');
    t.false(html.text.includes('preview.js'), 'no script for a page with nothing to show');
    const data = await json(path);
    t.is(data.status, 404, path);
    t.is(data.body.type, 'error');
    t.is(data.body.data.code, 'not_found');
    t.false(data.text.includes('Secret Dice'));
  }
  const unknown = await json('/theme/no-such-theme/preview');
  t.is(unknown.status, 404);
  t.is(
    unknown.body.data.message.replace('no-such-theme', m.id),
    (await json(`/theme/${m.id}/preview`)).body.data.message,
    'an existing theme and a missing one look alike',
  );
  // Not even with the owner's key: the keyless routes decide by the link alone.
  t.is((await request(`${ctx.server.url}/api/1.0/theme/${m.id}/preview`, 'GET', { key: owner.key })).status, 404);
  // A code that is not a link, or a link to another theme, opens nothing.
  t.is((await json(`/theme/${m.id}/preview?share=AAAAAAAAAAAAAAAAAAAAAA`)).status, 404);
  const other = manifest();
  t_is(await postTheme(owner.api, other), 201);
  const otherLink = (await owner.api.post('/share-request', { theme: other.id })).body.data;
  t.is((await json(`/theme/${m.id}/preview?share=${otherLink.code}`)).status, 404);
  t.is((await page(`/theme/${m.id}/preview?share=${otherLink.code}`)).status, 404);
});

test("with a live share link's code the preview shows the theme, and its files load without a key", async (t) => {
  const owner = await ctx.server.newUser();
  const { m, files } = await publishTheme(owner);
  const link = (await owner.api.post('/share-request', { theme: m.id })).body.data;

  const html = await page(`/theme/${m.id}/preview?share=${link.code}`);
  t.is(html.status, 200);
  t.true(html.text.includes(`data-share="${link.code}"`));
  const latest = await json(`/theme/${m.id}/preview?share=${link.code}`);
  t.is(latest.status, 200);
  t.is(latest.body.data.version, '1.1.0');
  t.is(latest.body.data.user, null);
  const v1 = await json(`/theme/${m.id}/version/1.0.0/preview?share=${link.code}`);
  t.is(v1.status, 200);
  t.is(v1.body.data.name, 'Secret Dice');
  t.is((await json(`/theme/${m.id}/version/7.0.0/preview?share=${link.code}`)).status, 404);
  const face = await fetch(v1.body.data.values.d6[5].src);
  t.is(face.status, 200);
  t.true(Buffer.from(await face.arrayBuffer()).equals(files[0]!.data));
  t.is((await fetch(v1.body.data.textures[0].src)).status, 200);

  // The share page names the theme and the link's code, from which its script links to the preview
  // (src/pages/theme/accept.ts).
  const share = await page(`/share/${link.code}`);
  t.true(share.text.includes(`data-theme="${m.id}"`) && share.text.includes(`data-code="${link.code}"`));
  t.is((await page(`/theme/${m.id}/preview?share=${link.code}`)).status, 200);

  // Revoked: the link's own 410, on the page and in the JSON.
  t.is((await owner.api.delete(`/share-request/${link.id}`)).status, 204);
  const revoked = await json(`/theme/${m.id}/preview?share=${link.code}`);
  t.is(revoked.status, 410);
  t.is(revoked.body.data.code, 'gone');
  t.is((await page(`/theme/${m.id}/preview?share=${link.code}`)).status, 410);
});

test('nonsense in the preview paths is a 404 page or a 400, never a 500', async (t) => {
  t.is((await page(`/theme/${'x'.repeat(300)}/preview`)).status, 404);
  t.is((await page(`/theme/standard/version/${'9'.repeat(400)}/preview`)).status, 404);
  t.is((await page('/theme/standard/preview?share=' + 'a'.repeat(500))).status, 404);
  t.is((await page('/theme/standard/preview?share=%3Cscript%3E')).status, 404);
  const long = await json(`/theme/standard/preview?share=${'a'.repeat(100)}`);
  t.is(long.status, 400);
  t.deepEqual(
    long.body.data.details.map((d: { path: string }) => d.path),
    ['query.share'],
  );
});
