/**
 * What a viewer who may not see every die of a roll gets as its total and equation: the one owner of
 * that arithmetic, beside the engine that wrote the stored total and equation (engine.ts, equation.ts)
 * and sharing their scaling and modifier writing (scaling.ts). Pure, like the rest of src/dice.
 */
import { appendModifiers, applyScaling, dieScalesOf, scalingAffixes, type RoundMode, type Scaling } from './scaling';
import { withoutHiddenGroupMods } from './hiddenGroups';
import { groupsOf, poolPartsOf, tally, type TallyValue } from './tally';

/** A stored die as these functions read it (the rolls store's value records have this shape). */
export interface ViewerDie extends TallyValue {
  type: string;
}

/** The `*`, `/` and `round` of a stored operator (validated by the engine when the roll was made). */
export function scalingOf(operator: Record<string, unknown> | null): Scaling {
  const out: Scaling = { mul: null, div: null, round: null };
  if (!operator) return out;
  for (const rawKey of Object.keys(operator)) {
    const key = rawKey.trim().toLowerCase();
    const v = operator[rawKey];
    if (key === '*') out.mul = Number(v);
    else if (key === '/') out.div = Number(v);
    else if (key === 'round' && typeof v === 'string') {
      const mode = v.trim().toLowerCase();
      if (mode === 'down' || mode === 'up' || mode === 'nearest') out.round = mode as RoundMode;
    }
  }
  // A stored operator was validated when rolled; numbers that are not finite (or a 0 divisor) are ignored.
  if (out.mul !== null && !Number.isFinite(out.mul)) out.mul = null;
  if (out.div !== null && (!Number.isFinite(out.div) || out.div === 0)) out.div = null;
  return out;
}

/**
 * The total a viewer who does not see every die gets: the numbers of the dice they see that are not
 * dropped (a roll group's counting part only when they see all of it, tally.ts), then `*`, `/` and
 * `round` in the engine's order and manner (docs/dice.md), so that with nothing hidden it equals the
 * stored total.
 */
export function viewerTotal(values: readonly ViewerDie[], operator: Record<string, unknown> | null): number {
  return applyScaling(tally(values, poolPartsOf(groupsOf(operator)), false, dieScalesOf(operator, dieCount(values))).sum, scalingOf(operator));
}

/** How many request dice a roll's values come from (every request die has its value). */
function dieCount(values: readonly ViewerDie[]): number {
  let n = 0;
  for (const v of values) if (v.dieIndex >= n) n = v.dieIndex + 1;
  return n;
}

/** Whether a stored operator makes dice a pool (a compare point `success`, or `failure`), or a group counts. */
export function hasComparePoint(operator: Record<string, unknown> | null): boolean {
  if (!operator) return false;
  return (
    Object.keys(operator).some((k) => {
      const key = k.trim().toLowerCase();
      return key === 'success' || key === 'failure';
    }) || groupsOf(operator).some((g) => g.pool)
  );
}

/**
 * A pool's successes and failures as a viewer is shown them: only dice they see count (`seesAll` for the
 * roller), as for totals; a pool die's numericValue is already +1, -1 or 0, so viewerTotal agrees. A
 * counting roll group part counts once, and only when the viewer sees all of it.
 */
export function poolCounts(
  values: readonly ViewerDie[],
  seesAll: boolean,
  operator: Record<string, unknown> | null = null,
): { success_count: number; failure_count: number } {
  const t = tally(values, poolPartsOf(groupsOf(operator)), seesAll);
  return { success_count: t.successes, failure_count: t.failures };
}

/**
 * The equation without the modifiers the viewer may not see. Dice are written by kind, never by result, so
 * only a modifier's number can give a hidden value away. The engine writes modifiers last, in request
 * order, inside the `*` `/` and `round` wrapping (equation.ts): peel the wrapping, cut the modifier
 * suffix, write the visible ones back. Should the shape ever differ from that, the viewer gets an empty
 * equation rather than the secret (test/api/rolls.privacy.test.ts pins the shape). A roll group's hidden
 * modifiers, written inside its braces, are taken out first (hiddenGroups.ts), under the same rule.
 */
export function viewerEquation(stored: string, operator: Record<string, unknown> | null, values: readonly ViewerDie[]): string {
  const groups = groupsOf(operator);
  const inGroups = new Set(groups.flatMap((g) => g.parts.flat()));
  let equation = stored;
  // A roll group's modifiers are written inside its braces (hiddenGroups.ts takes the hidden ones out).
  if (values.some((v) => v.type === 'mod' && v.isHidden && inGroups.has(v.dieIndex))) {
    const cut = withoutHiddenGroupMods(stored, groups, values);
    if (cut === null) return '';
    equation = cut;
  }
  // A modifier scaled on its own ({"*": {"2": [1]}}) is written inside its scaled term, `(1d6+3)*2`: such a
  // term is not cut, so a hidden one leaves the viewer no equation rather than its number.
  const scales = dieScalesOf(operator, dieCount(values));
  const isScaled = (i: number) => scales !== null && (scales.mul[i] !== 1 || scales.div[i] !== 1);
  if (values.some((v) => v.type === 'mod' && v.isHidden && isScaled(v.dieIndex))) return '';
  const mods = values.filter((v) => v.type === 'mod' && !inGroups.has(v.dieIndex) && !isScaled(v.dieIndex)).sort((a, b) => a.dieIndex - b.dieIndex);
  if (!mods.some((m) => m.isHidden)) return equation;
  const { prefix, suffix } = scalingAffixes(scalingOf(operator));
  if (!equation.startsWith(prefix) || !equation.endsWith(suffix) || equation.length < prefix.length + suffix.length) return '';
  const core = equation.slice(prefix.length, equation.length - suffix.length);
  const numbers = mods.map((m) => m.numericValue ?? 0);
  let dice: string;
  if (core === appendModifiers('', numbers)) dice = '';
  else {
    const modSuffix = appendModifiers('x', numbers).slice(1); // as written after a dice term: "+5-2"
    if (!core.endsWith(modSuffix) || core.length === modSuffix.length) return '';
    dice = core.slice(0, core.length - modSuffix.length);
  }
  const body = appendModifiers(
    dice,
    mods.filter((m) => !m.isHidden).map((m) => m.numericValue ?? 0),
  );
  return prefix + (body === '' ? '0' : body) + suffix;
}
