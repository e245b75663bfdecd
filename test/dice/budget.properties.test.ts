/**
 * The dice engine's work limits (docs/dice.md, "Work limits"): at most 20 selectors per operator, operands
 * of at most 300 characters, equations of at most 500, and a work budget counted in the engine. Every
 * input either rolls or is refused with a DiceError, never another exception. How long they take is a
 * measurement, not an assertion (a loaded machine would make a bound flake): each test logs its slowest
 * input, and `npm run bench:dice -- --limits` measures the worst inputs against `1d20+5`
 * (docs/performance.md).
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

/** The slowest input a test ran, for its log. */
class Slowest {
  private ms = 0;
  private name = '';
  note(name: string, ms: number) {
    if (ms > this.ms) [this.ms, this.name] = [ms, name];
  }
  toString() {
    return `slowest input: ${this.ms.toFixed(1)} ms (${this.name})`;
  }
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

test('every hand-built adversary is rolled or refused with a DiceError', (t) => {
  const rounds = Math.max(3, Math.ceil(COUNT / 50));
  const slowest = new Slowest();
  for (const a of ADVERSARIES) {
    for (let r = 0; r < rounds; r++)
      slowest.note(
        a.name,
        once(() => rollAdversary(a)),
      );
  }
  t.log(String(slowest));
  t.true(ADVERSARIES.length > 0);
});

test(`generated operator objects are rolled or refused with a DiceError (seed ${SEED})`, (t) => {
  const slowest = new Slowest();
  fc.assert(
    fc.property(rollRequests(), ({ dice, operator }) => {
      slowest.note(
        JSON.stringify(operator).slice(0, 80),
        once(() => rollDice(dice, operator, resolve)),
      );
    }),
    { numRuns: COUNT, seed: SEED },
  );
  t.log(String(slowest));
  t.pass();
});

test(`generated equations are rolled or refused with a DiceError (seed ${SEED})`, (t) => {
  const slowest = new Slowest();
  fc.assert(
    fc.property(equations(), (equation) => {
      slowest.note(
        equation.slice(0, 80),
        once(() => rollEquation(equation, 'standard', resolve)),
      );
    }),
    { numRuns: 2 * COUNT, seed: SEED },
  );
  t.log(String(slowest));
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
