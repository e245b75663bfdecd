/**
 * rpg-dice-roller's explosions, unique rerolls and sorting: a table of fixed cases with scripted
 * faces for `!` `!!` `!p` `!!p` (with compare points), `u` and `s`, then properties of the explosions over
 * seeded random rolls. Dice pools, fudge and generic dice: dice-pools.test.ts; roll groups: groups.test.ts.
 */
import test from 'ava';
import { builtinDefinition, CryptoRng, DiceError, parseEquation, rollDice, rollEquation, type Resolve, type RollResult, type Rng } from '../../src/dice/index';
import { faces, resolve as themeResolve, seeded } from './helpers';

/** Theme "standard" as the service's built-in theme rolls; "t" as helpers.ts (custom dice, notation dF). */
const resolve: Resolve = (theme, type) => (theme === 'standard' ? builtinDefinition(type) : themeResolve(theme, type));

function roll(eq: string, ...script: number[]): RollResult {
  const rng = faces(...script);
  const r = rollEquation(eq, 'standard', resolve, rng);
  if (rng.left() !== 0) throw new Error(`${rng.left()} scripted faces were not drawn`);
  return r;
}

/** "8S 1F 6 5c 3cp 2x": face, S/F success/failure, c compounded, p penetrated, x dropped. */
function shown(r: RollResult): string {
  return r.values
    .map(
      (v) =>
        `${String(v.valueToDisplay)}${v.isSuccess ? 'S' : ''}${v.isFailure ? 'F' : ''}` +
        `${v.isCompounded ? 'c' : ''}${v.isPenetrated ? 'p' : ''}${v.isDropped ? 'x' : ''}`,
    )
    .join(' ');
}

// ---- fixed cases, one table per operator ----

const CASES: [string, number[], string, number, [number, number] | null][] = [
  // equation, scripted faces, values, total, [successes, failures]; an exploding pool, one row
  ['3d10>=8!', [10, 5, 8, 10, 1], '10S 5 8S 10S 1', 3, [3, 0]],
  ['3d6!', [6, 2, 3, 6, 4], '6 2 3 6 4', 21, null],
  ['3d6!>=5', [5, 2, 1, 3], '5 2 1 3', 11, null],
  ['2d6!!', [6, 2, 6, 3], '6c 2 6c 3c', 17, null],
  ['2d6!!>=5', [5, 6, 4, 5, 1], '5c 6c 4c 5c 1c', 21, null],
  ['2d6!p', [6, 2, 6, 1], '6 2 6p 1p', 6 + 2 + 5 + 0, null],
  ['1d6!!p', [6, 6, 3], '6c 6cp 3cp', 6 + 5 + 2, null],
  ['3d6!!kh1', [6, 5, 4, 2], '6c 5x 4x 2c', 8, null],
  ['2d6!!>=4', [1, 3], '1 3', 4, null],
  ['4d6kh3', [1, 3, 4, 3], '1x 3 4 3', 10, null],
  ['1d20e20', [20, 5], '20 5', 25, null],
  ['4d6u', [5, 2, 5, 2, 5, 3, 2, 1], '5 2 5x 2x 5x 3 2x 1', 11, null],
  ['4d6u=6', [6, 6, 6, 6, 1, 2, 6, 3], '6 6x 6x 6x 1 2 6x 3', 12, null],
  ['3d6u>4', [4, 4, 5], '4 4 5', 13, null],
  ['4d6ukh3', [1, 1, 2, 3, 5], '1x 1x 2 3 5', 10, null],
  // s / sd say how to show the results: the dice keep their order here (values[i] is dice[i]'s)
  ['4d6s', [5, 2, 6, 1], '5 2 6 1', 14, null],
  ['4d6kh3sd', [5, 2, 6, 1], '5 2 6 1x', 13, null],
];

for (const [eq, script, values, total, counts] of CASES) {
  test(`${eq}: ${values} = ${total}`, (t) => {
    const r = roll(eq, ...script);
    t.is(shown(r), values);
    t.is(r.total, total);
    t.deepEqual(r.successCount === null ? null : [r.successCount, r.failureCount], counts);
    // The written equation reads back to the same dice and operators.
    t.deepEqual(parseEquation(r.equation), parseEquation(eq));
    t.deepEqual(roll(r.equation, ...script).values, r.values);
  });
}

test('equations are written back the way they were read', (t) => {
  for (const eq of ['3d6!!>=5', '3d6!p', '3d6!!p<3', '1d6!!p', '4d6u=6', '4d6sd', '4d6kh3+2', '(1d20, 1d12)!']) {
    t.is(rollEquation(eq, 'standard', resolve, seeded(7)).equation, eq);
  }
});

test('the operator object says the same: explosions as keys, "" or "max" for the highest face', (t) => {
  t.deepEqual(parseEquation('3d6!!>=5kh1').operator, { '!!': '>=5', k: 'h1' });
  t.deepEqual(parseEquation('2d6!').operator, { '!': '' });
  const dice = Array.from({ length: 3 }, () => ({ type: 'd6', theme: 'standard' }));
  const r = rollDice(dice, { '!p': 'max' }, resolve, faces(6, 1, 2, 3));
  t.is(shown(r), '6 1 2 3p');
  t.is(r.equation, '3d6!p');
});

test('a theme die is read in its notation: 4dF with a theme whose die has notation dF (written 4{df} as before)', (t) => {
  const r = rollEquation('4dF', 't', resolve, faces(1, 2, 5, 6));
  t.deepEqual(
    r.values.map((v) => v.type),
    ['df', 'df', 'df', 'df'],
  );
  t.deepEqual(
    r.values.map((v) => v.valueToDisplay),
    ['-1', '-1', '+1', '+1'],
  );
  t.is(r.equation, '4{df}');
  t.deepEqual(parseEquation(r.equation), parseEquation('4dF'));
  t.is(r.total, 0);
});

test('predetermined first throws: the rules run after them', (t) => {
  const dice = [
    { type: 'd6', theme: 'standard', value: 6 },
    { type: 'd6', theme: 'standard', value: 2 },
  ];
  const c = rollDice(dice, { '!!': '' }, resolve, faces(6, 1));
  t.is(shown(c), '6c 2 6c 1c');
  t.true(c.values[0]!.isUserValue);
  t.false(c.values[2]!.isUserValue);
  const unique = rollDice(
    [
      { type: 'd6', theme: 'standard', value: 4 },
      { type: 'd6', theme: 'standard', value: 4 },
    ],
    { u: '' },
    resolve,
    faces(4, 2),
  );
  t.is(shown(unique), '4 4x 4x 2');
});

test('refusals name their rule: bounds, compare points, d100 compounding', (t) => {
  const refuses = (eq: string, code: DiceError['code'], status: 400 | 422 = 400) => {
    const e = t.throws(() => rollEquation(eq, 'standard', resolve, seeded(1)), { instanceOf: DiceError })!;
    t.is(e.code, code, eq);
    t.is(e.status, status, eq);
    t.is(e.details[0]!.path, 'equation', eq);
  };
  refuses('3d6!>=1', 'invalid_operator'); // every face explodes: refused before it starts
  refuses('1d100!!', 'invalid_operator');
  refuses('3d6!>=', 'invalid_equation');
  refuses('100d20!>=2', 'too_many_dice');
  refuses('7d6u', 'invalid_operator'); // seven different numbers from a d6: never
});

// ---- properties of the explosions, for random faces ----

const ROLLS = 2000;

/** A compounding roll's throws by die (its request die, dieIndex), in the order thrown. */
function throwsOf(r: RollResult): number[][] {
  const out: number[][] = [];
  for (const v of r.values) if (v.type !== 'mod') (out[v.dieIndex] ??= []).push(v.valueToDisplay as number);
  return out;
}

function property(t: import('ava').ExecutionContext, eq: string, rng: Rng, check: (r: RollResult) => string | null): void {
  for (let i = 0; i < ROLLS; i++) {
    const r = rollEquation(eq, 'standard', resolve, rng);
    const sum = r.values.reduce((s, v) => s + (v.isDropped || v.numericValue === null ? 0 : v.numericValue), 0);
    if (sum !== r.total) return void t.fail(`${eq}: values add up to ${sum}, total ${r.total}`);
    const problem = check(r);
    if (problem !== null) return void t.fail(`${eq} roll ${i}: ${problem} (${shown(r)})`);
  }
  t.pass();
}

test('!! compounds exactly while a throw matches: every throw but the last matches, the last does not', (t) => {
  for (const [eq, hit] of [
    ['4d6!!', (n: number) => n === 6],
    ['4d6!!>=5', (n: number) => n >= 5],
    ['3d4!!p', (n: number) => n === 4],
  ] as const) {
    property(t, eq, seeded(11), (r) => {
      for (const die of throwsOf(r)) {
        for (let k = 0; k < die.length - 1; k++) if (!hit(die[k]!)) return `throw ${k} of ${die} did not match but compounded`;
        if (hit(die[die.length - 1]!)) return `the last throw of ${die} matches but did not compound`;
      }
      return throwsOf(r).length === Number(eq[0]) ? null : 'a compounding die became several dice';
    });
  }
});

test('! and !p roll one more die for each matching die, never for one that does not match', (t) => {
  for (const eq of ['4d6!', '4d6!p', '4d8!>=7', '4d8!p>=7']) {
    const penetrate = eq.includes('!p');
    const sides = Number(/d(\d+)/.exec(eq)![1]);
    const matches = (n: number) => (eq.endsWith('>=7') ? n >= 7 : n === sides);
    property(t, eq, seeded(5), (r) => {
      let owed = 4; // dice still to come: the four, plus one per matching die
      let seen = 0;
      for (const v of r.values) {
        seen++;
        const face = v.valueToDisplay as number;
        if (v.numericValue !== face - (v.isPenetrated ? 1 : 0)) return `a ${face} counts ${String(v.numericValue)}`;
        if (v.isPenetrated !== (penetrate && v.origin === 'explosion')) return 'only explosions of !p penetrate';
        if (matches(face)) owed++;
      }
      return seen === owed ? null : `${seen} dice for ${owed}`;
    });
  }
});

test("!! then kh1 keeps the compounded die with the highest sum, dropping all of the others' throws", (t) => {
  property(t, '3d6!!kh1', seeded(3), (r) => {
    const dice = throwsOf(r).map((d) => d.reduce((a, b) => a + b, 0));
    return r.total === Math.max(...dice) ? null : `kept ${r.total} of ${dice}`;
  });
});

test('the crypto source passes the same checks', (t) => {
  property(t, '6d6!!>=5', new CryptoRng(), (r) => (throwsOf(r).length === 6 ? null : 'six dice'));
});

test('u leaves no two kept dice showing the same number, and rerolls only duplicates', (t) => {
  property(t, '5d6u', seeded(9), (r) => {
    const kept = r.values.filter((v) => !v.isDropped).map((v) => v.numericValue);
    if (new Set(kept).size !== 5) return `kept ${kept}`;
    // A dropped value was a duplicate of a number already kept when it was thrown.
    return r.values.filter((v) => v.isDropped).every((v) => kept.includes(v.numericValue)) ? null : 'a unique die was rerolled';
  });
});
