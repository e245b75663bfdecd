import test from 'ava';
import { parseRollEquation } from 'dddice-js';
import { request } from '../helpers/http';
import { useServer } from '../helpers/server';
import { manifest, postTheme } from '../fixtures/themes';
import { BUILT_IN_PUBLIC_THEME_IDS, DEFAULT_THEME_ID } from '../../src/themes/defaultTheme';

// The built-in public themes under the ids dddice integrations hard-code (`dddice-bees`: GM's Grimoire's
// and the SDK tests' default; `dddice-red`; `dddice-standard`): every user rolls with them and finds
// them in a new dice box, like the built-in `standard`, in looks of this project's own.
const ctx = useServer(test);
const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((t) => t.id);

test('a new user rolls with every built-in public theme, as the SDK parses an equation and as an equation', async (t) => {
  const { api } = await ctx.server.newUser();
  for (const theme of BUILT_IN_PUBLIC_THEME_IDS) {
    // What the SDK's own end-to-end tests send: parseRollEquation('1d20', 'dddice-bees').
    const { dice } = parseRollEquation('1d20', theme);
    const rolled = await api.post('/roll', { dice });
    t.is(rolled.status, 201, `${theme}: ${rolled.text}`);
    t.is(rolled.body.data.values[0].theme, theme);
    t.true(rolled.body.data.total_value >= 1 && rolled.body.data.total_value <= 20);
    const equation = await api.post('/roll', { equation: '2d6+1d10x', theme });
    t.is(equation.status, 201, `${theme}: ${equation.text}`);
    t.true(equation.body.data.values.every((v: { theme: string }) => v.theme === theme));
  }
});

test('every new dice box and GET /theme hold them; they cannot be removed; their looks are their own', async (t) => {
  const { api } = await ctx.server.newUser();
  const box = ids(await api.get('/dice-box'));
  for (const theme of BUILT_IN_PUBLIC_THEME_IDS) {
    t.true(box.includes(theme), `${theme} in the box`);
    const one = await api.get(`/dice-box/${theme}`);
    t.is(one.status, 200);
    t.is(one.body.data.user.username, 'system');
    t.deepEqual(one.body.data.assets, {}, 'no files: colours and numbered faces only');
    t.is(one.body.data.values.d20.length, 20);
    const del = await api.delete(`/dice-box/${theme}`);
    t.is(del.status, 403);
    t.is(del.body.data.code, 'forbidden');
    t.is((await api.patch(`/dice-box/${theme}`)).status, 200);
  }
  const listed = ids(await api.get('/theme'));
  for (const theme of BUILT_IN_PUBLIC_THEME_IDS) t.true(listed.includes(theme));
  const colours = await Promise.all(
    [DEFAULT_THEME_ID, ...BUILT_IN_PUBLIC_THEME_IDS].map(async (id) => JSON.stringify((await api.get(`/theme/${id}`)).body.data.label)),
  );
  t.is(new Set(colours).size, colours.length, 'four different looks');
});

test('nobody publishes over them or deletes them; anyone may extend them or preview them without a key', async (t) => {
  const { api } = await ctx.server.newUser();
  t.is((await postTheme(api, manifest({ id: 'dddice-bees', version: '9.0.0' }))).status, 403);
  t.is((await api.delete('/theme/dddice-red')).status, 403);
  const extended = await postTheme(api, manifest({ extend: 'dddice-bees', sizes: { d20: 1.5 } }));
  t.is(extended.status, 201, extended.text);
  const preview = await request(`${ctx.server.url}/api/1.0/theme/dddice-standard/preview`, 'GET');
  t.is(preview.status, 200);
  t.is(preview.body.data.id, 'dddice-standard');
});
