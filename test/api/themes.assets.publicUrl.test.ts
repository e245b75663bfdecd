import test from 'ava';
import { useServer } from '../helpers/server';
import { png } from '../fixtures/assets';
import { manifest, postTheme } from '../fixtures/themes';

const ctx = useServer(test, { PUBLIC_URL: 'https://dice.example/' });

test('with PUBLIC_URL, theme file URLs use it; the same path loads from this server without a key', async (t) => {
  const { api } = await ctx.server.newUser();
  const m = manifest({ textures: [{ binding: 'map', src: 'skin.png' }] });
  const created = await postTheme(api, m, [{ name: 'skin.png', data: png() }]);
  t.is(created.status, 201, created.text);
  const url = created.body.data.textures[0].src as string;
  t.regex(url, new RegExp(`^https://dice\\.example/api/1\\.0/theme/${m.id}/version/1\\.0\\.0/asset/[0-9a-f]{64}/skin\\.png$`));
  t.is(created.body.data.assets['skin.png'], url);
  const res = await fetch(ctx.server.url + new URL(url).pathname);
  t.is(res.status, 200);
  t.true(Buffer.from(await res.arrayBuffer()).equals(png()));
});
