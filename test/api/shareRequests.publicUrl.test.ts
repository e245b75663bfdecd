import test from 'ava';
import { useServer } from '../helpers/server';
import { request } from '../helpers/http';
import { manifest, postTheme } from '../fixtures/themes';

const ctx = useServer(test, { PUBLIC_URL: 'https://dice.example/' });

test("with PUBLIC_URL, share URLs use it; the link's page is served at it (it accepts on its own origin)", async (t) => {
  const owner = await ctx.server.newUser();
  const m = manifest();
  t.is((await postTheme(owner.api, m)).status, 201);
  const res = await owner.api.post('/share-request', { theme: m.id });
  t.is(res.status, 201);
  t.is(res.body.data.url, `https://dice.example/share/${res.body.data.code}`);
  const page = await request(`${ctx.server.url}/share/${res.body.data.code}`, 'GET');
  t.is(page.status, 200);
  t.true(page.text.includes(`data-code="${res.body.data.code}"`));
});
