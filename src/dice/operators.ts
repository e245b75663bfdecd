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
 * Every loop is bounded: RollState refuses to pass MAX_ROLL_VALUES, loops that could never end are
 * refused before they start, and every selection is charged to the roll's work budget first (budget.ts).
 */
import { DiceError } from './errors';
import { pairValue, type PreparedDie } from './faces';
import type { Step } from './planTypes';
import { formatSelector, matchesValue, opPrefix, selectCost, type Selector } from './selectors';
import { MAX_ROLL_VALUES, type RollState, type Unit } from './state';

// Units carry a scratch `mark`; each selection takes a new stamp, so membership needs no Set.
let stamp = 0;
function nextStamp(): number {
  stamp = stamp >= 0x3fffffff ? 1 : stamp + 1;
  return stamp;
}

export function applyStep(state: RollState, set: Unit[], step: Step): void {
  const budget = state.budget;
  budget.path = step.path;
  switch (step.code) {
    case 'k': {
      budget.spend(selectCost(set.length, step.sels) + set.length);
      const chosen = select(set, step.sels);
      const s = nextStamp();
      for (const u of chosen) u.mark = s;
      for (const u of set) if (u.kept && u.num !== null && u.mark !== s) state.drop(u);
      return;
    }
    case 'p':
      budget.spend(selectCost(set.length, step.sels));
      for (const u of select(set, step.sels)) state.drop(u);
      return;
    case 'rr':
      rerollUntil(state, set, step);
      return;
    case 'ro':
      budget.spend(selectCost(set.length, step.sels));
      for (const u of select(set, step.sels)) state.reroll(u);
      return;
    case 'ra':
      budget.spend(selectCost(set.length, step.sels));
      for (const u of select(set, step.sels, 1)) set.push(state.spawn(u, 'reroll'));
      return;
    case 'e':
      explodeOnce(state, set, step);
      return;
    case 'mi':
    case 'ma': {
      const bound = step.sels[step.sels.length - 1]!.num;
      const isMin = step.code === 'mi';
      budget.spend(set.length);
      // Dice of one kind move to the same faces: each kind's faces are scanned once per step.
      const faces = new Map<PreparedDie, [number, number]>();
      for (const u of set) {
        if (!u.kept || u.num === null || (isMin ? u.num >= bound : u.num <= bound)) continue;
        let f = u.b === null ? faces.get(u.die) : undefined;
        if (f === undefined) {
          budget.spend(u.b === null ? u.die.size : u.die.size * u.b.die.size);
          f = closestFaces(u, bound, isMin, step);
          if (u.b === null) faces.set(u.die, f);
        }
        state.force(u, f[0], f[1]);
      }
      return;
    }
  }
}

/**
 * d20's `rr`: rerolls the selected units until none is selected. A unit that was not rerolled shows the
 * same face, so with value selectors (hN/lN are refused, or select nothing as h0) only the units just
 * rerolled are looked at again, in the set's order: the units and order of selecting from the whole set.
 */
function rerollUntil(state: RollState, set: Unit[], step: Step): void {
  const budget = state.budget;
  refuseEndless(state, set, step);
  const byValue = !ranks(step.sels);
  budget.spend(selectCost(set.length, step.sels));
  let chosen = select(set, step.sels);
  // Each pass adds at least one value and RollState stops at MAX_ROLL_VALUES; the explicit cap says so.
  for (let pass = 0; chosen.length > 0 && pass <= MAX_ROLL_VALUES; pass++) {
    // `spent` is free during rr: it marks this pass's rerolls (`mark` belongs to select()).
    const s = nextStamp();
    for (const u of chosen) {
      state.reroll(u);
      u.spent = s;
    }
    let from = set;
    if (byValue && step.sels.length === 1) {
      from = chosen; // one value selector picks in the set's order already
    } else if (byValue) {
      budget.spend(set.length);
      from = set.filter((u) => u.spent === s);
    }
    budget.spend(selectCost(from.length, step.sels));
    chosen = select(from, step.sels);
  }
}

/** Whether a selector ranks dice (hN, lN) rather than testing each die's own face. */
function ranks(sels: readonly Selector[]): boolean {
  for (const s of sels) if (s.cat === 'h' || s.cat === 'l') return true;
  return false;
}

/**
 * d20's `e`: one more unit per selected unit, then again for newly selected ones, each unit at most once.
 * With value selectors only (`e6`, `e>4`) a unit that was not selected never will be (its face stays), so
 * after the first pass only the units a pass added are looked at: the same units in the same order as
 * selecting from the whole set again, for a fraction of the work. `hN`/`lN` rank the whole set each pass.
 */
function explodeOnce(state: RollState, set: Unit[], step: Step): void {
  const budget = state.budget;
  refuseEndless(state, set, step);
  const byValue = !ranks(step.sels);
  // A unit explodes once: `spent` holds this operation's stamp once it has.
  const s = nextStamp();
  budget.spend(selectCost(set.length, step.sels));
  let chosen = select(set, step.sels);
  for (let pass = 0; chosen.length > 0 && pass <= MAX_ROLL_VALUES; pass++) {
    const added: Unit[] = [];
    for (const u of chosen) {
      u.spent = s;
      const extra = state.spawn(u, 'explosion');
      set.push(extra);
      added.push(extra);
    }
    const from = byValue ? added : set;
    budget.spend(selectCost(from.length, step.sels));
    const next: Unit[] = [];
    for (const u of select(from, step.sels)) if (u.spent !== s) next.push(u);
    chosen = next;
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
export function refuseEndless(state: RollState, set: Unit[], step: Step): void {
  const budget = state.budget;
  budget.path = step.path;
  budget.spend(set.length);
  if (step.code === 'rr') {
    for (const s of step.sels) {
      if ((s.cat === 'h' || s.cat === 'l') && s.num > 0 && set.some((u) => u.kept && u.num !== null)) {
        throw new DiceError(
          'invalid_operator',
          step.path,
          `${label(step)} would reroll forever: there is always a highest or lowest die. Use a value selector such as rr1 or rr<3.`,
        );
      }
    }
  }
  // Each kind of die is charged once per step for every face against every selector, cached or not (the
  // set of kinds is made only once a second kind shows up: most rolls have one).
  let first: PreparedDie | null = null;
  let charged: Set<PreparedDie> | null = null;
  let last: PreparedDie | null = null;
  for (const u of set) {
    if (!u.kept || (u.b === null && u.die === last)) continue;
    last = u.b === null ? u.die : null;
    if (u.b !== null) budget.spend(u.die.size * u.b.die.size * step.sels.length);
    else if (first === null) {
      first = u.die;
      budget.spend(u.die.size * step.sels.length);
    } else if (u.die !== first && !(charged ??= new Set()).has(u.die)) {
      charged.add(u.die);
      budget.spend(u.die.size * step.sels.length);
    }
    if (matchesEveryFaceCached(u, step.sels)) {
      throw new DiceError(
        'invalid_operator',
        step.path,
        `${label(step)} would ${step.code === 'rr' ? 'reroll' : 'explode'} a ${describe(u)} forever: every face it has matches.`,
      );
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

/** For mi/ma: the faces (tens and units of a pair) closest to the bound on its allowed side (the first such). */
function closestFaces(u: Unit, bound: number, isMin: boolean, step: Step): [number, number] {
  const a = u.die.numbers;
  let best: number | null = null;
  let faceA = -1;
  let faceB = -1;
  if (u.b === null) {
    for (let i = 0; i < a.length; i++) {
      const n = a[i]!;
      if (n !== null && better(n, best, bound, isMin)) {
        best = n;
        faceA = i;
      }
    }
  } else {
    const b = u.b.die.numbers;
    for (let i = 0; i < a.length; i++) {
      for (let j = 0; j < b.length; j++) {
        if (a[i] === null || b[j] === null) continue;
        const n = pairValue(a[i]!, b[j]!);
        if (better(n, best, bound, isMin)) {
          best = n;
          faceA = i;
          faceB = j;
        }
      }
    }
  }
  if (best === null) {
    throw new DiceError(
      'invalid_operator',
      step.path,
      `${step.code}${bound} asks a ${describe(u)} to show ${isMin ? 'at least' : 'at most'} ${bound}, but no face of it does.`,
    );
  }
  return [faceA, faceB];
}
