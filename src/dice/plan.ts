/**
 * Turns the request's `operator` object (d20's keys and the dddice SDK's) into a plan: which operations
 * run, in which order, on which set of dice, and how the total is scaled.
 *
 * Rules (documented in docs/dice.md):
 * - keys run in the object's order, as d20 runs operators in the order written; consecutive runs of the same
 *   operator on the same dice merge their selectors, as d20 merges `kh1kl1` into one keep;
 * - `d` is the SDK's name for d20's `p`;
 * - a string or number applies to every die of the roll (modifiers aside) as one set; an object maps
 *   operand -> indices into `dice`, each entry its own set, or -> a list of such lists, each its own set
 *   (`{"k": {"h3": [[0, 1, 2, 3], [4, 5, 6, 7]]}}`, the equation `{4d6kh3, 4d6kh3}`);
 * - `groups` lists roll groups (groupPlan.ts), run after every dice operator;
 * - `*` and `/` scale the total (`{"*": 2}`), or, as objects, some dice and modifiers on their own
 *   (`{"*": {"2": [0, 1]}}`, the SDK's `(1d6+3)*2+1d4`: dieScale.ts);
 * - two operations may act on the same set or on sets with no die in common, never on overlapping sets: the
 *   roll must stay writable as a d20 equation, where an operator follows one group of dice.
 */
import { MAX_OPERAND_LENGTH, STEP_COST, type WorkBudget } from './budget';
import { checkDieScales, compileDieScale } from './dieScale';
import { DiceError } from './errors';
import { checkSetsInParts, compileGroups } from './groupPlan';
import { isExplode, takesComparePoint, type Layout, type OpCode, type Plan } from './planTypes';
import { dieScalesOf, isDieScaleForm, plainNumber, type RoundMode } from './scaling';
import { parseSelectors, refuseManySelectors, type Selector } from './selectors';
import type { OperatorInput } from './types';

// Maps, not object literals: the keys come from the request, and an object literal also "has" the keys
// it inherits (`constructor`, `__proto__`, `toString`), which once compiled into the stored equation.
const SELECTOR_OPS: ReadonlyMap<string, OpCode> = new Map([
  ['k', 'k'],
  ['p', 'p'],
  ['d', 'p'],
  ['rr', 'rr'],
  ['ro', 'ro'],
  ['ra', 'ra'],
  ['e', 'e'],
  ['mi', 'mi'],
  ['ma', 'ma'],
  ['!', '!'],
  ['!!', '!!'],
  ['!p', '!p'],
  ['!!p', '!!p'],
  ['success', 'success'],
  ['failure', 'failure'],
  ['u', 'u'],
  ['s', 's'],
]);
/** An explosion without a compare point explodes on the die's highest number. */
const HIGHEST: readonly Selector[] = [{ cat: 'max', num: 0 }];
/** `u` without a compare point rerolls every duplicate. */
const ANY: readonly Selector[] = [{ cat: 'any', num: 0 }];
/** `s` sorts how the results are shown (rpg-dice-roller's `s`, `sa`, `sd`): the dice and total stay. */
const ASCENDING: readonly Selector[] = [{ cat: 'asc', num: 0 }];
const DESCENDING: readonly Selector[] = [{ cat: 'desc', num: 0 }];
const ROUND_MODES: ReadonlyMap<string, RoundMode> = new Map([
  ['nearest', 'nearest'],
  ['down', 'down'],
  ['up', 'up'],
]);
const KNOWN = 'k, p, d, rr, ro, ra, e, mi, ma, !, !!, !p, !!p, u, s, success, failure, groups, *, / and round';

/**
 * Plans of the parse cache's operator objects (rollEquation hands out the same deep-frozen object for the
 * same equation), per layout of dice: a plan is only read once compiled, and such an object cannot change
 * under it. Any other object (a request's) compiles every time.
 */
const immutable = new WeakSet<OperatorInput>();
const cachedPlans = new WeakMap<OperatorInput, { unitOfDie: number[]; plan: Plan; cost: number }>();

/** Marks a deep-frozen operator object whose plan may be compiled once per layout (index.ts's parse cache). */
export function markImmutable(operator: OperatorInput): void {
  immutable.add(operator);
}

function sameLayout(a: number[], b: number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The plan of an operator object, its compiling charged to `budget` (a cached plan is charged what compiling
 * it cost, so a request is accepted or refused the same way whether or not its plan was cached).
 */
export function compilePlan(input: OperatorInput | null | undefined, layout: Layout, budget: WorkBudget): Plan | null {
  if (input === undefined || input === null) return null;
  if (typeof input !== 'object' || Array.isArray(input)) {
    throw new DiceError('invalid_operator', 'operator', 'operator must be an object such as {"k": "h1"}.');
  }
  if (!immutable.has(input)) return compile(input, layout, budget).plan;
  const hit = cachedPlans.get(input);
  if (hit !== undefined && sameLayout(hit.unitOfDie, layout.unitOfDie)) {
    budget.path = 'operator';
    budget.spend(hit.cost);
    return hit.plan;
  }
  const { plan, cost } = compile(input, layout, budget);
  cachedPlans.set(input, { unitOfDie: layout.unitOfDie.slice(), plan, cost });
  return plan;
}

function compile(input: OperatorInput, layout: Layout, budget: WorkBudget): { plan: Plan; cost: number } {
  const before = budget.used;
  const c = new Compiler(layout.unitCount, budget);
  let all: number[] | null = null;
  let scaled = false;
  for (const rawKey in input) {
    if (!Object.hasOwn(input, rawKey)) continue;
    const val = input[rawKey];
    const key = rawKey.trim().toLowerCase();
    const path = `operator.${rawKey}`;
    const plan = c.plan;
    budget.path = path;
    if ((key === '*' || key === '/') && isDieScaleForm(val)) {
      compileDieScale(key, val, layout, path, budget);
      scaled = true;
      continue;
    }
    if (key === '*') {
      plan.mul = plainNumber(val, path, 'The multiplier (*)');
      continue;
    }
    if (key === '/') {
      plan.div = plainNumber(val, path, 'The divisor (/)');
      if (plan.div === 0) throw new DiceError('invalid_operator', path, 'The divisor (/) cannot be 0.');
      continue;
    }
    if (key === 'groups') {
      if (plan.groups.length > 0) throw new DiceError('invalid_operator', path, 'groups may be given once.');
      plan.groups = compileGroups(val, layout, path);
      continue;
    }
    if (key === 'round') {
      const mode = typeof val === 'string' ? ROUND_MODES.get(val.trim().toLowerCase()) : undefined;
      if (!mode) throw new DiceError('invalid_operator', path, 'round must be "nearest", "down" or "up".');
      plan.round = mode;
      continue;
    }
    const code = SELECTOR_OPS.get(key);
    if (!code) throw new DiceError('invalid_operator', path, `"${rawKey}" is not an operator; known operators are ${KNOWN}.`);
    if (typeof val === 'string' || typeof val === 'number') {
      all ??= allUnits(layout.unitCount);
      c.addStep(code, operandSelectors(code, val, path), all, path);
    } else if (val !== null && typeof val === 'object' && !Array.isArray(val)) {
      let any = false;
      for (const operand in val) {
        if (!Object.hasOwn(val, operand)) continue;
        any = true;
        if (operand.length > MAX_OPERAND_LENGTH) {
          // Named by its length: a path that repeated the key would send it back whole.
          throw new DiceError(
            'invalid_operator',
            path,
            `${path} has an operand of ${operand.length} characters; an operand may be at most ${MAX_OPERAND_LENGTH}.`,
          );
        }
        const opPath = `${path}.${operand}`;
        const target = (val as Record<string, unknown>)[operand];
        const sels = operandSelectors(code, operand, opPath);
        if (Array.isArray(target) && target.length > 0 && target.every((t) => Array.isArray(t))) {
          // Several sets with the same operand: {4d6kh3, 4d6kh3} or 1d20kh1+1d20kh1.
          budget.spend(target.length);
          target.forEach((list, j) => c.addStep(code, sels, unitsOf(list, layout, `${opPath}[${j}]`, budget), `${opPath}[${j}]`));
        } else {
          c.addStep(code, sels, unitsOf(target, layout, opPath, budget), opPath);
        }
      }
      if (!any) throw new DiceError('invalid_operator', path, `${path} maps no selector to dice.`);
    } else {
      throw new DiceError(
        'invalid_operator',
        path,
        `${path} must be a selector string such as "h1", or an object such as {"h1": [0, 1]} or {"h1": [[0, 1], [2, 3]]}.`,
      );
    }
  }
  if (c.plan.groups.length > 0) checkSetsInParts(c.plan, layout);
  if (scaled) {
    c.plan.dieScales = dieScalesOf(input, layout.unitOfDie.length);
    checkDieScales(c.plan, layout, budget);
  }
  return { plan: c.plan, cost: budget.used - before };
}

/** An operand's selectors; explosions default to the highest face, compare points refuse hN/lN. */
function operandSelectors(code: OpCode, operand: string | number, path: string): readonly Selector[] {
  if (isExplode(code) && typeof operand === 'string' && (operand.trim() === '' || operand.trim().toLowerCase() === 'max')) return HIGHEST;
  if (code === 'u' && typeof operand === 'string' && operand.trim() === '') return ANY;
  if (code === 's') {
    const dir = typeof operand === 'string' ? operand.trim().toLowerCase() : null;
    if (dir === '' || dir === 'a') return ASCENDING;
    if (dir === 'd') return DESCENDING;
    throw new DiceError('invalid_operator', path, 's sorts the results: "a" (or "") ascending, "d" descending.');
  }
  const sels = parseSelectors(operand, path);
  if (takesComparePoint(code) && sels.some((s) => s.cat === 'h' || s.cat === 'l')) {
    throw new DiceError(
      'invalid_operator',
      path,
      `${code} takes a compare point such as ">=8", "=1" or "<3"${isExplode(code) ? ' (or "max")' : ''}, not a count of dice.`,
    );
  }
  return sels;
}

/** Sets a plan holds before the compiler looks them up by unit rather than one by one. */
const FEW_SETS = 16;

class Compiler {
  readonly plan: Plan = { sets: [], steps: [], groups: [], mul: null, div: null, round: null, dieScales: null };
  // Plans usually hold a handful of sets, so plain arrays beat maps here (this runs on every roll).
  private readonly lastStepOfSet: number[] = [];
  /** per unit, its set, once there are many sets (an object form can map up to one set per die) */
  private setOfUnit: Int32Array | null = null;

  constructor(
    private readonly unitCount: number,
    private readonly budget: WorkBudget,
  ) {}

  private useSet(units: number[], path: string): number {
    const sets = this.plan.sets;
    if (sets.length < FEW_SETS) {
      this.budget.spend(sets.length);
      for (let id = 0; id < sets.length; id++) {
        const other = sets[id]!;
        if (sameUnits(other, units)) return id;
        if (intersects(other, units)) overlapping(path);
      }
    } else {
      // Sets never overlap, so the set of the first unit is the only candidate.
      const index = (this.setOfUnit ??= this.indexSets());
      const id = index[units[0]!]!;
      if (id >= 0) {
        if (sameUnits(sets[id]!, units)) return id;
        overlapping(path);
      }
      for (const u of units) if (index[u]! >= 0) overlapping(path);
    }
    sets.push(units);
    this.lastStepOfSet.push(-1);
    if (this.setOfUnit !== null) for (const u of units) this.setOfUnit[u] = sets.length - 1;
    return sets.length - 1;
  }

  private indexSets(): Int32Array {
    const index = new Int32Array(this.unitCount).fill(-1);
    this.plan.sets.forEach((set, id) => {
      for (const u of set) index[u] = id;
    });
    return index;
  }

  addStep(code: OpCode, sels: readonly Selector[], units: number[], path: string): void {
    if (units.length === 0) return; // a roll of modifiers only: nothing to operate on
    this.budget.spend(STEP_COST + units.length + sels.length);
    if ((code === 'mi' || code === 'ma') && !allLiteral(sels)) {
      throw new DiceError(
        'invalid_operator',
        path,
        `${code} takes a number (the ${code === 'mi' ? 'lowest' : 'highest'} face a die may show), not a selector.`,
      );
    }
    const set = this.useSet(units, path);
    const steps = this.plan.steps;
    const last = this.lastStepOfSet[set]!;
    if (last !== -1 && steps[last]!.code === code) {
      refuseManySelectors(steps[last]!.sels.length + sels.length, path);
      steps[last]!.sels = steps[last]!.sels.concat(sels); // d20: consecutive same operators are one operator
      return;
    }
    this.lastStepOfSet[set] = steps.length;
    steps.push({ code, sels, set, path });
  }
}

function overlapping(path: string): never {
  throw new DiceError(
    'invalid_operator',
    path,
    `${path} applies to some of the dice another operator applies to, but not to the same dice; ` + 'operators must act on the same dice or on different ones.',
  );
}

function allLiteral(sels: readonly Selector[]): boolean {
  for (const s of sels) if (s.cat !== '=') return false;
  return true;
}

function sameUnits(a: number[], b: number[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether two ascending lists share a number. */
function intersects(a: number[], b: number[]): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) return true;
    if (a[i]! < b[j]!) i++;
    else j++;
  }
  return false;
}

function allUnits(n: number): number[] {
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = i;
  return out;
}

function unitsOf(indices: unknown, layout: Layout, path: string, budget: WorkBudget): number[] {
  if (!Array.isArray(indices) || indices.length === 0) {
    throw new DiceError('invalid_operator', path, `${path} must list the indices of dice it applies to, such as [0, 1].`);
  }
  budget.spend(indices.length);
  // Lists usually come in ascending order (parsed equations always do): then no set and no sort.
  const out: number[] = [];
  let ascending = true;
  for (let j = 0; j < indices.length; j++) {
    const i: unknown = indices[j];
    if (typeof i !== 'number' || !Number.isInteger(i) || i < 0 || i >= layout.unitOfDie.length) {
      throw new DiceError('invalid_operator', `${path}[${j}]`, `${String(i)} is not the index of a die in this roll (0 to ${layout.unitOfDie.length - 1}).`);
    }
    const u = layout.unitOfDie[i]!;
    if (u === -1) throw new DiceError('invalid_operator', `${path}[${j}]`, `dice[${i}] is a modifier; operators act on dice.`);
    const last = out.length === 0 ? -1 : out[out.length - 1]!;
    if (u === last) continue; // either die of a d100 pair names the pair
    if (u < last) ascending = false;
    out.push(u);
  }
  return ascending ? out : [...new Set(out)].sort((a, b) => a - b);
}
