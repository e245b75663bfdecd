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
import { pairValue } from './faces';
import type { Step } from './plan';
import { formatSelector, matchesValue, type Selector } from './selectors';
import { MAX_ROLL_VALUES, type RollState, type Unit } from './state';

export function applyStep(state: RollState, set: Unit[], step: Step): void {
  switch (step.code) {
    case 'k': {
      const chosen = new Set(select(set, step.sels));
      for (const u of set) if (u.kept && u.num !== null && !chosen.has(u)) state.drop(u);
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
      const exploded = new Set<Unit>();
      let chosen = select(set, step.sels);
      for (let pass = 0; chosen.length > 0 && pass <= MAX_ROLL_VALUES; pass++) {
        for (const u of chosen) {
          exploded.add(u);
          set.push(state.spawn(u, 'explosion'));
        }
        chosen = select(set, step.sels).filter((u) => !exploded.has(u));
      }
      return;
    }
    case 'mi':
    case 'ma': {
      const bound = step.sels[step.sels.length - 1]!.num;
      const isMin = step.code === 'mi';
      for (const u of set) {
        if (!u.kept || u.num === null || (isMin ? u.num >= bound : u.num <= bound)) continue;
        state.force(u, nearestFaces(u, bound, isMin, step));
      }
      return;
    }
  }
}

/** The units a list of selectors picks out of a set (union, without repeats), at most `max`. */
export function select(set: Unit[], sels: Selector[], max = Infinity): Unit[] {
  const out: Unit[] = [];
  for (const s of sels) {
    if (out.length >= max) break;
    let picked: Unit[];
    if (s.cat === 'h' || s.cat === 'l') {
      picked = set.filter((u) => u.kept && u.num !== null);
      // Array.prototype.sort is stable: equal numbers stay in roll order, as in d20.
      picked.sort(s.cat === 'h' ? (a, b) => b.num! - a.num! : (a, b) => a.num! - b.num!);
      picked.length = Math.min(picked.length, s.num);
    } else {
      picked = set.filter((u) => u.kept && u.num !== null && matchesValue(s, u.num));
    }
    for (const u of picked) {
      if (out.length >= max) break;
      if (!out.includes(u)) out.push(u);
    }
  }
  return out;
}

/** Every number a unit can show, with the faces that show it. */
function outcomes(u: Unit): { num: number; faces: number[] }[] {
  const out: { num: number; faces: number[] }[] = [];
  const a = u.dice[0]!.numbers;
  if (u.dice.length === 1) {
    for (let i = 0; i < a.length; i++) if (a[i] !== null) out.push({ num: a[i]!, faces: [i] });
    return out;
  }
  const b = u.dice[1]!.numbers;
  for (let i = 0; i < a.length; i++) {
    for (let j = 0; j < b.length; j++) {
      if (a[i] !== null && b[j] !== null) out.push({ num: pairValue(a[i]!, b[j]!), faces: [i, j] });
    }
  }
  return out;
}

function describe(u: Unit): string {
  return u.dice.length === 2 ? 'd100' : u.types[0]!;
}

/**
 * `rr` with hN/lN always finds a die to reroll, and `rr` or `e` whose selectors match every face of a die
 * never stops (a d1 with `rr1`): both are refused up front instead of running into the dice limit.
 */
function refuseEndless(set: Unit[], step: Step): void {
  const sel = step.sels.map((s) => step.code + formatSelector(s)).join('');
  if (step.code === 'rr' && step.sels.some((s) => (s.cat === 'h' || s.cat === 'l') && s.num > 0) &&
      set.some((u) => u.num !== null)) {
    throw new DiceError('invalid_operator', step.path,
      `${sel} would reroll forever: there is always a highest or lowest die. Use a value selector such as rr1 or rr<3.`);
  }
  const checked = new Set<unknown>();
  for (const u of set) {
    if (!u.kept) continue;
    // Singles of one definition share a PreparedDie; a pair is checked per pair (its two dice may differ).
    const kind = u.dice.length === 1 ? u.dice[0] : u.dice;
    if (checked.has(kind)) continue;
    checked.add(kind);
    const all = outcomes(u);
    if (all.length > 0 && all.every((o) => step.sels.some((s) => matchesValue(s, o.num)))) {
      throw new DiceError('invalid_operator', step.path,
        `${sel} would ${step.code === 'rr' ? 'reroll' : 'explode'} a ${describe(u)} forever: every face it has matches.`);
    }
  }
}

/** For mi/ma: the faces showing the number closest to the bound on its allowed side (first such faces). */
function nearestFaces(u: Unit, bound: number, isMin: boolean, step: Step): number[] {
  let best: { num: number; faces: number[] } | null = null;
  for (const o of outcomes(u)) {
    if (isMin ? o.num < bound : o.num > bound) continue;
    if (best === null || (isMin ? o.num < best.num : o.num > best.num)) best = o;
  }
  if (best === null) {
    throw new DiceError('invalid_operator', step.path,
      `${step.code}${bound} asks a ${describe(u)} to show ${isMin ? 'at least' : 'at most'} ${bound}, but no face of it does.`);
  }
  return best.faces;
}
