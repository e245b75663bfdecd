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
  {
    name: 'e >4 on 100d20 (about 500 values), then k and p with 20 sorts each',
    dice: many(100, 'd20'),
    operator: { e: '>4', k: sels(20, 'h250'), p: sels(20, 'l1') },
  },
  {
    name: 'e >1 then k, p, ro, ra, 20 selectors each, 100d1000',
    dice: many(100, 'd1000'),
    operator: { e: sels(20, '>1'), k: sels(20, 'h900'), p: sels(20, 'l1'), ro: sels(20, '>1'), ra: sels(20, '>1') },
  },
  // Many kinds of big dice: every kind's faces against every selector.
  { name: 'e 20 x =0 on 100 kinds of dN', dice: kinds(), operator: { e: sels(20, '=0') } },
  { name: 'rr 20 x =0 on 100 kinds of dN', dice: kinds(), operator: { rr: sels(20, '=0') } },
  { name: 'u 20 x >0 on 100 kinds of dN', dice: kinds(), operator: { u: sels(20, '>0') } },
  { name: 'mi then ma on 100 kinds of dN', dice: kinds(), operator: { mi: 900, ma: 1 } },
  { name: 'd100 pairs: e, mi, ma', dice: Array.from({ length: 50 }, () => [die('d10x'), die('d10')]).flat(), operator: { e: sels(20, '>1'), mi: 100 } },
  {
    name: 'e 20 x l1001 on 50 d100 pairs in two sets',
    dice: Array.from({ length: 50 }, () => [die('d10x'), die('d10')]).flat(),
    operator: { e: { [sels(20, 'l1001')]: [Array.from({ length: 50 }, (_, i) => i), Array.from({ length: 50 }, (_, i) => 50 + i)] } },
  },
  // The object form at its widest: 16 operators, each with 20 operands mapping to 100 one-die lists.
  {
    name: '16 operators x 20 operands x 100 one-die lists',
    dice: many(100, 'd1000'),
    operator: Object.fromEntries(
      ['k', 'p', 'ro', 'ra', 'mi', 'ma', 'success', 'failure', 'u', 'e', 'rr', '!', '!!p', '!p', '!!', 's'].map((code) => [
        code,
        Object.fromEntries(
          Array.from({ length: 20 }, (_, j) => [
            code === 's' ? 'a' : ['success', 'failure', 'u'].includes(code) || code.includes('!') ? `>${j + 990}` : String(j + 980),
            Array.from({ length: 100 }, (_, i) => [i]),
          ]),
        ),
      ]),
    ),
  },
  // Pools and groups over every value.
  {
    name: 'pool of 100d1000 exploding, 20 success and 20 failure points',
    dice: many(100, 'd1000'),
    operator: { '!': '>1', success: sels(20, '>=500'), failure: sels(20, '<10') },
  },
  {
    name: '50 groups of 2 parts after explosions',
    dice: many(100, 'd1000'),
    operator: {
      '!': { '>1': Array.from({ length: 100 }, (_, i) => [i]) },
      groups: Array.from({ length: 50 }, (_, g) => ({ parts: [[2 * g], [2 * g + 1]], k: sels(20, 'h1'), p: sels(20, 'l1'), success: sels(20, '>1') })),
    },
  },
  {
    name: '100 groups of one part after explosions',
    dice: many(100, 'd1000'),
    operator: {
      '!': { '>1': Array.from({ length: 100 }, (_, i) => [i]) },
      groups: Array.from({ length: 100 }, (_, g) => ({ parts: [[g]], k: sels(20, 'h1'), p: sels(20, 'l1'), d: sels(20, 'l1') })),
    },
  },
  // Equations at the length limit.
  {
    name: 'equation: 9 groups of 5 exploding d1000',
    equation: Array.from({ length: 9 }, () => '{1d1000!>1,1d1000!>1,1d1000!>1,1d1000!>1,1d1000!>1}kh1>1').join('+'),
  },
  { name: 'equation: (1d1000, ...)e>1 x 20', equation: `(${Array.from({ length: 40 }, () => '1d1000').join(',')})${'e>1'.repeat(20)}` },
  { name: 'equation: 100d1000 with every operator', equation: '100d1000e>1kh900pl1ro>1ra>1!>1u>0>=500f<10' },
];

// Generated rolls (fast-check): operator objects and equations of every shape the rules allow and many they
// do not, biased toward the costly ones (big dice, many selectors, chains).

const DIE_KINDS = [
  ['d6'],
  ['d20'],
  ['d1000'],
  ['d1000'],
  ['d2', 'd20'],
  ['d10x', 'd10'],
  ['df'],
  ['d1000', 'd2'],
  ['d6', 'd999', 'd3'],
  ['d4', 'd6', 'd8', 'd12', 'd20', 'd1000'],
];
const num = fc.oneof(fc.integer({ min: 0, max: 25 }), fc.constantFrom(-1, 99, 100, 500, 999, 1000, 1001));
const SELECTOR = fc.tuple(fc.constantFrom('h', 'l', '>', '<', ''), num).map(([c, n]) => `${c}${n}`);
const COMPARE = fc.tuple(fc.constantFrom('>', '<', '>=', '<=', '='), num).map(([c, n]) => `${c}${n}`);
/** One operand: a few selectors mostly, up to the limit often, past it or junk now and then. */
const operand = (one: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 6, arbitrary: fc.array(one, { minLength: 1, maxLength: 4 }).map((xs) => xs.join(',')) },
    { weight: 3, arbitrary: fc.tuple(one, fc.integer({ min: 5, max: 20 })).map(([x, n]) => sels(n, x)) },
    { weight: 1, arbitrary: fc.tuple(one, fc.integer({ min: 21, max: 1500 })).map(([x, n]) => sels(n, x)) },
    // selectors nearly every face meets, many of them: the long chains
    { weight: 3, arbitrary: fc.tuple(fc.constantFrom('>1', '>1', '>=2', '<1000', 'h1', 'l1'), fc.integer({ min: 10, max: 1500 })).map(([x, n]) => sels(n, x)) },
    { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
  );
/** Operator keys with operands of their kind (selectors, compare points, numbers), and now and then junk. */
const OPERATORS: [string, fc.Arbitrary<string | number>][] = [
  ...['k', 'p', 'd', 'rr', 'ro', 'ra', 'e'].map((k): [string, fc.Arbitrary<string | number>] => [k, operand(SELECTOR)]),
  ...['!', '!!', '!p', '!!p', 'u', 'success', 'failure'].map((k): [string, fc.Arbitrary<string | number>] => [k, fc.oneof(operand(COMPARE), fc.constant(''))]),
  ['mi', num],
  ['ma', num],
  ['*', fc.constantFrom(2, 0.5, -1)],
  ['/', fc.constantFrom(2, 3)],
  ['round', fc.constantFrom('down', 'up', 'x')],
  ['s', fc.constantFrom('a', 'd', '')],
];

/**
 * Roll requests: 1 to 100 dice of one to six kinds, and operators on all of them (string operands) or on
 * halves of them (object operands, the same halves for every key), with groups now and then.
 */
export const rollRequests = (): fc.Arbitrary<{ dice: DieRequest[]; operator: OperatorInput }> =>
  fc
    .record({
      n: fc.integer({ min: 1, max: 100 }),
      kinds: fc.constantFrom(...DIE_KINDS),
      ops: fc
        .uniqueArray(fc.constantFrom(...OPERATORS), { minLength: 1, maxLength: 5, selector: ([k]) => k })
        .chain((ops) => fc.tuple(...ops.map(([k, v]) => v.map((x): [string, string | number] => [k, x])))),
      split: fc.constantFrom('all', 'halves', 'sets'),
      groups: fc.boolean(),
    })
    .map(({ n, kinds, ops, split, groups }) => {
      const dice = Array.from({ length: n }, (_, i) => die(kinds[i % kinds.length]!));
      const all = Array.from({ length: n }, (_, i) => i);
      const half = Math.ceil(n / 2);
      const operator: OperatorInput = {};
      for (const [key, value] of ops) {
        // `*` and `/` on halves take the SDK's object form, {"2": [dice indices]}.
        if ((key === '*' || key === '/') && split === 'halves') operator[key] = { [String(value)]: all.slice(0, half) };
        else if (split === 'all' || typeof value === 'number' || key === '*' || key === '/' || key === 'round') operator[key] = value;
        else if (split === 'halves') operator[key] = { [String(value)]: all.slice(0, half) };
        else operator[key] = { [String(value)]: [all.slice(0, half), all.slice(half)].filter((l) => l.length > 0) };
      }
      if (groups) operator.groups = [{ parts: [all.slice(0, half), all.slice(half)].filter((l) => l.length > 0), k: 'h1' }];
      return { dice, operator };
    });

const TOKENS = [
  '1d20',
  '4d6',
  '100d6',
  '10d1000',
  '1d1000',
  '2d100',
  '4dF',
  '{1d6, 1d6}',
  '(1d20, 1d12)',
  '{',
  '}',
  '(',
  ')',
  ',',
  '+',
  '-',
  '*2',
  '/2',
  'kh1',
  'kl1',
  'k3',
  'ph1',
  'pl1',
  'rr1',
  'rr<3',
  'ro1',
  'ra6',
  'e6',
  'e>1',
  'eh1',
  'mi2',
  'ma5',
  '!',
  '!!',
  '!p',
  '!!p',
  '!>1',
  '>=8',
  'f1',
  'u',
  'u>1',
  's',
  'sd',
  'floor(',
  'ceil(',
  '5',
  ' ',
  'x',
  'dF.1',
  '1d1000e>1e>1e>1e>1',
];
/** Equations: token soup up to past the length limit, and chains of one operator. */
export const equations = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.array(fc.constantFrom(...TOKENS), { maxLength: 120 }).map((xs) => xs.join('')),
    fc
      .tuple(
        fc.constantFrom('1d1000', '100d6', '1d20', '(1d1000, 1d2)', '{1d1000, 1d1000}'),
        fc.constantFrom('e>1', 'rr>1', '!>1', 'kh1', 'u', '>=2', 'eh1', 'ro>1'),
        fc.integer({ min: 1, max: 200 }),
      )
      .map(([d, op, n]) => d + op.repeat(n)),
    fc.string({ maxLength: 60 }),
  );
