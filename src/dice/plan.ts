/**
 * Turns the request's `operator` object (d20's keys and the dddice SDK's) into a plan: which operations
 * run, in which order, on which set of dice, and how the total is scaled.
 *
 * Rules (documented in docs/dice.md):
 * - keys run in the object's order, as d20 runs operators in the order written; consecutive runs of the same
 *   operator on the same dice merge their selectors, as d20 merges `kh1kl1` into one keep;
 * - `d` is the SDK's name for d20's `p`;
 * - a string or number applies to every die of the roll (modifiers aside) as one set; an object maps
 *   operand -> indices into `dice`, each entry its own set;
 * - two operations may act on the same set or on sets with no die in common, never on overlapping sets: the
 *   roll must stay writable as a d20 equation, where an operator follows one group of dice.
 */
import { DiceError } from './errors';
import { parseSelectors, type Selector } from './selectors';
import type { OperatorInput } from './types';

export type OpCode = 'k' | 'p' | 'rr' | 'ro' | 'ra' | 'e' | 'mi' | 'ma';
export type RoundMode = 'nearest' | 'down' | 'up';

export interface Step {
  code: OpCode;
  sels: Selector[];
  /** index into Plan.sets */
  set: number;
  /** where this step came from, for errors: `operator.k` or `operator.k.h1` */
  path: string;
}

export interface Plan {
  /** each set: indices of units (a die, or a d100 pair), ascending */
  sets: number[][];
  steps: Step[];
  mul: number | null;
  div: number | null;
  round: RoundMode | null;
}

/** How request dice map to units, which the plan's sets are made of. */
export interface Layout {
  /** per request die: its unit's index, or -1 for a modifier */
  unitOfDie: number[];
  unitCount: number;
}

const SELECTOR_OPS: Record<string, OpCode> = {
  k: 'k', p: 'p', d: 'p', rr: 'rr', ro: 'ro', ra: 'ra', e: 'e', mi: 'mi', ma: 'ma',
};
const ROUND_MODES: Record<string, RoundMode> = { nearest: 'nearest', down: 'down', up: 'up' };
const KNOWN = 'k, p, d, rr, ro, ra, e, mi, ma, *, / and round';

/** A multiplier, divisor or modifier must print as a plain decimal so the equation can carry it. */
export function plainNumber(v: unknown, path: string, what: string): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*[+-]?\d+(\.\d+)?\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isFinite(n) || /e/i.test(String(n)) || Math.abs(n) > 1e9) {
    throw new DiceError('invalid_operator', path, `${what} must be a number between -1e9 and 1e9 written as a plain decimal.`);
  }
  return n;
}

export function compilePlan(input: OperatorInput | null | undefined, layout: Layout): Plan | null {
  if (input === undefined || input === null) return null;
  if (typeof input !== 'object' || Array.isArray(input)) {
    throw new DiceError('invalid_operator', 'operator', 'operator must be an object such as {"k": "h1"}.');
  }
  const plan: Plan = { sets: [], steps: [], mul: null, div: null, round: null };
  const setOfUnit: number[] = new Array(layout.unitCount).fill(-1);
  const setByKey = new Map<string, number>();
  const lastStepOfSet: number[] = [];

  const useSet = (units: number[], path: string): number => {
    const key = units.join(',');
    const known = setByKey.get(key);
    if (known !== undefined) return known;
    for (const u of units) {
      if (setOfUnit[u] !== -1) {
        throw new DiceError('invalid_operator', path,
          `${path} applies to some of the dice another operator applies to, but not to the same dice; ` +
          'operators must act on the same dice or on different ones.');
      }
    }
    const id = plan.sets.length;
    plan.sets.push(units);
    for (const u of units) setOfUnit[u] = id;
    setByKey.set(key, id);
    lastStepOfSet.push(-1);
    return id;
  };

  const addStep = (code: OpCode, sels: Selector[], units: number[], path: string): void => {
    if (units.length === 0) return; // a roll of modifiers only: nothing to operate on
    if ((code === 'mi' || code === 'ma') && sels.some((s) => s.cat !== '=')) {
      throw new DiceError('invalid_operator', path, `${code} takes a number (the ${code === 'mi' ? 'lowest' : 'highest'} face a die may show), not a selector.`);
    }
    const set = useSet(units, path);
    const last = lastStepOfSet[set]!;
    if (last !== -1 && plan.steps[last]!.code === code) {
      plan.steps[last]!.sels.push(...sels); // d20: consecutive same operators are one operator
      return;
    }
    lastStepOfSet[set] = plan.steps.length;
    plan.steps.push({ code, sels: [...sels], set, path });
  };

  let all: number[] | null = null;
  for (const [rawKey, val] of Object.entries(input)) {
    const key = rawKey.trim().toLowerCase();
    const path = `operator.${rawKey}`;
    if (key === '*') { plan.mul = plainNumber(val, path, 'The multiplier (*)'); continue; }
    if (key === '/') {
      plan.div = plainNumber(val, path, 'The divisor (/)');
      if (plan.div === 0) throw new DiceError('invalid_operator', path, 'The divisor (/) cannot be 0.');
      continue;
    }
    if (key === 'round') {
      const mode = typeof val === 'string' ? ROUND_MODES[val.trim().toLowerCase()] : undefined;
      if (!mode) throw new DiceError('invalid_operator', path, 'round must be "nearest", "down" or "up".');
      plan.round = mode;
      continue;
    }
    const code = SELECTOR_OPS[key];
    if (!code) throw new DiceError('invalid_operator', path, `"${rawKey}" is not an operator; known operators are ${KNOWN}.`);
    if (typeof val === 'string' || typeof val === 'number') {
      all ??= allUnits(layout.unitCount);
      addStep(code, parseSelectors(val, path), all, path);
    } else if (val !== null && typeof val === 'object' && !Array.isArray(val)) {
      const operands = Object.entries(val);
      if (operands.length === 0) throw new DiceError('invalid_operator', path, `${path} maps no selector to dice.`);
      for (const [operand, indices] of operands) {
        const opPath = `${path}.${operand}`;
        addStep(code, parseSelectors(operand, opPath), unitsOf(indices, layout, opPath), opPath);
      }
    } else {
      throw new DiceError('invalid_operator', path,
        `${path} must be a selector string such as "h1", or an object such as {"h1": [0, 1]}.`);
    }
  }
  return plan;
}

function allUnits(n: number): number[] {
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = i;
  return out;
}

function unitsOf(indices: unknown, layout: Layout, path: string): number[] {
  if (!Array.isArray(indices) || indices.length === 0) {
    throw new DiceError('invalid_operator', path, `${path} must list the indices of dice it applies to, such as [0, 1].`);
  }
  const seen = new Set<number>();
  for (let j = 0; j < indices.length; j++) {
    const i: unknown = indices[j];
    const where = `${path}[${j}]`;
    if (typeof i !== 'number' || !Number.isInteger(i) || i < 0 || i >= layout.unitOfDie.length) {
      throw new DiceError('invalid_operator', where,
        `${String(i)} is not the index of a die in this roll (0 to ${layout.unitOfDie.length - 1}).`);
    }
    const u = layout.unitOfDie[i]!;
    if (u === -1) throw new DiceError('invalid_operator', where, `dice[${i}] is a modifier; operators act on dice.`);
    seen.add(u); // either die of a d100 pair names the pair
  }
  return [...seen].sort((a, b) => a - b);
}
