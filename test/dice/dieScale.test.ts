import test from 'ava';
import { DiceError, parseEquation, rollDice, rollEquation, type DieRequest, type OperatorInput } from '../../src/dice/index';
import { viewerEquation, viewerTotal } from '../../src/dice/hidden';
import { dice, resolve, seeded, T } from './helpers';

// The dddice SDK's `*` and `/` on some dice: `{"*": {"2": [0, 1]}}` (its parseRollEquation writes every
// `(1d6+3)*2+1d4` crit so). docs/dice.md, "Scaling some dice".

const fixed = (...spec: string[]): DieRequest[] => dice(...spec);

function refuses(t: import('ava').ExecutionContext, d: DieRequest[], op: OperatorInput, path: string, pattern?: RegExp): void {
  const e = t.throws(() => rollDice(d, op, resolve, seeded(1)), { instanceOf: DiceError }, JSON.stringify(op))!;
  t.is(e.status, 400);
  t.is(e.code, 'invalid_operator');
  t.is(e.details[0]!.path, path, JSON.stringify(op));
  if (pattern) t.regex(e.message, pattern);
}

test('scaled dice add their numbers times their factor; the equation says which and reads back', (t) => {
  const cases: [DieRequest[], OperatorInput, string, number][] = [
    [fixed('d6:4', 'mod:3', 'd4:2'), { '*': { 2: [0, 1] } }, '(1d6+3)*2+1d4', 16],
    [fixed('d6:4', 'd6:5', 'd4:2'), { '*': { 2: [0, 1] } }, '(2d6)*2+1d4', 20],
    [fixed('d8:4', 'd6:5', 'd6:2'), { '*': { 2: [1, 2] } }, '1d8+(2d6)*2', 18],
    [fixed('d6:4', 'd6:5', 'd4:2'), { '*': { 2: [0, 1], 3: [2] } }, '(2d6)*2+(1d4)*3', 24],
    [fixed('d6:4', 'd6:5', 'd4:2'), { '/': { 2: [0, 1] } }, '(2d6)/2+1d4', 6.5],
    [fixed('d6:4', 'd4:2'), { '*': { 3: [0] }, '/': { 2: [0] } }, '(1d6)*3/2+1d4', 8],
    [fixed('d20:4', 'd20:15', 'd4:2'), { '*': { 2: [0, 1] }, k: { h1: [0, 1] } }, '(2d20kh1)*2+1d4', 32],
    [fixed('d6:4', 'd4:2', 'mod:-1'), { '*': { '-2': [0] } }, '(1d6)*-2+1d4-1', -7],
    [fixed('d6:4', 'd4:2'), { '*': { '0.5': [1] } }, '1d6+(1d4)*0.5', 5],
    [fixed('d6:4', 'mod:3'), { '*': { 2: [1] } }, '1d6+(3)*2', 10],
    [fixed('d10x:5', 'd10:7', 'd4:2'), { '*': { 2: [0, 1] }, '/': '2', round: 'down' }, 'floor(((1d100)*2+1d4)/2)', 58],
    [fixed('d6:4', 'd6:5', 'd6:2', 'd6:2'), { '*': { 2: [0, 1, 3] } }, '(3d6)*2+1d6', 24], // the scaled dice written together
  ];
  for (const [d, op, equation, total] of cases) {
    const r = rollDice(d, op, resolve, seeded(1));
    t.is(r.equation, equation, JSON.stringify(op));
    t.is(r.total, total, equation);
    // What the equation says is what was rolled: the same dice, the same total from the same faces.
    const parsed = parseEquation(r.equation);
    const again = rollDice(
      parsed.dice.map((p, i) => ({ ...p, theme: T, ...(p.type === 'mod' ? {} : { valueToDisplay: r.values[i]!.valueToDisplay }) })),
      parsed.operator,
      resolve,
      seeded(1),
    );
    t.is(again.total, total, `${equation} read back`);
    t.is(again.equation, equation);
  }
  // A factor of 1 is no scaling: written as plain dice.
  t.is(rollDice(fixed('d6:4', 'd4:2'), { '*': { 1: [0] } }, resolve, seeded(1)).equation, '1d6+1d4');
  // Keep {"*": "2"} (the whole roll), and the equation still writes it around everything.
  t.is(rollDice(fixed('d6:4', 'mod:3'), { '*': '2' }, resolve, seeded(1)).equation, '(1d6+3)*2');
  t.deepEqual(parseEquation('(1d20+5)*2').operator, { '*': 2 });
});

test('a scaled die that explodes or rerolls scales every throw of it', (t) => {
  const r = rollDice(fixed('d6:6', 'd4:2'), { '!': { '': [0] }, '*': { 2: [0] } }, resolve, seeded(3));
  const d6 = r.values.filter((v) => v.dieIndex === 0);
  t.true(d6.length >= 2);
  t.is(r.total, 2 * d6.reduce((s, v) => s + v.numericValue!, 0) + 2);
  t.is(r.equation, '(1d6!)*2+1d4');
  t.is(rollEquation(r.equation, T, resolve, seeded(3)).equation, r.equation);
});

test('what the object form may not say is refused before anything is rolled', (t) => {
  const d = fixed('d6', 'd6', 'd4', 'mod:1');
  refuses(t, d, { '*': {} }, 'operator.*', /maps no factor/);
  refuses(t, d, { '*': { 2: [] } }, 'operator.*.2', /must list the indices/);
  refuses(t, d, { '*': { 2: [0, 4] } }, 'operator.*.2[1]', /not the index of a die/);
  refuses(t, d, { '*': { 2: ['0'] } as unknown as OperatorInput['*'] }, 'operator.*.2[0]');
  refuses(t, d, { '*': { two: [0] } }, 'operator.*.two', /plain decimal/);
  refuses(t, d, { '*': { '1e400': [0] } }, 'operator.*.1e400', /plain decimal/);
  refuses(t, d, { '/': { 0: [0] } }, 'operator./.0', /cannot be 0/);
  refuses(t, d, { '*': { 2: [0], 3: [0, 1] } }, 'operator.*.3[0]', /two factors/);
  refuses(t, d, { '*': { ['1'.repeat(301)]: [0] } }, 'operator.*', /at most 300/);
  refuses(t, d, { k: { h1: [0, 1] }, '*': { 2: [0] } }, 'operator', /share an operator/);
  refuses(t, fixed('d10x', 'd10'), { '*': { 2: [0] } }, 'operator', /one d100/);
  refuses(t, fixed('d6', 'd6', 'd4'), { groups: [{ parts: [[0], [1]], k: 'h1' }], '*': { 2: [0] } } as OperatorInput, 'operator', /roll group/);
  // Every refusal of this form is the dice engine's 400, never a crash, whatever the shape sent.
  for (const bad of [{ 2: 0 }, { 2: null }, { 2: [[0]] }, { 2: [0.5] }, { 2: [-1] }, { 2: { 0: 1 } }]) {
    const e = t.throws(() => rollDice(d, { '*': bad } as unknown as OperatorInput, resolve, seeded(1)), { instanceOf: DiceError });
    t.is(e!.status, 400);
  }
});

test('a viewer who may not see some dice: their total scales what they see; a hidden scaled modifier is not shown', (t) => {
  const r = rollDice(
    [
      { type: 'd6', theme: T, value: 4 },
      { type: 'mod', theme: T, value: 3 },
      { type: 'd4', theme: T, value: 2, isHidden: true },
    ],
    { '*': { 2: [0, 1] } },
    resolve,
    seeded(1),
  );
  t.is(r.total, 16);
  t.is(viewerTotal(r.values, r.operator), 14, 'the hidden d4 counts nothing; the d6 and +3 count doubled');
  t.is(
    viewerTotal(
      r.values.map((v) => ({ ...v, isHidden: false })),
      r.operator,
    ),
    r.total,
    'with nothing hidden, the stored total',
  );
  t.is(viewerEquation(r.equation, r.operator, r.values), r.equation, 'dice are written by kind: nothing to hide');

  const hiddenMod = rollDice(
    [
      { type: 'd6', theme: T, value: 4 },
      { type: 'mod', theme: T, value: 7, isHidden: true },
      { type: 'd4', theme: T, value: 2 },
      { type: 'mod', theme: T, value: 1, isHidden: true },
    ],
    { '*': { 2: [0, 1] } },
    resolve,
    seeded(1),
  );
  t.is(hiddenMod.equation, '(1d6+7)*2+1d4+1');
  t.is(viewerEquation(hiddenMod.equation, hiddenMod.operator, hiddenMod.values), '', 'never the 7');
  t.is(viewerTotal(hiddenMod.values, hiddenMod.operator), 10);
  const outside = rollDice(
    [
      { type: 'd6', theme: T, value: 4 },
      { type: 'd4', theme: T, value: 2 },
      { type: 'mod', theme: T, value: 5, isHidden: true },
    ],
    { '*': { 2: [0] } },
    resolve,
    seeded(1),
  );
  t.is(viewerEquation(outside.equation, outside.operator, outside.values), '(1d6)*2+1d4', 'a hidden modifier outside the terms is cut as ever');
});
