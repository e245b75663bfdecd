/**
 * d20's set operators, applied to one set of units. Semantics follow d20 (Avrae's dice library):
 * - selection only looks at kept units, and only at units whose faces are numbers;
 * - `hN`/`lN` rank by number, ties in roll order; several selectors select the union;
 * - `k` drops every kept (numeric) unit it does not select, `p` drops those it selects;
 * - `rr` rerolls selected units until none is selected, `ro` rerolls them once;
 * - `ra` rolls one more unit for the first selected unit only (one per operator, as in d20);
 * - `e` rolls one more unit for each selected unit, then again for newly selected units, never twice for
 *   the same unit;
 * - `mi N`/`ma N` move each kept unit below N / above N to the nearest face at or past N (d20 uses the last
 *   selector when several are given).
 * Every loop is bounded: RollState refuses to pass MAX_ROLL_VALUES, and loops that could never end are
 * refused before they start.
 */
import { DiceError } from './errors';
import { pairValue, type PreparedDie } from './faces';
import type { Step } from './plan';
import { formatSelector, matchesValue, opPrefix, type Selector } from './selectors';
import { MAX_ROLL_VALUES, type RollState, type Unit } from './state';

// Units carry a scratch `mark`; each selection takes a new stamp, so membership needs no Set.
let stamp = 0;
function nextStamp(): number {
  stamp = stamp >= 0x3fffffff ? 1 : stamp + 1;
  return stamp;
}

export function applyStep(state: RollState, set: Unit[], step: Step): void {
  switch (step.code) {
    case 'k': {
      const chosen = select(set, step.sels);
      const s = nextStamp();
      for (const u of chosen) u.mark = s;
      for (const u of set) if (u.kept && u.num !== null && u.mark !== s) state.drop(u);
      return;
    }
    case 'p':
      for (const u of select(set, step.sels)) state.drop(u);
      return;
    case 'rr': {
      refuseEndless(set, step);
      let chosen = select(set, step.sels);
      // Each pass adds at least one value and RollState stops at MAX_ROLL_VALUES; the explicit cap says so.
      for (let pass = 0; chosen.length > 0 && pass <= MAX_ROLL_VALUES; pass++) {
        for (const u of chosen) state.reroll(u);
        chosen = select(set, step.sels);
      }
      return;
    }
    case 'ro':
      for (const u of select(set, step.sels)) state.reroll(u);
      return;
    case 'ra':
      for (const u of select(set, step.sels, 1)) set.push(state.spawn(u, 'reroll'));
      return;
    case 'e': {
      refuseEndless(set, step);
      // A unit explodes once: `spent` holds this operation's stamp once it has.
      const s = nextStamp();
      let chosen = select(set, step.sels);
      for (let pass = 0; chosen.length > 0 && pass <= MAX_ROLL_VALUES; pass++) {
        for (const u of chosen) {
          u.spent = s;
          set.push(state.spawn(u, 'explosion'));
        }
        const next: Unit[] = [];
        for (const u of select(set, step.sels)) if (u.spent !== s) next.push(u);
        chosen = next;
      }
      return;
    }
    case 'mi':
    case 'ma': {
      const bound = step.sels[step.sels.length - 1]!.num;
      const isMin = step.code === 'mi';
      for (const u of set) {
        if (!u.kept || u.num === null || (isMin ? u.num >= bound : u.num <= bound)) continue;
        force(state, u, bound, isMin, step);
      }
      return;
    }
  }
}

function byNumDesc(x: Unit, y: Unit): number {
  return y.num! - x.num!;
}
function byNumAsc(x: Unit, y: Unit): number {
  return x.num! - y.num!;
}

/** The units one selector picks out of a set, in d20's order. */
function selectOne(set: Unit[], s: Selector): Unit[] {
  const picked: Unit[] = [];
  if (s.cat === 'h' || s.cat === 'l') {
    for (const u of set) if (u.kept && u.num !== null) picked.push(u);
    // Array.prototype.sort is stable: equal numbers stay in roll order, as in d20.
    picked.sort(s.cat === 'h' ? byNumDesc : byNumAsc);
    if (picked.length > s.num) picked.length = s.num;
  } else {
    for (const u of set) if (u.kept && u.num !== null && matchesValue(s, u.num)) picked.push(u);
  }
  return picked;
}

/** The units a list of selectors picks out of a set (union, without repeats), at most `max`. */
export function select(set: Unit[], sels: readonly Selector[], max = Infinity): Unit[] {
  if (sels.length === 1) {
    const picked = selectOne(set, sels[0]!);
    if (picked.length > max) picked.length = max;
    return picked;
  }
  const out: Unit[] = [];
  const s = nextStamp();
  for (const sel of sels) {
    for (const u of selectOne(set, sel)) {
      if (out.length >= max) return out;
      if (u.mark !== s) {
        u.mark = s;
        out.push(u);
      }
    }
  }
  return out;
}

function describe(u: Unit): string {
  return u.b !== null ? 'd100' : u.type;
}

function anyMatches(sels: readonly Selector[], v: number, max: number | null): boolean {
  for (const s of sels) if (s.cat === 'max' ? v === max : matchesValue(s, v)) return true;
  return false;
}

/** Whether every number a unit can show matches one of the selectors (a unit without numbers: false). */
function matchesEveryFace(u: Unit, sels: readonly Selector[]): boolean {
  const a = u.die.numbers;
  let any = false;
  if (u.b === null) {
    for (const n of a) {
      if (n === null) continue;
      if (!anyMatches(sels, n, u.die.max)) return false;
      any = true;
    }
    return any;
  }
  const b = u.b.die.numbers;
  for (const t of a) {
    for (const n of b) {
      if (t === null || n === null) continue;
      if (!anyMatches(sels, pairValue(t, n), 100)) return false;
      any = true;
    }
  }
  return any;
}

// A die's faces never change, so whether a selector list matches all of them is worked out once per die and
// list. Lists come from the selector cache, so the same operand string gives the same list object.
const everyFaceCache = new WeakMap<PreparedDie, WeakMap<readonly Selector[], boolean>>();

function matchesEveryFaceCached(u: Unit, sels: readonly Selector[]): boolean {
  if (u.b !== null) return matchesEveryFace(u, sels);
  let bySels = everyFaceCache.get(u.die);
  if (bySels === undefined) everyFaceCache.set(u.die, (bySels = new WeakMap()));
  let hit = bySels.get(sels);
  if (hit === undefined) {
    hit = matchesEveryFace(u, sels);
    bySels.set(sels, hit);
  }
  return hit;
}

/**
 * `rr` with hN/lN always finds a die to reroll, and `rr` or `e` whose selectors match every face of a die
 * never stops (a d1 with `rr1`): both are refused up front instead of running into the dice limit.
 */
export function refuseEndless(set: Unit[], step: Step): void {
  if (step.code === 'rr') {
    for (const s of step.sels) {
      if ((s.cat === 'h' || s.cat === 'l') && s.num > 0 && set.some((u) => u.kept && u.num !== null)) {
        throw new DiceError('invalid_operator', step.path,
          `${label(step)} would reroll forever: there is always a highest or lowest die. Use a value selector such as rr1 or rr<3.`);
      }
    }
  }
  let last: PreparedDie | null = null;
  for (const u of set) {
    if (!u.kept || (u.b === null && u.die === last)) continue;
    last = u.b === null ? u.die : null;
    if (matchesEveryFaceCached(u, step.sels)) {
      throw new DiceError('invalid_operator', step.path,
        `${label(step)} would ${step.code === 'rr' ? 'reroll' : 'explode'} a ${describe(u)} forever: every face it has matches.`);
    }
  }
}

/** A step as d20 writes it: rr1rr2. */
function label(step: Step): string {
  let out = '';
  for (const s of step.sels) out += opPrefix(step.code) + formatSelector(s);
  return out;
}

/** Whether n is allowed by the bound and closer to it than the best so far. */
function better(n: number, best: number | null, bound: number, isMin: boolean): boolean {
  return (isMin ? n >= bound : n <= bound) && (best === null || (isMin ? n < best : n > best));
}

/** For mi/ma: moves a unit to the number closest to the bound on its allowed side (the first such faces). */
function force(state: RollState, u: Unit, bound: number, isMin: boolean, step: Step): void {
  const a = u.die.numbers;
  let best: number | null = null;
  let faceA = -1;
  let faceB = -1;
  if (u.b === null) {
    for (let i = 0; i < a.length; i++) {
      const n = a[i]!;
      if (n !== null && better(n, best, bound, isMin)) { best = n; faceA = i; }
    }
  } else {
    const b = u.b.die.numbers;
    for (let i = 0; i < a.length; i++) {
      for (let j = 0; j < b.length; j++) {
        if (a[i] === null || b[j] === null) continue;
        const n = pairValue(a[i]!, b[j]!);
        if (better(n, best, bound, isMin)) { best = n; faceA = i; faceB = j; }
      }
    }
  }
  if (best === null) {
    throw new DiceError('invalid_operator', step.path,
      `${step.code}${bound} asks a ${describe(u)} to show ${isMin ? 'at least' : 'at most'} ${bound}, but no face of it does.`);
  }
  state.force(u, faceA, faceB);
}
