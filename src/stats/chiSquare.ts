/**
 * The chi-square test of a die against a fair one, and its p-value, with no dependency: the p-value of
 * a chi-square statistic `x` with `k` degrees of freedom is the upper regularized incomplete gamma
 * function Q(k/2, x/2) (the chi-square survival function). Q is computed as in Numerical Recipes
 * (§6.2): by the series of P = 1 - Q when x < a + 1, where it converges fast, else by the continued
 * fraction of Q (modified Lentz), which keeps the small p-values precise. ln Γ is Lanczos's
 * approximation (g = 7, 9 coefficients: about 15 significant digits). test/stats/chiSquare.test.ts
 * checks it against the published critical values of the chi-square table.
 */

const EPSILON = 1e-15;
const TINY = 1e-300;
/** Enough for a die of 10,000 faces (a = 5,000): the series needs about a few sqrt(a) terms. */
const MAX_ITERATIONS = 100_000;

const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012,
  9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Γ(z) for z > 0. */
export function lnGamma(z: number): number {
  if (z < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * z)) - lnGamma(1 - z);
  const x = z - 1;
  let sum = LANCZOS[0]!;
  for (let i = 1; i < 9; i++) sum += LANCZOS[i]! / (x + i);
  const t = x + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** The upper regularized incomplete gamma function Q(a, x) = Γ(a, x) / Γ(a), for a > 0 and x >= 0. */
export function upperRegularizedGamma(a: number, x: number): number {
  if (!(a > 0) || !(x >= 0)) return NaN;
  if (x === 0) return 1;
  if (x === Infinity) return 0;
  // e^-x x^a / Γ(a), the factor both expansions share, in logarithms (x^a alone overflows).
  const front = Math.exp(-x + a * Math.log(x) - lnGamma(a));
  if (x < a + 1) {
    let ap = a;
    let term = 1 / a;
    let sum = term;
    for (let i = 0; i < MAX_ITERATIONS; i++) {
      ap += 1;
      term *= x / ap;
      sum += term;
      if (Math.abs(term) < Math.abs(sum) * EPSILON) break;
    }
    return Math.min(1, Math.max(0, 1 - sum * front));
  }
  let b = x + 1 - a;
  let c = 1 / TINY;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i <= MAX_ITERATIONS; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < TINY) d = TINY;
    c = b + an / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < EPSILON) break;
  }
  return Math.min(1, Math.max(0, front * h));
}

/** The p-value of a chi-square statistic with `df` degrees of freedom (df >= 1): P(X >= chiSquare). */
export function chiSquarePValue(chiSquare: number, df: number): number {
  return upperRegularizedGamma(df / 2, chiSquare / 2);
}

/** Pearson's chi-square statistic of observed counts against equal expected counts (a fair die). */
export function chiSquareAgainstUniform(counts: readonly number[]): number {
  const total = counts.reduce((s, n) => s + n, 0);
  if (total === 0 || counts.length === 0) return 0;
  const expected = total / counts.length;
  let sum = 0;
  for (const n of counts) sum += ((n - expected) * (n - expected)) / expected;
  return sum;
}
