import test from 'ava';
import { ConfigError, loadConfig } from '../../src/config';
import { useServer } from '../helpers/server';
import { manifest, postTheme } from '../fixtures/themes';

// UNKNOWN_THEME: what a roll naming a theme its roller may not roll with uses instead. Set to a built-in
// theme, such a roll is rolled in that theme's look, and each value's `theme` says which theme that is.
const ctx = useServer(test, { UNKNOWN_THEME: 'standard' });

test('with UNKNOWN_THEME=standard an unknown theme id rolls in the built-in look, and the values say so', async (t) => {
  const { api } = await ctx.server.newUser();
  const dice = await api.post('/roll', {
    dice: [
      { type: 'd20', theme: 'some-vtt-theme', value: 17 },
      { type: 'd6', theme: 'dddice-bees' },
      { type: 'mod', value: 2 },
    ],
  });
  t.is(dice.status, 201, dice.text);
  t.deepEqual(dice.body.data.values.map((v: { theme: string }) => v.theme).slice(0, 2), ['standard', 'dddice-bees'], 'only the unknown one is replaced');
  t.is(dice.body.data.values[0].value_to_display, '17');
  const equation = await api.post('/roll', { equation: '3d8+1', theme: 'no-such-theme' });
  t.is(equation.status, 201, equation.text);
  t.true(equation.body.data.values.filter((v: { type: string }) => v.type !== 'mod').every((v: { theme: string }) => v.theme === 'standard'));
});

test("with UNKNOWN_THEME a theme someone else owns (not in the roller's box) rolls in the built-in look too", async (t) => {
  const [owner, player] = await Promise.all([ctx.server.newUser(), ctx.server.newUser()]);
  const m = manifest();
  t.is((await postTheme(owner.api, m)).status, 201);
  const rolled = await player.api.post('/roll', { equation: '1d6', theme: m.id });
  t.is(rolled.status, 201, rolled.text);
  t.is(rolled.body.data.values[0].theme, 'standard');
  // Its owner still rolls it in its own look.
  t.is((await owner.api.post('/roll', { equation: '1d6', theme: m.id })).body.data.values[0].theme, m.id);
  // A die the built-in theme does not know either is still refused, naming the die.
  const odd = await player.api.post('/roll', { dice: [{ type: 'weird-die', theme: 'no-such-theme' }] });
  t.is(odd.status, 422);
  t.is(odd.body.data.code, 'unknown_die');
});

test('UNKNOWN_THEME is empty by default (an unknown theme is a 422) and must name a built-in theme', (t) => {
  t.is(loadConfig({}).unknownTheme, null);
  t.is(loadConfig({ UNKNOWN_THEME: '' }).unknownTheme, null);
  t.is(loadConfig({ UNKNOWN_THEME: 'dddice-bees' }).unknownTheme, 'dddice-bees');
  const error = t.throws(() => loadConfig({ UNKNOWN_THEME: 'standrad' }), { instanceOf: ConfigError });
  t.is(
    error!.message,
    'Invalid configuration: UNKNOWN_THEME is invalid (must be the id of a built-in theme (standard, dddice-bees, dddice-red, dddice-standard), whose look a roll with an unknown theme id then takes, or empty to refuse such rolls with a 422; got "standrad").',
  );
});
