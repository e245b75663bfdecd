/**
 * The dice engine's work limits (docs/dice.md, "Work limits"): at most 20 selectors per operator, operands
 * of at most 300 characters, equations of at most 500, and a work budget counted in the engine. Every
 * input either rolls or is refused with a DiceError, never another exception, and no input keeps the
 * engine busy: each is timed and must end within PER_INPUT_MS, a bound far above the few milliseconds the
 * budget allows (a loaded 2-core machine must not make it flake) and far below the seconds these inputs
 * took before the limits.
 *
 * DICE_FUZZ_COUNT=n scales the generated cases (default 150 operator objects and 300 equations);
 * DICE_FUZZ_SEED=n replays a run.
 */
import test from 'ava';
import fc from 'fast-check';
import { performance } from 'node:perf_hooks';
import {
  builtinDefinition,
  DiceError,
  MAX_EQUATION_LENGTH,
  MAX_OPERAND_LENGTH,
  MAX_SELECTORS_PER_OPERATOR,
  rollDice,
  rollEquation,
  WORK_BUDGET,
  WorkBudget,
  type DieRequest,
  type OperatorInput,
} from '../../src/dice/index';
import { ADVERSARIES, equations, rollRequests, type Adversary } from './adversaries';
import { seeded } from './helpers';

const PER_INPUT_MS = 100;
const COUNT = Number(process.env.DICE_FUZZ_COUNT ?? 150);
const SEED = Number(process.env.DICE_FUZZ_SEED ?? Date.now() % 2 ** 31);
const resolve = (_theme: string, type: string) => builtinDefinition(type);
const d = (type: string): DieRequest => ({ type, theme: 'standard' });

/** Runs one input once: how long it took; anything but a DiceError is rethrown. */
function once(run: () => unknown): number {
  const start = performance.now();
  try {
    run();
  } catch (e) {
    if (!(e instanceof DiceError)) throw e;
  }
  return performance.now() - start;
}

/**
 * How long an input takes: one run, or when that one is over the limit the fastest of three. A slow input is
 * slow every time; a loaded machine that takes the CPU away for a moment (or a garbage collection) is not.
 */
function timed(run: () => unknown): { ms: number } {
  let ms = once(run);
  for (let i = 0; i < 2 && ms >= PER_INPUT_MS; i++) ms = Math.min(ms, once(run));
  return { ms };
}

function rollAdversary(a: Adversary, budget?: WorkBudget): unknown {
  return a.equation !== undefined
    ? rollEquation(a.equation, 'standard', resolve, undefined, budget)
    : rollDice(a.dice!, a.operator, resolve, undefined, budget);
}

test.before(() => {
  // Warm the engine so the first timed input does not pay for compiling it.
  for (let i = 0; i < 200; i++) rollEquation('4d6kh3+2', 'standard', resolve);
});

test(`every hand-built adversary ends within ${PER_INPUT_MS} ms, rolled or refused with a DiceError`, (t) => {
  const rounds = Math.max(3, Math.ceil(COUNT / 50));
  for (const a of ADVERSARIES) {
    for (let r = 0; r < rounds; r++) {
      const { ms } = timed(() => rollAdversary(a));
      t.true(ms < PER_INPUT_MS, `${a.name}: ${ms.toFixed(1)} ms`);
    }
  }
});

test(`generated operator objects end within ${PER_INPUT_MS} ms, rolled or refused with a DiceError (seed ${SEED})`, (t) => {
  fc.assert(
    fc.property(rollRequests(), ({ dice, operator }) => {
      const { ms } = timed(() => rollDice(dice, operator, resolve));
      if (ms >= PER_INPUT_MS) throw new Error(`${ms.toFixed(1)} ms`);
    }),
    { numRuns: COUNT, seed: SEED },
  );
  t.pass();
});

test(`generated equations end within ${PER_INPUT_MS} ms, rolled or refused with a DiceError (seed ${SEED})`, (t) => {
  fc.assert(
    fc.property(equations(), (equation) => {
      const { ms } = timed(() => rollEquation(equation, 'standard', resolve));
      if (ms >= PER_INPUT_MS) throw new Error(`${ms.toFixed(1)} ms`);
    }),
    { numRuns: 2 * COUNT, seed: SEED },
  );
  t.pass();
});

function refusal(t: import('ava').ExecutionContext, run: () => unknown): DiceError {
  const e = t.throws(run, { instanceOf: DiceError });
  return e!;
}

test('the inputs that were slow are refused before any work: long explosion chains, long operands', (t) => {
  let chain = '1d1000';
  while (chain.length + 3 <= 999) chain += 'e>1';
  let e = refusal(t, () => rollEquation(chain, 'standard', resolve));
  t.is(e.code, 'invalid_equation');
  t.regex(e.message, new RegExp(`at most ${MAX_EQUATION_LENGTH} characters`));
  e = refusal(t, () => rollEquation(chain.slice(0, MAX_EQUATION_LENGTH), 'standard', resolve));
  t.is(e.code, 'invalid_equation');
  t.regex(e.message, new RegExp(`at most ${MAX_SELECTORS_PER_OPERATOR} selectors`));

  const key = Array.from({ length: 1000 }, () => '>1').join(',');
  e = refusal(t, () => rollDice([d('d1000')], { e: { [key]: [0] } }, resolve));
  t.is(e.code, 'invalid_operator');
  t.is(e.details[0]!.path, 'operator.e', 'the path does not repeat a long key');
  t.regex(e.message, new RegExp(`${key.length} characters; an operand may be at most ${MAX_OPERAND_LENGTH}`));

  e = refusal(t, () => rollDice([d('d1000')], { u: Array.from({ length: 21 }, () => '<-5').join(',') }, resolve));
  t.is(e.code, 'invalid_operator');
  t.is(e.details[0]!.path, 'operator.u');
  t.regex(e.message, /at most 20 selectors on the same dice; this one has 21/);
  // Consecutive uses of one operator on the same dice merge (d20's kh1kl1), and count together.
  const ten = Array.from({ length: 10 }, () => 'h1').join(',');
  e = refusal(t, () => rollDice([d('d6'), d('d6')], { k: { [ten]: [0, 1], [`${ten},l1`]: [0, 1] } }, resolve));
  t.regex(e.message, /this one has 21/);
  t.notThrows(() => rollDice([d('d6'), d('d6')], { k: { [ten]: [0, 1], [ten.replace(/h1/g, 'l1')]: [0, 1] } }, resolve));
});

test('a roll past its work budget is a 400 too_many_dice naming the operator, decided by counted work alone', (t) => {
  const dice = Array.from({ length: 100 }, () => d('d1000'));
  const operator: OperatorInput = { k: 'h50', p: 'l1' };
  // The same request, with the same faces, always uses the same work: no clock decides.
  const used = new Set<number>();
  for (let i = 0; i < 3; i++) {
    const budget = new WorkBudget();
    rollDice(dice, operator, resolve, seeded(7), budget);
    used.add(budget.used);
  }
  t.is(used.size, 1);
  const [cost] = [...used];
  t.notThrows(() => rollDice(dice, operator, resolve, seeded(7), new WorkBudget(cost!)));
  const e = refusal(t, () => rollDice(dice, operator, resolve, seeded(7), new WorkBudget(cost! - 1)));
  t.is(e.code, 'too_many_dice');
  t.is(e.status, 400);
  t.is(e.details[0]!.path, 'operator.p', 'the operator that ran out');
  t.regex(e.message, /more work than one roll may take/);
  // Through an equation the refusal points at the equation, the one field sent.
  const eq = refusal(t, () => rollEquation('100d1000kh50pl1', 'standard', resolve, seeded(7), new WorkBudget(cost! - 1)));
  t.is(eq.details[0]!.path, 'equation');
});

test('compiling an operator object is work too: thousands of operand lists are refused by the budget', (t) => {
  const wide = ADVERSARIES.find((a) => a.name.startsWith('16 operators'))!;
  const e = refusal(t, () => rollAdversary(wide));
  t.is(e.code, 'too_many_dice');
  t.regex(e.message, /more work than one roll may take/);
  t.regex(e.details[0]!.path, /^operator\./);
});

test('the documented limits still roll: 100 dice, 1,000 values, 20 selectors, big pools and chains', (t) => {
  const twenty = (sel: string) => Array.from({ length: 20 }, () => sel).join(',');
  const fine: [DieRequest[], OperatorInput][] = [
    [Array.from({ length: 100 }, () => d('d1000')), { k: 'h50', p: 'l10', mi: 10, ma: 990 }],
    [Array.from({ length: 100 }, () => d('d6')), { k: twenty('h1').replace(/h1$/, 'l1') }],
    [Array.from({ length: 100 }, () => d('d10')), { rr: '<3', success: '>=8', failure: '1' }],
    [Array.from({ length: 100 }, () => d('d20')), { ro: twenty('<10'), ra: '20', k: 'h90' }],
    [Array.from({ length: 100 }, () => d('d20')), { '!!': '>=19', k: 'h3' }],
    [Array.from({ length: 50 }, () => [d('d10x'), d('d10')]).flat(), { rr: '<20', k: 'h25' }],
  ];
  for (const [dice, operator] of fine) {
    for (let seed = 1; seed <= 20; seed++) {
      const budget = new WorkBudget();
      t.notThrows(() => rollDice(dice, operator, resolve, seeded(seed), budget), JSON.stringify(operator));
      t.true(budget.used < WORK_BUDGET / 4, `${JSON.stringify(operator)} used ${budget.used}`);
    }
  }
  // 1,000 values: an explosion chain reaches the value limit, not the work budget.
  const e = refusal(t, () => rollDice([d('d1000')], { e: twenty('>1') }, resolve, { int: (n) => n - 1 }));
  t.regex(e.message, /reached 1000 dice/);
  // The longest equation accepted rolls: 100 dice written one by one (whitespace between terms is allowed).
  const eq = Array.from({ length: 100 }, (_, i) => `1d${i % 2 === 0 ? 4 : 6}`)
    .join('+')
    .padEnd(MAX_EQUATION_LENGTH);
  t.is(eq.length, MAX_EQUATION_LENGTH);
  t.is(rollEquation(eq, 'standard', resolve).values.length, 100);
});
