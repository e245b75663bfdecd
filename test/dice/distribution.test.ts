/**
 * Fairness: chi-square goodness of fit of 60,000 faces to the uniform distribution, at significance 1e-6
 * (a fair source fails about once in a million runs, so the test is not flaky; a source biased by a few
 * percent fails every time, which the last test shows).
 */
import test from 'ava';
import { CryptoRng, rollDice, type Rng } from '../../src/dice/index';
import { resolve, T } from './helpers';

const SAMPLES = 60_000;
// Upper 1e-6 quantiles of the chi-square distribution (scipy.stats.chi2.isf(1e-6, df)).
const CRITICAL: Record<number, number> = { 5: 35.888, 19: 63.677 };

function chiSquare(type: string, sides: number, rng: Rng): number {
  const counts = new Array<number>(sides).fill(0);
  const dice = Array.from({ length: 100 }, () => ({ type, theme: T }));
  for (let n = 0; n < SAMPLES; n += 100) {
    for (const v of rollDice(dice, undefined, resolve, rng).values) counts[v.value - 1]!++;
  }
  const expected = SAMPLES / sides;
  return counts.reduce((sum, c) => sum + (c - expected) ** 2 / expected, 0);
}

test('d6 faces are uniform', (t) => {
  const x2 = chiSquare('d6', 6, new CryptoRng());
  t.true(x2 < CRITICAL[5]!, `chi-square ${x2.toFixed(2)} >= ${CRITICAL[5]}`);
});

test('d20 faces are uniform', (t) => {
  const x2 = chiSquare('d20', 20, new CryptoRng());
  t.true(x2 < CRITICAL[19]!, `chi-square ${x2.toFixed(2)} >= ${CRITICAL[19]}`);
});

test('the test catches a source that favours one face by a few percent', (t) => {
  const fair = new CryptoRng();
  // Shows face 1 instead of the drawn face 3% of the time: d6 face 1 at about 19.2% instead of 16.7%.
  const biased: Rng = { int: (n) => (fair.int(100) < 3 ? 0 : fair.int(n)) };
  t.true(chiSquare('d6', 6, biased) > CRITICAL[5]!);
  t.true(chiSquare('d20', 20, biased) > CRITICAL[19]!);
});
