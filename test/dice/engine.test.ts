import test from 'ava';
import { CryptoRng, DiceError, rollDice, STANDARD_DICE, type DieRequest, type RollResult } from '../../src/dice/index';
import { dice, faces, resolve, T } from './helpers';

function refuses(t: import('ava').ExecutionContext, fn: () => unknown, path: string, status: 400 | 422 = 400): DiceError {
  const e = t.throws(fn, { instanceOf: DiceError })!;
  t.is(e.status, status);
  t.is(e.details[0]!.path, path);
  t.is(e.details[0]!.message, e.message);
  return e;
}

const none = () => faces(); // any draw fails the test: for requests that must not draw

test('standard dice have the documented faces', (t) => {
  t.deepEqual(Object.keys(STANDARD_DICE), ['d2', 'd4', 'd6', 'd8', 'd10', 'd10x', 'd12', 'd16', 'd20']);
  t.deepEqual(STANDARD_DICE.d10!.faces, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  t.deepEqual(STANDARD_DICE.d10x!.faces, [0, 10, 20, 30, 40, 50, 60, 70, 80, 90]);
  t.is(STANDARD_DICE.d20!.faces.length, 20);
  t.is(STANDARD_DICE.d16!.faces[15], 16);
});

test('a plain roll: values in request order, total, equation, no operator', (t) => {
  const r = rollDice(dice('d20', 'mod:5', 'd6'), undefined, resolve, faces(17, 4));
  t.deepEqual(
    r.values.map((v) => [v.dieIndex, v.type, v.value, v.valueToDisplay, v.origin]),
    [
      [0, 'd20', 17, 17, 'roll'],
      [1, 'mod', 5, 5, 'mod'],
      [2, 'd6', 4, 4, 'roll'],
    ],
  );
  t.is(r.total, 26);
  t.is(r.equation, '1d20+1d6+5');
  t.is(r.operator, null);
});

test('die types match case-insensitively and come back in lower case', (t) => {
  const r = rollDice([{ type: ' D20 ', theme: T }], undefined, resolve, faces(3));
  t.is(r.values[0]!.type, 'd20');
  t.is(r.equation, '1d20');
});

test('a theme without the die is a 422 naming theme and die', (t) => {
  const e = refuses(
    t,
    () =>
      rollDice(
        [
          { type: 'd6', theme: 'bare' },
          { type: 'd20', theme: 'bare' },
        ],
        undefined,
        resolve,
        none(),
      ),
    'dice[1].type',
    422,
  );
  t.regex(e.message, /bare/);
  t.regex(e.message, /d20/);
  t.is(e.code, 'unknown_die');
});

test('malformed dice are refused with their path', (t) => {
  refuses(t, () => rollDice([], undefined, resolve, none()), 'dice');
  refuses(t, () => rollDice(null as unknown as DieRequest[], undefined, resolve, none()), 'dice');
  refuses(t, () => rollDice([{ type: '', theme: T }], undefined, resolve, none()), 'dice[0].type');
  refuses(t, () => rollDice([{ type: 'd6', theme: '' }], undefined, resolve, none()), 'dice[0].theme');
  refuses(t, () => rollDice([{ type: 'd6', theme: T }, 7 as unknown as DieRequest], undefined, resolve, none()), 'dice[1]');
});

test('at most 100 dice in a request', (t) => {
  const hundred = dice(...Array.from({ length: 100 }, () => 'd6'));
  t.is(rollDice(hundred, undefined, resolve, new CryptoRng()).values.length, 100);
  const e = refuses(t, () => rollDice([...hundred, ...dice('d6')], undefined, resolve, none()), 'dice');
  t.is(e.code, 'too_many_dice');
});

// ---- predetermined values ----

test('a predetermined value is used as is, marked, and not drawn', (t) => {
  const r = rollDice(
    [
      { type: 'd20', theme: T, value: 20 },
      { type: 'd20', theme: T },
    ],
    undefined,
    resolve,
    faces(2),
  );
  t.deepEqual(
    r.values.map((v) => [v.value, v.isUserValue]),
    [
      [20, true],
      [2, false],
    ],
  );
  t.is(r.total, 22);
});

test('value_to_display alone picks its face; numbers match numeric strings; images match by src', (t) => {
  const r = rollDice(
    [
      { type: 'd20', theme: T, valueToDisplay: 13 },
      { type: 'fate', theme: T, valueToDisplay: 1 }, // "+1" is face 5
      { type: 'pips', theme: T, valueToDisplay: { src: 'p2.png' } },
      { type: 'word', theme: T, valueToDisplay: 'crit' },
    ],
    undefined,
    resolve,
    none(),
  );
  t.deepEqual(
    r.values.map((v) => v.value),
    [13, 5, 2, 4],
  );
  t.deepEqual(
    r.values.map((v) => v.valueToDisplay),
    [13, '+1', { src: 'p2.png' }, 'crit'],
  );
  t.true(r.values.every((v) => v.isUserValue));
  t.is(r.total, 14);
});

test('value and value_to_display must agree with the die', (t) => {
  t.is(rollDice([{ type: 'd6', theme: T, value: 4, valueToDisplay: '4' }], undefined, resolve, none()).total, 4);
  refuses(t, () => rollDice(dice('d6', 'd6:7'), undefined, resolve, none()), 'dice[1].value');
  refuses(t, () => rollDice(dice('d6:0'), undefined, resolve, none()), 'dice[0].value');
  refuses(t, () => rollDice([{ type: 'd6', theme: T, value: 2.5 }], undefined, resolve, none()), 'dice[0].value');
  // dddice's clients send a face's number as a string too: "3" is 3, a word is no number.
  t.is(rollDice([{ type: 'd6', theme: T, value: '3' as unknown as number }], undefined, resolve, none()).total, 3);
  refuses(t, () => rollDice([{ type: 'd6', theme: T, value: 'three' as unknown as number }], undefined, resolve, none()), 'dice[0].value');
  refuses(t, () => rollDice([{ type: 'd6', theme: T, valueToDisplay: 9 }], undefined, resolve, none()), 'dice[0].value_to_display');
  refuses(t, () => rollDice([{ type: 'd6', theme: T, value: 2, valueToDisplay: 3 }], undefined, resolve, none()), 'dice[0].value_to_display');
  refuses(t, () => rollDice([{ type: 'pips', theme: T, valueToDisplay: { src: 'nope.png' } }], undefined, resolve, none()), 'dice[0].value_to_display');
});

// ---- modifiers ----

test('mods add their value, are never drawn, and come back as numbers', (t) => {
  const r = rollDice(
    [
      { type: 'mod', theme: T, value: -2 },
      { type: 'MOD', theme: T, valueToDisplay: '3' },
      { type: 'mod', theme: T, value: 1.5 },
    ],
    undefined,
    resolve,
    none(),
  );
  t.deepEqual(
    r.values.map((v) => [v.type, v.value, v.valueToDisplay, v.numericValue, v.origin, v.isUserValue]),
    [
      ['mod', -2, -2, -2, 'mod', false],
      ['mod', 3, 3, 3, 'mod', false],
      ['mod', 1.5, 1.5, 1.5, 'mod', false],
    ],
  );
  t.is(r.total, 2.5);
  t.is(r.equation, '-2+3+1.5');
});

test('a mod may come without a theme', (t) => {
  const r = rollDice([{ type: 'd4', theme: T }, { type: 'mod', value: 1 } as DieRequest], undefined, resolve, faces(3));
  t.is(r.total, 4);
  t.is(r.values[1]!.theme, '');
});

test('a mod needs a number', (t) => {
  refuses(t, () => rollDice([{ type: 'mod', theme: T }], undefined, resolve, none()), 'dice[0].value');
  refuses(t, () => rollDice([{ type: 'mod', theme: T, valueToDisplay: 'two' }], undefined, resolve, none()), 'dice[0].value_to_display');
  refuses(t, () => rollDice([{ type: 'mod', theme: T, value: 2, valueToDisplay: 3 }], undefined, resolve, none()), 'dice[0].value_to_display');
  refuses(t, () => rollDice([{ type: 'mod', theme: T, value: 1e12 }], undefined, resolve, none()), 'dice[0].value');
});

// ---- totals ----

test('faces that are not numbers add nothing; numeric strings count', (t) => {
  const r = rollDice(dice('word', 'pips', 'fate', 'fate'), undefined, resolve, faces(4, 1, 1, 5));
  t.deepEqual(
    r.values.map((v) => v.numericValue),
    [null, null, -1, 1],
  );
  t.is(r.total, 0);
  t.is(r.equation, '1{word}+1d6+2{df}');
});

test('dropped dice do not count', (t) => {
  t.is(rollDice(dice('d6', 'd6', 'mod:1'), { k: 'h1' }, resolve, faces(2, 5)).total, 6);
});

// ---- d100 ----

function d100(tens: number, units: number): RollResult {
  return rollDice(dice('d10x', 'd10'), undefined, resolve, faces(tens / 10 + 1, units));
}

test('a d10x followed by a d10 reads as a percentile', (t) => {
  t.is(d100(50, 7).total, 57);
  t.is(d100(0, 10).total, 100); // 00 and 0
  t.is(d100(90, 10).total, 90);
  t.is(d100(0, 1).total, 1);
  t.is(d100(90, 9).total, 99);
  t.is(d100(0, 10).equation, '1d100');
  t.deepEqual(
    d100(0, 10).values.map((v) => [v.valueToDisplay, v.numericValue]),
    [
      [0, 100],
      [10, 0],
    ],
  );
  t.deepEqual(
    d100(50, 7).values.map((v) => [v.valueToDisplay, v.numericValue]),
    [
      [50, 50],
      [7, 7],
    ],
  );
});

test('every percentile 1..100 comes from exactly one pair of faces', (t) => {
  const seen = new Map<number, number>();
  for (let tens = 0; tens <= 90; tens += 10) {
    for (let units = 1; units <= 10; units++) {
      const total = d100(tens, units).total;
      seen.set(total, (seen.get(total) ?? 0) + 1);
    }
  }
  t.is(seen.size, 100);
  t.true([...seen.keys()].every((k) => k >= 1 && k <= 100));
});

test('only an adjacent d10x then d10 pair up; alone they count their faces', (t) => {
  t.is(rollDice(dice('d10', 'd10x'), undefined, resolve, faces(10, 1)).total, 10);
  t.is(rollDice(dice('d10x', 'mod:1', 'd10'), undefined, resolve, faces(1, 10)).total, 11);
  t.is(rollDice(dice('d10x', 'd10x', 'd10'), undefined, resolve, faces(10, 1, 10)).equation, '1d10x+1d100');
});

// ---- flags and pass-through ----

test('hidden, label and meta pass through, also to rerolls and explosions', (t) => {
  const r = rollDice(
    [
      { type: 'd6', theme: T, isHidden: true, label: 'fire', meta: { a: 1 } },
      { type: 'd6', theme: T },
    ],
    { e: '6' },
    resolve,
    faces(6, 6, 2, 3),
  );
  t.deepEqual(
    r.values.map((v) => [v.isHidden, v.label, v.origin]),
    [
      [true, 'fire', 'roll'],
      [false, undefined, 'roll'],
      [true, 'fire', 'explosion'],
      [false, undefined, 'explosion'],
    ],
  );
  t.deepEqual(r.values[2]!.meta, { a: 1 });
});

test('the operator comes back as given', (t) => {
  const operator = { d: 'l1' };
  t.is(rollDice(dice('d6', 'd6'), operator, resolve, faces(1, 2)).operator, operator);
});

test('a refused request draws nothing', (t) => {
  refuses(t, () => rollDice(dice('d6', 'd6'), { k: 'zz' }, resolve, none()), 'operator.k');
  refuses(t, () => rollDice(dice('d6', 'd6:9'), undefined, resolve, none()), 'dice[1].value');
});

// ---- randomness source ----

test('CryptoRng draws in range for small and large n, and refuses bad n', (t) => {
  const rng = new CryptoRng();
  for (const n of [1, 2, 3, 6, 7, 20, 100, 1000, 2 ** 31 + 1, 2 ** 32]) {
    for (let i = 0; i < 2000; i++) {
      const x = rng.int(n);
      if (!(Number.isInteger(x) && x >= 0 && x < n)) return t.fail(`int(${n}) gave ${x}`);
    }
  }
  t.is(rng.int(1), 0);
  for (const n of [0, -1, 1.5, 2 ** 32 + 1, NaN]) t.throws(() => rng.int(n), { instanceOf: RangeError });
});

test('a theme die without faces is a 422', (t) => {
  const broken = () => ({ id: 'x', type: 'd6', notation: 'x', faces: [] });
  refuses(t, () => rollDice(dice('x'), undefined, broken, none()), 'dice[0].type', 422);
});
