/**
 * rpg-dice-roller's explosions and dice pools, on one set of units:
 * - `!` rolls one more die for each die that matches its compare point (default: the die's highest
 *   number), and again for each new die that matches (like d20's `e`, which stays as it is);
 * - `!p` (penetrating, Hackmaster) does the same, but every extra die counts one less than it shows; the
 *   compare point is checked against what the die shows;
 * - `!!` (compounding, Savage Worlds) adds each extra throw into the die that exploded: one die, one
 *   number, which is what later operators and compare points see; `!!p` compounds penetrating throws;
 * - a compare point (`>=8`) makes the dice a pool: each kept die matching it is a success, else each
 *   matching `f` is a failure; a pool die adds +1, -1 or 0 to the total (its numericValue says so,
 *   which is what keeps hidden totals right: hidden.ts adds numericValue of what a viewer sees).
 * - `u` (unique) rerolls each die showing a number an earlier kept die shows (with a compare point: only
 *   numbers meeting it) until it shows a new one; more dice than a die has numbers is refused.
 * Every loop is bounded by MAX_ROLL_VALUES (RollState refuses past it), endless ones are refused first, and
 * every test of a compare point is charged to the roll's work budget first (budget.ts).
 */
import { DiceError } from './errors';
import type { PreparedDie } from './faces';
import { refuseEndless } from './operators';
import { isExplode, type Step } from './planTypes';
import { matchesValue, type Selector } from './selectors';
import { MAX_ROLL_VALUES, type RollState, type Unit } from './state';

/** Whether a number matches one of the compare points; `max` is the unit's highest number. */
export function hits(sels: readonly Selector[], n: number, max: number | null): boolean {
  for (const s of sels) {
    if (s.cat === 'any' || (s.cat === 'max' ? max !== null && n === max : matchesValue(s, n))) return true;
  }
  return false;
}

/** The highest number a unit can show (a d100 pair: 100). */
export function unitMax(u: Unit): number | null {
  return u.b !== null ? 100 : u.die.max;
}

/** What a unit shows before penetration takes one off: what the compare point is checked against. */
function shown(u: Unit): number | null {
  return u.num === null ? null : u.num + u.pen;
}

export function explode(state: RollState, set: Unit[], step: Step): void {
  const code = step.code;
  if (!isExplode(code)) return;
  refuseEndless(state, set, step);
  const budget = state.budget;
  const cost = step.sels.length;
  const penetrate = code === '!p' || code === '!!p';
  if (code === '!!' || code === '!!p') {
    for (const u of set.slice()) {
      if (!u.kept || u.extra !== null) continue;
      if (u.b !== null) {
        throw new DiceError('invalid_operator', step.path, `${code} cannot compound a d100 (two dice); use ! or !p.`);
      }
      let last = shown(u);
      budget.spend(cost);
      for (let n = 0; last !== null && hits(step.sels, last, unitMax(u)) && n <= MAX_ROLL_VALUES; n++) {
        last = state.compound(u, penetrate);
        budget.spend(cost);
      }
    }
    return;
  }
  const queue: Unit[] = [];
  budget.spend(set.length * cost);
  for (const u of set) {
    const n = shown(u);
    if (u.kept && n !== null && hits(step.sels, n, unitMax(u))) queue.push(u);
  }
  // Each pass adds a value and RollState stops at MAX_ROLL_VALUES; the explicit cap says so.
  for (let i = 0; i < queue.length && i <= MAX_ROLL_VALUES; i++) {
    const extra = state.spawn(queue[i]!, 'explosion', penetrate ? 1 : 0);
    set.push(extra);
    const n = shown(extra);
    budget.spend(cost);
    if (n !== null && hits(step.sels, n, unitMax(extra))) queue.push(extra);
  }
}

/**
 * After every operator has run: marks the pool's successes and failures (success wins when a die matches
 * both) and sets what each pool value adds to the total. Answers [successes, failures].
 */
export function markPool(state: RollState, set: Unit[], success: readonly Selector[], failure: readonly Selector[]): [number, number] {
  state.budget.spend(set.length * (1 + success.length + failure.length));
  let s = 0;
  let f = 0;
  for (const u of set) {
    const va = state.values[u.slotA]!;
    const isSuccess = u.kept && u.num !== null && hits(success, u.num, unitMax(u));
    const isFailure = !isSuccess && u.kept && u.num !== null && hits(failure, u.num, unitMax(u));
    va.isSuccess = isSuccess;
    va.isFailure = isFailure;
    if (isSuccess) s++;
    if (isFailure) f++;
    va.numericValue = isSuccess ? 1 : isFailure ? -1 : 0;
    if (u.b !== null) state.values[u.slotB]!.numericValue = 0;
    if (u.extra !== null) for (const slot of u.extra) state.values[slot]!.numericValue = 0;
  }
  return [s, f];
}

export function unique(state: RollState, set: Unit[], step: Step): void {
  const budget = state.budget;
  budget.path = step.path;
  const cost = step.sels.length;
  budget.spend(set.length);
  let kept = 0;
  for (const u of set) if (u.kept && u.num !== null) kept++;
  if (step.sels[0]!.cat === 'any') {
    // How many numbers a kind of die can show: each kind's faces are scanned once per step.
    const distinctOf = new Map<PreparedDie, number>();
    for (const u of set) {
      if (!u.kept || u.num === null || u.b !== null) continue;
      let distinct = distinctOf.get(u.die);
      if (distinct === undefined) {
        budget.spend(u.die.size * cost);
        distinct = new Set(u.die.numbers.filter((n) => n !== null && hits(step.sels, n, u.die.max))).size;
        distinctOf.set(u.die, distinct);
      }
      if (kept > distinct) {
        throw new DiceError('invalid_operator', step.path, `u cannot make ${kept} dice unique: a ${u.type} shows only ${distinct} different numbers.`);
      }
    }
  }
  const seen = new Set<number>();
  for (const u of set) {
    if (!u.kept || u.num === null) continue;
    // RollState stops at MAX_ROLL_VALUES; the explicit cap says so.
    budget.spend(1 + cost);
    for (let n = 0; u.num !== null && seen.has(u.num) && hits(step.sels, u.num, unitMax(u)) && n <= MAX_ROLL_VALUES; n++) {
      state.reroll(u);
      budget.spend(1 + cost);
    }
    if (u.num !== null) seen.add(u.num);
  }
}
