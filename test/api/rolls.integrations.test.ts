import test from 'ava';
import { parseRollEquation } from 'dddice-js';
import { useServer } from '../helpers/server';
import type { Roll, Value } from './rolls.support';

// What the dddice integrations send, as they send it: the SDK's own parseRollEquation (Foundry VTT, the
// browser extension, the Stream Deck plugin and GM's Grimoire all roll its output), and raw bodies where
// the SDK has no call for it.
const ctx = useServer(test);

type DieValue = Value & { die_index: number; is_compounded: boolean };
type DieRoll = Omit<Roll, 'values'> & { values: DieValue[] };
type SdkRoll = ReturnType<typeof parseRollEquation>;

/** POST /roll with what parseRollEquation answered, as the integrations do (`roll.create(dice, {operator})`). */
async function rollParsed(parsed: SdkRoll) {
  const { api } = await ctx.server.newUser();
  const res = await api.post('/roll', { dice: parsed.dice, operator: parsed.operator });
  return { res, roll: res.body.data as DieRoll, api };
}

test('each throw of a compounded or exploded die names its die: die_index', async (t) => {
  const { api } = await ctx.server.newUser();
  // Two d6 that both show 6 compound at least once each; a d4 beside them never explodes (its 4 is not 6).
  const body = {
    dice: [{ type: 'd6', value: 6 }, { type: 'd6', value: 6 }, { type: 'd4' }, { type: 'mod', value: 2 }],
    operator: { '!!': { '=6': [0, 1] } },
  };
  const res = await api.post('/roll', body);
  t.is(res.status, 201, res.text);
  const roll = res.body.data as DieRoll;
  t.deepEqual(roll.values.slice(0, 4).map((v) => v.die_index), [0, 1, 2, 3], 'the request dice first, each its own index');
  for (const die of [0, 1]) {
    const throws = roll.values.filter((v) => v.die_index === die);
    t.true(throws.length >= 2, `die ${die} compounded: its first 6 and at least one more throw`);
    t.true(throws.every((v) => v.is_compounded && v.type === 'd6'));
    // The throws that make a die: every one but the last shows 6 (the compare point), the last does not.
    t.true(throws.slice(0, -1).every((v) => v.value === 6));
    t.not(throws[throws.length - 1]!.value, 6);
  }
  const sum = roll.values.reduce((s, v) => s + Number(v.value_to_display), 0);
  t.is(roll.total_value, sum);
  t.is(roll.values.filter((v) => v.die_index === 2).length, 1);

  const explodedRes = await api.post('/roll', { dice: [{ type: 'd6', value: 6 }, { type: 'd8', value: 8 }], operator: { '!': '' } });
  t.is(explodedRes.status, 201, explodedRes.text);
  const exploded = explodedRes.body.data as DieRoll;
  t.deepEqual(exploded.values.slice(0, 2).map((v) => v.die_index), [0, 1]);
  const extraTypes = exploded.values.slice(2).map((v) => `${v.die_index}:${v.type}`);
  t.true(extraTypes.length >= 2 && extraTypes.every((e) => e === '0:d6' || e === '1:d8'), extraTypes.join(' '));

  const again = await api.get(`/roll/${roll.uuid}`);
  t.deepEqual(again.body.data.values.map((v: DieValue) => v.die_index), roll.values.map((v) => v.die_index), 'stored and read back');
});
