/**
 * Any number of sides and fudge dice on the built-in theme, and dice pools (`8d10>=8`,
 * `8d10>=8f1`, `10d10>=8!`): the one home of their tests. Fixed cases with scripted faces, the operator
 * object and predetermined faces, properties over seeded random rolls, and chi-square of 4dF's total and
 * of a pool's success count against their exact distributions. Explosions, `u`, `s`: explosions.test.ts.
 */
import test from 'ava';
import {
  builtinDefinition,
  CryptoRng,
  DiceError,
  MAX_GENERIC_SIDES,
  parseEquation,
  rollDice,
  rollEquation,
  type Resolve,
  type RollResult,
  type Rng,
} from '../../src/dice/index';
import { faces, resolve as customResolve, seeded, T } from './helpers';

/** The built-in theme as src/rolls/create.ts resolves it when the theme lists no such die. */
const builtin: Resolve = (_theme, type) => builtinDefinition(type);
const STD = 'standard';

function roll(eq: string, rng: Rng): RollResult {
  return rollEquation(eq, STD, builtin, rng);
}

test('the built-in theme rolls any dN with 2 <= N <= 1,000 as a generic die with faces 1..N', (t) => {
  for (const n of [2, 3, 7, 30, 100, 999, MAX_GENERIC_SIDES]) {
    const def = builtinDefinition(`d${n}`)!;
    t.deepEqual(
      def.faces,
      Array.from({ length: n }, (_, i) => i + 1),
      `d${n}`,
    );
  }
  for (const bad of ['d1', 'd0', 'd1001', 'd03', 'd', 'dx', 'constructor', 'd-3']) t.is(builtinDefinition(bad), null, bad);
  const r = roll('2d30+1d3+1', faces(30, 1, 3));
  t.is(r.total, 35);
  t.is(r.equation, '2d30+1d3+1');
  t.deepEqual(
    r.values.map((v) => v.type),
    ['d30', 'd30', 'd3', 'mod'],
  );
  t.is(roll('1d1000', faces(1000)).total, 1000);
  // A standard die keeps its own definition (the d10 is 1..10, d100 is still the percentile pair).
  t.deepEqual(
    roll('1d100', faces(10, 7)).values.map((v) => v.type),
    ['d10x', 'd10'],
  );
});

test('a die the built-in theme cannot roll is a 422 pointing at equation when only an equation was sent', (t) => {
  for (const eq of ['1d1001', '1d1', '2d20+1d5000', '1dq']) {
    const e = t.throws(() => roll(eq, seeded(1)), { instanceOf: DiceError }, eq)!;
    t.is(e.status, 422, eq);
    t.is(e.code, 'unknown_die', eq);
    t.deepEqual(
      e.details.map((d) => d.path),
      ['equation'],
      eq,
    );
  }
  // With explicit dice the path still names the die.
  const e = t.throws(
    () =>
      rollDice(
        [
          { type: 'd20', theme: STD },
          { type: 'd1001', theme: STD },
        ],
        null,
        builtin,
      ),
    { instanceOf: DiceError },
  )!;
  t.deepEqual(
    e.details.map((d) => d.path),
    ['dice[1].type'],
  );
  // A custom theme without generic dice still refuses them.
  t.is(t.throws(() => rollEquation('1d3', 'bare', customResolve), { instanceOf: DiceError })!.details[0]!.path, 'equation');
});

test('fudge dice: 4dF has faces -1, 0, +1 (two each); dF.1 one -1, four 0, one +1; written back as read', (t) => {
  t.deepEqual(builtinDefinition('df')!.faces, [-1, -1, 0, 0, 1, 1]);
  t.deepEqual(builtinDefinition('df.1')!.faces, [-1, 0, 0, 0, 0, 1]);
  const r = roll('4dF+2', faces(1, 3, 5, 6));
  t.deepEqual(
    r.values.map((v) => v.valueToDisplay),
    [-1, 0, 1, 1, 2],
  );
  t.is(r.total, 3);
  t.is(r.equation, '4dF+2');
  t.deepEqual(parseEquation(r.equation), parseEquation('4dF+2'));
  const one = roll('dF.1', faces(6));
  t.is(one.total, 1);
  t.is(one.equation, '1dF.1');
  t.deepEqual(
    roll(one.equation, faces(1)).values.map((v) => v.valueToDisplay),
    [-1],
  );
  // A theme's own dF die keeps its braces, as equations stored before always wrote it.
  t.is(rollEquation('2dF', T, customResolve, faces(1, 6)).equation, '2{df}');
});

interface Case {
  eq: string;
  script: number[];
  total: number;
  s: number | null;
  f: number | null;
  marks: string;
}

// marks: per value S (success), F (failure), d (dropped), . (neither)
const CASES: Case[] = [
  { eq: '8d10>=8', script: [8, 9, 10, 7, 1, 2, 8, 3], total: 4, s: 4, f: 0, marks: 'SSS...S.' },
  { eq: '8d10>=8f1', script: [8, 1, 10, 7, 1, 2, 8, 1], total: 0, s: 3, f: 3, marks: 'SFS.F.SF' },
  { eq: '6d6>=5', script: [5, 6, 4, 1, 5, 2], total: 3, s: 3, f: 0, marks: 'SS..S.' },
  // the 10 explodes into a 9 (a success, no explosion), the 8 does not explode: 4 successes of 11 dice
  { eq: '10d10>=8!', script: [10, 8, 1, 2, 3, 4, 5, 6, 7, 8, 9], total: 4, s: 4, f: 0, marks: 'SS.......SS' },
  { eq: '3d10>=8f1!', script: [10, 1, 5, 10, 1], total: 0, s: 2, f: 2, marks: 'SF.SF' },
  { eq: '8d10=10', script: [10, 9, 10, 1, 1, 1, 1, 1], total: 2, s: 2, f: 0, marks: 'S.S.....' },
  { eq: '4d6>4f<3', script: [5, 2, 1, 4], total: -1, s: 1, f: 2, marks: 'SFF.' },
  // every compare point: >, <=, = (written back with its =), and f with one
  { eq: '4d10>8', script: [8, 9, 10, 1], total: 2, s: 2, f: 0, marks: '.SS.' },
  { eq: '4d10<=2', script: [1, 2, 3, 10], total: 2, s: 2, f: 0, marks: 'SS..' },
  { eq: '4d10=7', script: [7, 7, 1, 8], total: 2, s: 2, f: 0, marks: 'SS..' },
  { eq: '3d10>=8f<3', script: [2, 1, 9], total: -1, s: 1, f: 2, marks: 'FFS' },
  // a die matching both counts as a success only
  { eq: '2d6>=1f1', script: [1, 6], total: 2, s: 2, f: 0, marks: 'SS' },
  // dropped dice count nothing
  { eq: '4d10kh2>=8', script: [9, 2, 10, 1], total: 2, s: 2, f: 0, marks: 'SdSd' },
  // modifiers add to the count
  { eq: '2d10>=8+3', script: [9, 4], total: 4, s: 1, f: 0, marks: 'S.' },
  // rr<3 stays d20's reroll: no pool
  { eq: '2d20rr<3', script: [1, 15, 2, 18], total: 33, s: null, f: null, marks: 'd.d.' },
];

test('fixed cases: successes, failures, totals, marks and the written equation', (t) => {
  for (const c of CASES) {
    const rng = faces(...c.script);
    const r = roll(c.eq, rng);
    t.is(rng.left(), 0, `${c.eq}: draws`);
    t.is(r.total, c.total, `${c.eq}: total`);
    if (c.s !== null && !c.eq.includes('+')) t.is(r.total, c.s - c.f!, `${c.eq}: total is successes minus failures`);
    t.is(r.successCount, c.s, `${c.eq}: successes`);
    t.is(r.failureCount, c.f, `${c.eq}: failures`);
    const marks = r.values
      .filter((v) => v.type !== 'mod')
      .map((v) => (v.isSuccess ? 'S' : v.isFailure ? 'F' : v.isDropped ? 'd' : '.'))
      .join('');
    t.is(marks, c.marks, `${c.eq}: marks`);
    t.is(r.equation, c.eq, `${c.eq}: written back as read`);
    t.deepEqual(parseEquation(r.equation), parseEquation(c.eq));
  }
});

test('pools through the operator object, with predetermined faces; an exploding pool counts its explosions', (t) => {
  t.deepEqual(parseEquation('8d10>=8f1').operator, { success: '>=8', failure: '1' });
  const dice = [8, 1, 3].map((v) => ({ type: 'd10', theme: STD, value: v }));
  const r = rollDice(dice, { success: '>=8', failure: '1' }, builtin, faces());
  t.deepEqual([r.total, r.successCount, r.failureCount], [0, 1, 1]);
  t.true(r.values.every((v) => v.isUserValue));
  t.is(r.equation, '3d10>=8f1');
  const e = t.throws(() => rollDice(dice, { success: 'h1' }, builtin, faces()), { instanceOf: DiceError })!;
  t.is(e.details[0]!.path, 'operator.success');
  t.is(t.throws(() => roll('8d10>=', seeded(1)), { instanceOf: DiceError })!.code, 'invalid_equation');
  // A predetermined 10 explodes: the drawn 4 is one more die of the pool (and counts nothing).
  const pool = rollDice(
    [
      { type: 'd10', theme: STD, value: 10 },
      { type: 'd10', theme: STD, value: 1 },
    ],
    { success: '>=8', failure: '1', '!': 'max' },
    builtin,
    faces(4),
  );
  t.deepEqual(
    pool.values.map((v) => [v.value, v.origin, v.isSuccess, v.isFailure]),
    [
      [10, 'roll', true, false],
      [1, 'roll', false, true],
      [4, 'explosion', false, false],
    ],
  );
  t.is(pool.total, 0);
  t.is(pool.equation, '2d10>=8f1!');
  // A pool on some of the dice: the other dice add their numbers.
  const mixed = rollDice(
    [
      { type: 'd10', theme: STD },
      { type: 'd10', theme: STD },
      { type: 'd6', theme: STD },
    ],
    { success: { '>=8': [0, 1] } },
    builtin,
    faces(9, 2, 4),
  );
  t.is(mixed.total, 1 + 4);
  t.is(mixed.equation, '2d10>=8+1d6');
  // A fudge face given by what it shows.
  t.is(rollDice([{ type: 'df', theme: STD, valueToDisplay: 1 }], undefined, builtin, faces()).total, 1);
});

test('properties: every value is a success exactly when it meets the target, a failure when it meets f and not the target', (t) => {
  const rng = seeded(21);
  const sidesChoice = [4, 6, 8, 10, 12, 20, 30];
  for (let i = 0; i < 3000; i++) {
    const n = 1 + rng.int(20);
    const sides = sidesChoice[rng.int(sidesChoice.length)]!;
    const target = 2 + rng.int(sides - 1); // >= 2 so an explosion on the highest face keeps a non-pool bound
    const fail = rng.int(3) === 0 ? null : 1 + rng.int(Math.max(1, target - 1));
    const explode = rng.int(4) === 0;
    const eq = `${n}d${sides}>=${target}${fail === null ? '' : `f<=${fail}`}${explode ? '!' : ''}`;
    const r = roll(eq, rng);
    let s = 0;
    let f = 0;
    let maxes = 0;
    for (const v of r.values) {
      const face = v.valueToDisplay as number;
      if (face === sides) maxes++;
      const success = face >= target;
      const failure = !success && fail !== null && face <= fail;
      if (v.isSuccess !== success || v.isFailure !== failure) {
        t.fail(`${eq}: face ${face} marked success=${v.isSuccess} failure=${v.isFailure}`);
        return;
      }
      if (v.isDropped) {
        t.fail(`${eq}: nothing is dropped in a pool without k/p`);
        return;
      }
      t.is(v.numericValue, success ? 1 : failure ? -1 : 0);
      if (success) s++;
      if (failure) f++;
    }
    // an explosion adds exactly one die per die showing the highest face
    const expected = explode ? n + maxes : n;
    if (r.values.length !== expected && r.values.length < 1000) {
      t.fail(`${eq}: ${r.values.length} dice, expected ${expected}`);
      return;
    }
    if (r.successCount !== s || r.failureCount !== (fail === null ? 0 : f) || r.total !== s - f) {
      t.fail(`${eq}: counts ${r.successCount}/${r.failureCount} total ${r.total}, expected ${s}/${f} ${s - f}`);
      return;
    }
    if (r.equation !== eq) {
      t.fail(`${eq} written back as ${r.equation}`);
      return;
    }
  }
  t.pass();
});

const SAMPLES = 60_000;
// Upper 1e-6 quantiles of the chi-square distribution (scipy.stats.chi2.isf(1e-6, df)).
const CRITICAL: Record<number, number> = { 6: 38.258, 8: 42.701 };

function chiSquare(observed: number[], probabilities: number[]): number {
  let x2 = 0;
  for (let i = 0; i < observed.length; i++) {
    const e = SAMPLES * probabilities[i]!;
    x2 += (observed[i]! - e) ** 2 / e;
  }
  return x2;
}

/** (x^-1 + 1 + x)^4 / 81: the exact distribution of 4dF's total, -4..4. */
const FOUR_DF = [1, 4, 10, 16, 19, 16, 10, 4, 1].map((c) => c / 81);

function fourDfTotals(rng: Rng): number[] {
  const counts = new Array<number>(9).fill(0);
  for (let i = 0; i < SAMPLES; i++) counts[roll('4dF', rng).total + 4]!++;
  return counts;
}

test('chi-square: 4dF totals follow (x^-1 + 1 + x)^4 / 81, and a source biased by a few percent fails', (t) => {
  const x2 = chiSquare(fourDfTotals(new CryptoRng()), FOUR_DF);
  t.true(x2 < CRITICAL[8]!, `chi-square ${x2.toFixed(2)} >= ${CRITICAL[8]}`);
  const fair = new CryptoRng();
  const biased: Rng = { int: (n) => (fair.int(100) < 4 ? n - 1 : fair.int(n)) }; // +1 about 37% instead of 33%
  t.true(chiSquare(fourDfTotals(biased), FOUR_DF) > CRITICAL[8]!);
});

function binomial(n: number, p: number, k: number): number {
  let c = 1;
  for (let i = 0; i < k; i++) c = (c * (n - i)) / (i + 1);
  return c * p ** k * (1 - p) ** (n - k);
}

test('chi-square: the success count of 8d10>=8 is binomial(8, 0.3) (6, 7 and 8 successes in one bin)', (t) => {
  const probabilities = [0, 1, 2, 3, 4, 5].map((k) => binomial(8, 0.3, k));
  probabilities.push(1 - probabilities.reduce((a, b) => a + b, 0));
  const rng = new CryptoRng();
  const counts = new Array<number>(7).fill(0);
  for (let i = 0; i < SAMPLES; i++) {
    const r = roll('8d10>=8', rng);
    counts[Math.min(6, r.successCount!)]!++;
  }
  const x2 = chiSquare(counts, probabilities);
  t.true(x2 < CRITICAL[6]!, `chi-square ${x2.toFixed(2)} >= ${CRITICAL[6]}: ${counts.join(' ')}`);
});
