/**
 * Rolls built to make the dice engine work as hard as its rules allow: long explosion and reroll chains,
 * the most selectors an operator may hold, many kinds of big dice, groups over many values. Shared by
 * test/dice/budget.properties.test.ts (each ends quickly, rolled or refused) and scripts/bench/dice.ts
 * (which prints the slowest beside 1d20+5).
 */
import fc from 'fast-check';
import type { DieRequest, OperatorInput } from '../../src/dice/index';

export interface Adversary {
  name: string;
  /** an equation for rollEquation, or dice (theme "standard") and an operator for rollDice */
  equation?: string;
  dice?: DieRequest[];
  operator?: OperatorInput;
}

const THEME = 'standard';
const die = (type: string): DieRequest => ({ type, theme: THEME });
const many = (n: number, type: string): DieRequest[] => Array.from({ length: n }, () => die(type));
/** n copies of a selector, comma-separated: one operand holding n selectors. */
const sels = (n: number, sel: string): string => Array.from({ length: n }, () => sel).join(',');
/** 100 dice of 100 different sizes: every kind's faces are scanned on its own. */
const kinds = (): DieRequest[] => Array.from({ length: 100 }, (_, i) => die(`d${901 + i}`));

export const ADVERSARIES: Adversary[] = [
  // What was slow: one die exploding on almost every face, with many selectors (now at most 20).
  { name: 'equation 1d1000e>1 x 20', equation: `1d1000${'e>1'.repeat(20)}` },
  { name: 'equation 1d1000e>1 x 331 (999 characters)', equation: `1d1000${'e>1'.repeat(331)}` },
  { name: 'operator e key of 3 KB', dice: [die('d1000')], operator: { e: { [sels(1000, '>1')]: [0] } } },
  { name: 'operator u 20 selectors, 100d1000', dice: many(100, 'd1000'), operator: { u: sels(20, '<-5') } },
  { name: 'operator u key of 2 KB, 100d1000', dice: many(100, 'd1000'), operator: { u: { [sels(500, '<-5')]: [0] } } },
  // Explosions and rerolls as long as 1,000 values allow, with 20 selectors on each pass.
  { name: 'e 20 x >1 on 1d1000', dice: [die('d1000')], operator: { e: sels(20, '>1') } },
  { name: 'e 20 x h100 on 100d6', dice: many(100, 'd6'), operator: { e: sels(20, 'h100') } },
  { name: 'e 20 x l1 on 100d1000', dice: many(100, 'd1000'), operator: { e: sels(20, 'l1') } },
  { name: 'e h1 on 1d1000 and 99d2', dice: [die('d1000'), ...many(99, 'd2')], operator: { e: 'h1' } },
  { name: '! 20 x >1 on 100d1000', dice: many(100, 'd1000'), operator: { '!': sels(20, '>1') } },
  { name: '!! 20 x >1 on 100d1000', dice: many(100, 'd1000'), operator: { '!!': sels(20, '>1') } },
  { name: 'rr 20 x >2 on 1d1000 and 99d2', dice: [die('d1000'), ...many(99, 'd2')], operator: { rr: sels(20, '>2') } },
  { name: 'rr 20 x <1000 on 100d1000', dice: many(100, 'd1000'), operator: { rr: sels(20, '<1000') } },
  // Keep and drop on large pools, sorting for every selector.
  { name: 'k 20 x h50 on 100d1000', dice: many(100, 'd1000'), operator: { k: sels(20, 'h50') } },
  { name: 'e >4 on 100d20 (about 500 values), then k and p with 20 sorts each', dice: many(100, 'd20'),
    operator: { e: '>4', k: sels(20, 'h250'), p: sels(20, 'l1') } },
  { name: 'e >1 then k, p, ro, ra, 20 selectors each, 100d1000', dice: many(100, 'd1000'),
    operator: { e: sels(20, '>1'), k: sels(20, 'h900'), p: sels(20, 'l1'), ro: sels(20, '>1'), ra: sels(20, '>1') } },
  // Many kinds of big dice: every kind's faces against every selector.
  { name: 'e 20 x =0 on 100 kinds of dN', dice: kinds(), operator: { e: sels(20, '=0') } },
  { name: 'rr 20 x =0 on 100 kinds of dN', dice: kinds(), operator: { rr: sels(20, '=0') } },
  { name: 'u 20 x >0 on 100 kinds of dN', dice: kinds(), operator: { u: sels(20, '>0') } },
  { name: 'mi then ma on 100 kinds of dN', dice: kinds(), operator: { mi: 900, ma: 1 } },
  { name: 'd100 pairs: e, mi, ma', dice: Array.from({ length: 50 }, () => [die('d10x'), die('d10')]).flat(),
    operator: { e: sels(20, '>1'), mi: 100 } },
  // Pools and groups over every value.
  { name: 'pool of 100d1000 exploding, 20 success and 20 failure points', dice: many(100, 'd1000'),
    operator: { '!': '>1', success: sels(20, '>=500'), failure: sels(20, '<10') } },
  { name: '50 groups of 2 parts after explosions', dice: many(100, 'd1000'), operator: {
    '!': { '>1': Array.from({ length: 100 }, (_, i) => [i]) },
    groups: Array.from({ length: 50 }, (_, g) => ({ parts: [[2 * g], [2 * g + 1]], k: sels(20, 'h1'), p: sels(20, 'l1'), success: sels(20, '>1') })),
  } },
  { name: '100 groups of one part after explosions', dice: many(100, 'd1000'), operator: {
    '!': { '>1': Array.from({ length: 100 }, (_, i) => [i]) },
    groups: Array.from({ length: 100 }, (_, g) => ({ parts: [[g]], k: sels(20, 'h1'), p: sels(20, 'l1'), d: sels(20, 'l1') })),
  } },
  // Equations at the length limit.
  { name: 'equation: 9 groups of 5 exploding d1000', equation: Array.from({ length: 9 }, () => '{1d1000!>1,1d1000!>1,1d1000!>1,1d1000!>1,1d1000!>1}kh1>1').join('+') },
  { name: 'equation: (1d1000, ...)e>1 x 20', equation: `(${Array.from({ length: 40 }, () => '1d1000').join(',')})${'e>1'.repeat(20)}` },
  { name: 'equation: 100d1000 with every operator', equation: '100d1000e>1kh900pl1ro>1ra>1!>1u>0>=500f<10' },
];

// Generated rolls (fast-check): operator objects and equations of every shape the rules allow and many they
// do not, biased toward the costly ones (big dice, many selectors, chains).

const DIE_TYPES = ['d2', 'd4', 'd6', 'd20', 'd1000', 'd999', 'df', 'd10x', 'd10', 'd3', 'mod'];
const SELECTOR = fc.oneof(
  fc.constantFrom('h', 'l', '>', '<', '>=', '<=', '=', '').chain((cat) =>
    fc.oneof(fc.integer({ min: -2, max: 1001 }), fc.constantFrom(0, 1, 2, 6, 20, 100, 999, 1000)).map((n) => `${cat}${n}`)),
  fc.constantFrom('max', '', 'a', 'd', 'x', '1e3', ' 5 ', 'h-1'),
);
/** One operand: a few selectors, sometimes many more than allowed, sometimes very long. */
const OPERAND = fc.oneof(
  { weight: 6, arbitrary: fc.array(SELECTOR, { minLength: 1, maxLength: 4 }).map((xs) => xs.join(',')) },
  { weight: 3, arbitrary: fc.tuple(SELECTOR, fc.integer({ min: 5, max: 25 })).map(([x, n]) => sels(n, x)) },
  { weight: 1, arbitrary: fc.tuple(SELECTOR, fc.integer({ min: 26, max: 1500 })).map(([x, n]) => sels(n, x)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
);
const OP_KEYS = ['k', 'p', 'd', 'rr', 'ro', 'ra', 'e', 'mi', 'ma', '!', '!!', '!p', '!!p', 'u', 's', 'success', 'failure', '*', '/', 'round'];

export const rollRequests = (): fc.Arbitrary<{ dice: DieRequest[]; operator: OperatorInput }> =>
  fc.integer({ min: 1, max: 100 }).chain((n) => {
    const index = fc.integer({ min: 0, max: n - 1 });
    const indices = fc.oneof(fc.array(index, { minLength: 1, maxLength: 8 }), fc.constant(Array.from({ length: n }, (_, i) => i)));
    const target = fc.oneof(indices, fc.array(indices, { minLength: 1, maxLength: 5 }));
    const value = fc.oneof(
      { weight: 4, arbitrary: OPERAND },
      { weight: 1, arbitrary: fc.integer({ min: -5, max: 1001 }) },
      { weight: 3, arbitrary: fc.dictionary(OPERAND, target, { minKeys: 1, maxKeys: 4 }) },
    );
    const groups = fc.array(fc.record({
      parts: fc.array(fc.array(index, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 4 }),
      k: OPERAND, success: OPERAND,
    }, { requiredKeys: ['parts'] }), { minLength: 1, maxLength: 6 });
    return fc.record({
      dice: fc.array(fc.constantFrom(...DIE_TYPES), { minLength: n, maxLength: n })
        .map((types) => types.map((type) => (type === 'mod' ? { type, theme: THEME, value: 3 } : die(type)))),
      operator: fc.tuple(
        fc.uniqueArray(fc.constantFrom(...OP_KEYS), { minLength: 1, maxLength: 5 }),
        fc.array(value, { minLength: 5, maxLength: 5 }),
        fc.option(groups, { freq: 5 }),
      ).map(([keys, values, gs]) => {
        const op: OperatorInput = {};
        keys.forEach((k, i) => { op[k] = values[i]!; });
        if (gs !== null) op.groups = gs;
        return op;
      }),
    });
  });

const TOKENS = ['1d20', '4d6', '100d6', '10d1000', '1d1000', '2d100', '4dF', '{1d6, 1d6}', '(1d20, 1d12)', '{', '}', '(', ')', ',',
  '+', '-', '*2', '/2', 'kh1', 'kl1', 'k3', 'ph1', 'pl1', 'rr1', 'rr<3', 'ro1', 'ra6', 'e6', 'e>1', 'eh1', 'mi2', 'ma5', '!', '!!', '!p',
  '!!p', '!>1', '>=8', 'f1', 'u', 'u>1', 's', 'sd', 'floor(', 'ceil(', '5', ' ', 'x', 'dF.1', '1d1000e>1e>1e>1e>1'];
/** Equations: token soup up to past the length limit, and chains of one operator. */
export const equations = (): fc.Arbitrary<string> => fc.oneof(
  fc.array(fc.constantFrom(...TOKENS), { maxLength: 120 }).map((xs) => xs.join('')),
  fc.tuple(fc.constantFrom('1d1000', '100d6', '1d20', '(1d1000, 1d2)', '{1d1000, 1d1000}'), fc.constantFrom('e>1', 'rr>1', '!>1', 'kh1', 'u', '>=2', 'eh1', 'ro>1'),
    fc.integer({ min: 1, max: 200 })).map(([d, op, n]) => d + op.repeat(n)),
  fc.string({ maxLength: 60 }),
);
