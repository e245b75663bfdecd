/**
 * Dice engine throughput against @dice-roller/rpg-dice-roller, same expressions, same process.
 *
 *   npx tsx scripts/bench/dice.ts [CPU-seconds per round, default 0.5] [--limits]
 *
 * Each library's rolls are tinybench tasks (lib/micro.ts) timed in this process's CPU time, 200 rolls a
 * call, one run of the four columns a round. Then the work limits: the slowest input of a hand-built
 * adversarial list (test/dice/adversaries.ts) and of a fast-check search over generated operator objects
 * and equations, beside 1d20+5 (CPU time per roll, median of 30 calls, and the ratio). `--limits` runs only that part; DICE_SEARCH=n sets how many
 * generated inputs are searched (default 3,000).
 *
 * "ours (equation)" is what POST /roll does with {"equation": ...}: rollEquation, which parses an equation
 * string once and caches it, rolls, and writes the equation back. "ours (parse)" parses on every roll as
 * the other library does (parseEquation + rollDice): the strictest like-for-like column. "ours (dice)" is
 * a request that already carries `dice` and `operator`.
 * rpg-dice-roller writes explode and reroll differently: `!` explodes on the maximum, `r<3` rerolls until
 * the value is not below 3, which match d20's `e6` on a d6 and `rr<3`.
 */
import { DiceRoll } from '@dice-roller/rpg-dice-roller';
import fc from 'fast-check';
import {
  builtinDefinition,
  DiceError,
  parseEquation,
  rollDice,
  rollEquation,
  WORK_BUDGET,
  WorkBudget,
  type DieDefinition,
  type DieRequest,
} from '../../src/dice/index';
import { ADVERSARIES, equations, rollRequests } from '../../test/dice/adversaries';
import { batched, runMicro } from './lib/micro';
import { ownCpuMicros } from './lib/processes';
import { median } from './lib/stats';

const seconds = Number(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 0.5);
const limitsOnly = process.argv.includes('--limits');
const ROUNDS = 5;

const cases: { ours: string; theirs: string }[] = [
  { ours: '1d20+5', theirs: '1d20+5' },
  { ours: '4d6kh3', theirs: '4d6kh3' },
  { ours: '8d6e6', theirs: '8d6!' },
  { ours: '10d10rr<3', theirs: '10d10r<3' },
  // rpg-dice-roller's own notation, written the same way in both
  { ours: '8d10>=8f1', theirs: '8d10>=8f=1' }, // rpg-dice-roller needs the = in f=1
  { ours: '4dF+2', theirs: '4dF+2' },
  { ours: '3d6!!', theirs: '3d6!!' },
  { ours: '{4d6kh3, 4d6kh3}', theirs: '{4d6kh3, 4d6kh3}' }, // a roll group, each part with its own keep
  { ours: '(1d6+3)*2+1d4', theirs: '(1d6+3)*2+1d4' }, // the dddice SDK's crit: {"*": {"2": [0, 1]}}
];

// The built-in theme's dice: the standard ones, fudge dice and generic dN (what POST /roll resolves).
const resolve = (_theme: string, type: string): DieDefinition | null => builtinDefinition(type);

let sink = 0; // keeps results alive so nothing is optimised away

/** Rolls per tinybench call: one roll takes about a microsecond, near the clock's own cost. */
const PER_CALL = 200;

/**
 * Rolls per CPU-second of each task, one tinybench run of them all (lib/micro.ts), each task called for
 * `seconds` of this process's CPU time: other processes on a shared machine count against neither
 * library; GC threads' time does count, against both.
 */
async function rollsPerSecond(tasks: Record<string, () => number>): Promise<Record<string, number>> {
  const micro = Object.fromEntries(Object.entries(tasks).map(([name, fn]) => [name, batched(() => (sink += fn()), PER_CALL)]));
  const measured = await runMicro(micro, { cpuTime: true, time: seconds * 1000 });
  return Object.fromEntries(Object.entries(measured).map(([name, r]) => [name, (PER_CALL * 1000) / r.mean]));
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US').padStart(11);

if (!limitsOnly) {
  console.log(`node ${process.version}, ${ROUNDS} interleaved rounds of ${seconds} CPU-s per case and library, median shown`);
  console.log(`${'expression'.padEnd(17)} ours (equation)  ours (parse)  ours (dice)  rpg-dice-roller   ratios: equation  parse  dice`);
  for (const c of cases) {
    const parsed = parseEquation(c.ours);
    const dice: DieRequest[] = parsed.dice.map((d) => ({ type: d.type, theme: 't', ...(d.value !== undefined ? { value: d.value } : {}) }));
    const eqFn = (): number => rollEquation(c.ours, 't', resolve).total;
    const diceFn = (): number => rollDice(dice, parsed.operator, resolve).total;
    const parseFn = (): number => {
      const p = parseEquation(c.ours);
      const d: DieRequest[] = p.dice.map((x) => (x.value === undefined ? { type: x.type, theme: 't' } : { type: x.type, theme: 't', value: x.value }));
      return rollDice(d, p.operator, resolve).total;
    };
    const theirFn = (): number => new DiceRoll(c.theirs).total as number;
    const rounds: Record<string, number>[] = [];
    for (let r = 0; r < ROUNDS; r++) rounds.push(await rollsPerSecond({ eq: eqFn, parse: parseFn, dice: diceFn, theirs: theirFn }));
    const [e, pa, p, th] = ['eq', 'parse', 'dice', 'theirs'].map((task) => median(rounds.map((r) => r[task]!)));
    const ratio = (x: number): string => `${(x / th).toFixed(1)}x`;
    console.log(
      `${c.ours.padEnd(17)}    ${fmt(e!)}/s ${fmt(pa!)}/s ${fmt(p!)}/s ${fmt(th!)}/s ${ratio(e!).padStart(17)} ${ratio(pa!).padStart(6)} ${ratio(p!).padStart(5)}`,
    );
  }
}

// The work limits: how long the costliest rolls take, next to 1d20+5 in the same process.
const baseline = 1e3 / (await rollsPerSecond({ base: () => rollEquation('1d20+5', 't', resolve).total })).base!; // ms per roll
console.log(`\nwork limits (budget ${WORK_BUDGET.toLocaleString('en-US')} units), CPU time per roll, 1d20+5: ${(baseline * 1e3).toFixed(2)} µs`);
const limits = await worstInputs();
console.log(`${'input'.padEnd(66)} ${'outcome'.padEnd(15)} ${'units'.padStart(9)}   median      max   ratio (median / 1d20+5)`);
for (const r of limits) {
  console.log(
    `${r.name.slice(0, 66).padEnd(66)} ${r.outcome.padEnd(15)} ${r.used.toLocaleString('en-US').padStart(9)} ${r.median.toFixed(2).padStart(6)} ms ${r.max.toFixed(2).padStart(6)} ms ${Math.round(
      r.median / baseline,
    )
      .toLocaleString('en-US')
      .padStart(9)}x`,
  );
}
const worst = limits[0]!;
console.log(
  `worst: ${worst.name.slice(0, 300)}: ${worst.median.toFixed(2)} ms (max ${worst.max.toFixed(2)} ms), ${Math.round(worst.median / baseline).toLocaleString('en-US')}x 1d20+5`,
);
if (sink === 42) console.log('');

interface LimitRow {
  name: string;
  outcome: string;
  used: number;
  median: number;
  max: number;
}

/** How one call ended and the work it counted. */
function attempt(run: (budget: WorkBudget) => unknown): { outcome: string; used: number } {
  const budget = new WorkBudget();
  let outcome = 'rolled';
  try {
    run(budget);
  } catch (e) {
    if (!(e instanceof DiceError)) throw e;
    outcome = /more work/.test(e.message) ? 'work budget' : e.code;
  }
  return { outcome, used: budget.used };
}

/** CPU milliseconds of one call: the search's screen, before the slowest are profiled. */
function screen(run: (budget: WorkBudget) => unknown): number {
  const start = ownCpuMicros();
  attempt(run);
  return ownCpuMicros(start) / 1e3;
}

/** Per input, p50 and max CPU time over `repeats` calls after 3 of warm-up (one tinybench run), the work of the costliest call. */
async function profile(inputs: { name: string; run: (budget: WorkBudget) => unknown }[], repeats: number): Promise<LimitRow[]> {
  const costliest = new Map<string, { outcome: string; used: number }>();
  const tasks = Object.fromEntries(
    inputs.map(({ name, run }) => [
      name,
      () => {
        const a = attempt(run);
        if (a.used >= (costliest.get(name)?.used ?? -1)) costliest.set(name, a);
      },
    ]),
  );
  const measured = await runMicro(tasks, { cpuTime: true, time: 0, iterations: repeats, warmupIterations: 3 });
  return inputs.map(({ name }) => ({ name, ...costliest.get(name)!, median: measured[name]!.p50, max: measured[name]!.max }));
}

/**
 * Every hand-built adversary, and the slowest few of a fast-check search (each generated input timed once,
 * the ten slowest timed again properly); sorted by median time, slowest first, top 12 shown.
 */
async function worstInputs(): Promise<LimitRow[]> {
  const std = (_t: string, type: string): DieDefinition | null => builtinDefinition(type);
  const handBuilt = ADVERSARIES.map((a) => ({
    name: a.name,
    run: (b: WorkBudget) =>
      a.equation !== undefined ? rollEquation(a.equation, 'standard', std, undefined, b) : rollDice(a.dice!, a.operator, std, undefined, b),
  }));
  const searched = Number(process.env.DICE_SEARCH ?? 3000);
  const found: { name: string; run: (b: WorkBudget) => unknown; ms: number }[] = [];
  for (const r of fc.sample(rollRequests(), searched)) {
    const run = (b: WorkBudget): unknown => rollDice(r.dice, r.operator, std, undefined, b);
    found.push({ name: `search: ${r.dice.length} x ${r.dice[0]!.type}.. ${JSON.stringify(r.operator)}`, run, ms: screen(run) });
  }
  for (const eq of fc.sample(equations(), searched)) {
    const run = (b: WorkBudget): unknown => rollEquation(eq, 'standard', std, undefined, b);
    found.push({ name: `search: ${eq}`, run, ms: screen(run) });
  }
  found.sort((a, b) => b.ms - a.ms);
  // Names are task names: a generated input that repeats a name is timed once.
  const slowest = found.filter((f, i) => found.findIndex((g) => g.name === f.name) === i).slice(0, 10);
  const rows = await profile([...handBuilt, ...slowest], 30);
  console.log(`${ADVERSARIES.length} hand-built inputs, ${2 * searched} generated (fast-check), the 10 slowest of those timed again`);
  return rows.sort((a, b) => b.median - a.median).slice(0, 12);
}
