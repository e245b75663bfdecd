import test from 'ava';
import { parseRollEquation } from 'dddice-js';
import { useServer } from '../helpers/server';
import { table, type Roll, type Value } from './rolls.support';

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
  t.deepEqual(
    roll.values.slice(0, 4).map((v) => v.die_index),
    [0, 1, 2, 3],
    'the request dice first, each its own index',
  );
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

  const explodedRes = await api.post('/roll', {
    dice: [
      { type: 'd6', value: 6 },
      { type: 'd8', value: 8 },
    ],
    operator: { '!': '' },
  });
  t.is(explodedRes.status, 201, explodedRes.text);
  const exploded = explodedRes.body.data as DieRoll;
  t.deepEqual(
    exploded.values.slice(0, 2).map((v) => v.die_index),
    [0, 1],
  );
  const extraTypes = exploded.values.slice(2).map((v) => `${v.die_index}:${v.type}`);
  t.true(extraTypes.length >= 2 && extraTypes.every((e) => e === '0:d6' || e === '1:d8'), extraTypes.join(' '));

  const again = await api.get(`/roll/${roll.uuid}`);
  t.deepEqual(
    again.body.data.values.map((v: DieValue) => v.die_index),
    roll.values.map((v) => v.die_index),
    'stored and read back',
  );
});

test('a d100 as the SDK sends it (d10, then d10x with its tens digit): 201, read back as sent', async (t) => {
  for (const [percent, units, tens, face] of [
    [57, 7, 5, '50'],
    [100, 10, 9, '90'],
    [5, 5, 10, '0'],
    [10, 10, 10, '0'],
  ] as const) {
    const parsed = parseRollEquation('1d100', 'standard', [percent]);
    const { res, roll, api } = await rollParsed(parsed);
    t.is(res.status, 201, `${percent}: ${res.text}`);
    t.deepEqual(
      roll.values.map((v) => [v.type, v.value, v.value_to_display]),
      [
        ['d10', units, String(units)],
        ['d10x', tens, face],
      ],
    );
    t.is(roll.total_value, percent, 'the total is the faces: the d10x shows tens, the d10 units');
    t.true(roll.values.every((v) => v.is_user_value));
    const again = (await api.get(`/roll/${roll.uuid}`)).body.data as DieRoll;
    t.deepEqual(
      again.values.map((v) => v.value),
      [units, tens],
      'stored and read back in the same numbering',
    );
  }
  // The server's own d100 (a d10x directly followed by a d10) takes the same numbering.
  const { api } = await ctx.server.newUser();
  const pair = await api.post('/roll', {
    dice: [
      { type: 'd10x', value: 5, value_to_display: '50' },
      { type: 'd10', value: 7 },
    ],
  });
  t.is(pair.status, 201, pair.text);
  t.is(pair.body.data.total_value, 57);
  t.is(pair.body.data.equation, '1d100');
  // Drawn d10x read back the same way: the tens digit, 10 for 00.
  const drawn = (await api.post('/roll', { dice: Array.from({ length: 30 }, () => ({ type: 'd10x' })) })).body.data as DieRoll;
  for (const v of drawn.values) t.is(v.value, Number(v.value_to_display) / 10 || 10, String(v.value_to_display));
  const wrong = await api.post('/roll', { dice: [{ type: 'd10x', value: 11 }] });
  t.is(wrong.status, 400);
  t.is(wrong.body.data.details[0].path, 'dice[0].value');
  const disagree = await api.post('/roll', { dice: [{ type: 'd10x', value: 6, value_to_display: '50' }] });
  t.is(disagree.status, 400);
  t.is(disagree.body.data.details[0].path, 'dice[0].value_to_display');
});

test('fate dice as the SDK sends them (-1, 0, +1), and numeric strings as numbers', async (t) => {
  const { res, roll, api } = await rollParsed(parseRollEquation('4df+1', 'standard', [-1, 0, 1, 1]));
  t.is(res.status, 201, res.text);
  t.deepEqual(
    roll.values.map((v) => v.value),
    [-1, 0, 1, 1, 1],
  );
  t.deepEqual(
    roll.values.slice(0, 4).map((v) => Number(v.value_to_display)),
    [-1, 0, 1, 1],
  );
  t.is(roll.total_value, 2);
  t.is(roll.equation, '4dF+1');
  const drawn = (await api.post('/roll', { equation: '20dF' })).body.data as DieRoll;
  for (const v of drawn.values) t.is(v.value, Number(v.value_to_display), 'a drawn fate die reads its face');
  const wrong = await api.post('/roll', { dice: [{ type: 'df', value: 2 }] });
  t.is(wrong.status, 400);
  t.regex(wrong.body.data.message, /-1, 0 or 1/);

  // Integrations that build dice by hand send the number as a string.
  const strings = await api.post('/roll', {
    dice: [
      { type: 'd20', theme: 'standard', value: '15' },
      { type: 'df', value: '-1' },
      { type: 'mod', value: '3' },
    ],
  });
  t.is(strings.status, 201, strings.text);
  t.deepEqual(
    strings.body.data.values.map((v: DieValue) => v.value),
    [15, -1, 3],
  );
  t.is(strings.body.data.total_value, 17);
  const notNumber = await api.post('/roll', { dice: [{ type: 'd20', value: 'fifteen' }] });
  t.is(notNumber.status, 400);
  t.is(notNumber.body.data.details[0].path, 'dice[0].value');
});

test('the SDK\'s * and / on some dice ({"*": {"2": [0, 1]}}): rolled, totalled and written as parsed', async (t) => {
  const cases: [string, number[], string, number][] = [
    ['(1d6+3)*2+1d4', [4, 2], '(1d6+3)*2+1d4', 16],
    ['2d6*2+1d4', [4, 5, 2], '(2d6)*2+1d4', 20],
    ['1d8+2d6*2', [4, 5, 2], '1d8+(2d6)*2', 18],
    ['2d6*2+1d4*3', [4, 5, 2], '(2d6)*2+(1d4)*3', 24],
    ['2d20kh1*2+1d4', [4, 15, 2], '(2d20kh1)*2+1d4', 32],
    ['2d6/2+1d4', [4, 5, 2], '(2d6)/2+1d4', 6.5],
    ['(1d6+3)*2+1d4+1', [4, 2], '(1d6+3)*2+1d4+1', 17],
    ['(1d6+3)*2', [4], '(1d6+3)*2', 14],
  ];
  for (const [equation, values, written, total] of cases) {
    const parsed = parseRollEquation(equation, 'standard', values);
    const { res, roll, api } = await rollParsed(parsed);
    t.is(res.status, 201, `${equation}: ${res.text}`);
    t.deepEqual(roll.operator, parsed.operator, 'the operator is stored as sent');
    t.is(roll.equation, written, equation);
    t.is(roll.total_value, total, equation);
    t.deepEqual((await api.get(`/roll/${roll.uuid}`)).body.data, roll, 'read back as answered');
    // The written equation rolls the same way when sent back (POST /roll {equation}).
    const again = await api.post('/roll', { equation: roll.equation });
    t.is(again.status, 201, again.text);
    t.is(again.body.data.equation, written);
  }
});

test('a scaled roll in a room: a viewer who may not see a die gets the total of what they see, scaled alike', async (t) => {
  const { roller, bystander, slug } = await table(ctx.server);
  const parsed = parseRollEquation('(1d6+3)*2+1d4', 'standard', [4, 2]);
  const dice = parsed.dice.map((d, i) => (i === 2 ? { ...d, is_hidden: true } : d));
  const res = await roller.api.post('/roll', { dice, operator: parsed.operator, room: slug });
  t.is(res.status, 201, res.text);
  t.is(res.body.data.total_value, 16);
  const seen = (await bystander.api.get(`/roll/${res.body.data.uuid}`)).body.data as DieRoll;
  t.is(seen.total_value, 14, '(4+3)*2; the hidden d4 counts nothing');
  t.is(seen.values[2]!.value, null);
  t.is(seen.equation, '(1d6+3)*2+1d4', 'dice are written by kind');
});

test('the object form of * is bounded like every operator: a 400 naming the field, never a 500', async (t) => {
  const { api } = await ctx.server.newUser();
  const dice = [{ type: 'd6' }, { type: 'd6' }];
  for (const operator of [
    { '*': { two: [0] } },
    { '*': { 2: [5] } },
    { '*': { 2: [0], 3: [0] } },
    { '/': { 0: [0] } },
    { '*': {} },
    { '*': { 2: 'all' } },
    { '*': { ['9'.repeat(301)]: [0] } },
    { '*': Object.fromEntries(Array.from({ length: 101 }, (_, i) => [String(i + 2), [0]])) },
    { '*': { 2: Array.from({ length: 3000 }, () => 0) } }, // past the operator's 4,096 bytes
  ]) {
    const res = await api.post('/roll', { dice, operator });
    t.is(res.status, 400, JSON.stringify(operator).slice(0, 80));
    t.is(res.body.type, 'error');
    t.true(['invalid_operator', 'validation_error'].includes(res.body.data.code), res.body.data.code);
    t.regex(res.body.data.details[0].path, /^operator/);
  }
});
