import test from 'ava';
import { chiSquareAgainstUniform, chiSquarePValue, lnGamma, upperRegularizedGamma } from '../../src/stats/chiSquare';

/** Relative difference, for comparisons to 1e-3 relative as the critical-value tables are printed. */
const close = (actual: number, expected: number, rel = 1e-3) => Math.abs(actual - expected) <= rel * Math.abs(expected);

// Critical values of the chi-square distribution as printed in the usual tables (NIST/SEMATECH
// e-Handbook, 1.3.6.7.4): the value that a chi-square variable with df degrees of freedom exceeds with
// probability p. The table prints three decimals, hence the 1e-3 relative tolerance.
const TABLE: [df: number, chi2: number, p: number][] = [
  [1, 3.841, 0.05],
  [1, 6.635, 0.01],
  [1, 10.828, 0.001],
  [2, 5.991, 0.05],
  [2, 9.21, 0.01],
  [3, 7.815, 0.05],
  [3, 11.345, 0.01],
  [5, 11.07, 0.05],
  [5, 15.086, 0.01],
  [7, 14.067, 0.05],
  [9, 16.919, 0.05],
  [11, 19.675, 0.05],
  [19, 30.144, 0.05],
  [19, 36.191, 0.01],
  [19, 43.82, 0.001],
  [19, 11.651, 0.9],
  [19, 27.204, 0.1],
  [99, 123.225, 0.05],
  [99, 134.642, 0.01],
  [100, 124.342, 0.05],
];

for (const [df, chi2, p] of TABLE) {
  test(`p-value of chi2 = ${chi2} with df = ${df} is ${p}`, (t) => {
    const got = chiSquarePValue(chi2, df);
    t.true(close(got, p), `got ${got}`);
  });
}

test('two degrees of freedom have a closed form: Q(1, x/2) = exp(-x/2)', (t) => {
  for (const x of [0.1, 1, 2.5, 10, 40, 120]) t.true(close(chiSquarePValue(x, 2), Math.exp(-x / 2), 1e-9), `x = ${x}`);
});

test('ln Gamma matches factorials', (t) => {
  for (const [n, fact] of [
    [1, 1],
    [2, 1],
    [5, 24],
    [11, 3628800],
    [21, 2432902008176640000],
  ] as const) {
    t.true(Math.abs(lnGamma(n) - Math.log(fact)) <= 1e-12 * Math.max(1, Math.log(fact)), `Γ(${n}): ${lnGamma(n)}`);
  }
  t.true(close(lnGamma(0.5), Math.log(Math.sqrt(Math.PI)), 1e-12));
});

test('edges: 0 gives 1, huge statistics give 0, large dice converge, bad input is NaN', (t) => {
  t.is(chiSquarePValue(0, 19), 1);
  t.is(upperRegularizedGamma(3, Infinity), 0);
  t.true(chiSquarePValue(10_000, 5) < 1e-300 || chiSquarePValue(10_000, 5) === 0);
  // A die of 10,000 faces: the statistic at its mean has a p-value near one half.
  const mid = chiSquarePValue(9999, 9999);
  t.true(mid > 0.49 && mid < 0.51, `got ${mid}`);
  t.true(Number.isNaN(upperRegularizedGamma(0, 1)));
  t.true(Number.isNaN(upperRegularizedGamma(1, -1)));
});

test('the statistic against a fair die', (t) => {
  t.is(chiSquareAgainstUniform([10, 10, 10, 10, 10, 10]), 0);
  // expected 10 each: (20-10)^2/10 + (0-10)^2/10 = 20
  t.is(chiSquareAgainstUniform([20, 0, 10, 10, 10, 10]), 20);
  t.is(chiSquareAgainstUniform([0, 0, 0]), 0);
});
