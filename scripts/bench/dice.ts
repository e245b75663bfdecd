/**
 * Dice engine throughput against @dice-roller/rpg-dice-roller, same expressions, same process.
 *
 *   npx tsx scripts/bench/dice.ts [CPU-seconds per round, default 0.5]
 *
 * "ours (equation)" is what POST /roll does with {"equation": ...}: rollEquation, which parses an equation
 * string once and caches it, rolls, and writes the equation back. "ours (parse)" parses on every roll as
 * the other library does (parseEquation + rollDice): the strictest like-for-like column. "ours (dice)" is
 * a request that already carries `dice` and `operator`.
 * rpg-dice-roller writes explode and reroll differently: `!` explodes on the maximum, `r<3` rerolls until
 * the value is not below 3, which match d20's `e6` on a d6 and `rr<3`.
 */
import { DiceRoll } from '@dice-roller/rpg-dice-roller';
import { builtinDefinition, parseEquation, rollDice, rollEquation, type DieDefinition, type DieRequest } from '../../src/dice/index';

const seconds = Number(process.argv[2] ?? 0.5);
const ROUNDS = 5;

const cases: { ours: string; theirs: string }[] = [
  { ours: '1d20+5', theirs: '1d20+5' },
  { ours: '4d6kh3', theirs: '4d6kh3' },
  { ours: '8d6e6', theirs: '8d6!' },
  { ours: '10d10rr<3', theirs: '10d10r<3' },
  // issue 21: rpg-dice-roller's own notation, written the same way in both
  { ours: '8d10>=8f1', theirs: '8d10>=8f=1' }, // rpg-dice-roller needs the = in f=1
  { ours: '4dF+2', theirs: '4dF+2' },
  { ours: '3d6!!', theirs: '3d6!!' },
  { ours: '{4d6kh3, 4d6kh3}', theirs: '{4d6kh3, 4d6kh3}' }, // a roll group, each part with its own keep
];

// The built-in theme's dice: the standard ones, fudge dice and generic dN (what POST /roll resolves).
const resolve = (_theme: string, type: string): DieDefinition | null => builtinDefinition(type);

let sink = 0; // keeps results alive so nothing is optimised away

/**
 * Calls fn in batches for about `seconds` of this process's CPU time; returns calls per CPU-second.
 * CPU time (user + system, from process.cpuUsage) rather than wall time, so that other processes on a
 * shared machine do not count against either library; GC threads' time does count, against both.
 */
function measure(fn: () => number): number {
  const budget = seconds * 1e6;
  let calls = 0;
  const start = process.cpuUsage();
  let used = 0;
  while (used < budget) {
    for (let i = 0; i < 2000; i++) sink += fn();
    calls += 2000;
    const u = process.cpuUsage(start);
    used = u.user + u.system;
  }
  return calls / (used / 1e6);
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (n: number): string => Math.round(n).toLocaleString('en-US').padStart(11);

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
  for (let i = 0; i < 20_000; i++) sink += eqFn() + parseFn() + diceFn() + theirFn(); // warm-up
  const eq: number[] = [];
  const parse: number[] = [];
  const pre: number[] = [];
  const theirs: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    eq.push(measure(eqFn));
    parse.push(measure(parseFn));
    pre.push(measure(diceFn));
    theirs.push(measure(theirFn));
  }
  const [e, pa, p, th] = [median(eq), median(parse), median(pre), median(theirs)];
  const ratio = (x: number): string => `${(x / th).toFixed(1)}x`;
  console.log(`${c.ours.padEnd(17)}    ${fmt(e)}/s ${fmt(pa)}/s ${fmt(p)}/s ${fmt(th)}/s ${ratio(e).padStart(17)} ${ratio(pa).padStart(6)} ${ratio(p).padStart(5)}`);
}
if (sink === 42) console.log('');
