/**
 * Runs rpg-dice-roller's roll groups once every dice operator ran: keeps or drops whole parts by their
 * totals, and counts a part's successes and failures. What a group means, and how `groups` is read and
 * checked, is in groupPlan.ts (the plan stage).
 */
import { partIds } from './groupPlan';
import { applyStep } from './operators';
import { hits } from './outcomes';
import type { GroupPlan, GroupStep, Step } from './planTypes';
import { selectCost, type Selector } from './selectors';
import type { RollState, Unit } from './state';

/**
 * Runs the groups' operators once every dice operator ran (`allUnits`: every unit of the roll, spawned
 * ones included). Answers the successes and failures of the groups that count them, or null when none does.
 */
export function runGroups(state: RollState, groups: GroupPlan[], allUnits: () => Unit[], diceCount: number): [number, number] | null {
  if (groups.every((g) => g.steps.length === 0)) return null; // {4d6kh3, 4d6kh3}: parts only add up
  const byDie = partIds(groups, diceCount);
  let counts: [number, number] | null = null;
  let first = 0;
  for (const g of groups) {
    const dropped = new Array<boolean>(g.parts.length).fill(false);
    const success: Selector[] = [];
    const failure: Selector[] = [];
    for (const step of g.steps) {
      state.budget.path = step.path;
      if (step.code === 'success') success.push(...step.sels);
      else if (step.code === 'failure') failure.push(...step.sels);
      else if (step.code === 'k' || step.code === 'p') {
        if (g.parts.length === 1) {
          // rpg-dice-roller: a group of one sub-roll keeps or drops that sub-roll's dice (found among all units,
          // which are at most as many as values: each is charged as a set insert and a test).
          state.budget.spend(4 * state.values.length);
          const mine = allUnits().filter((u) => byDie[u.dieIndex] === first);
          applyStep(state, mine, { code: step.code, sels: step.sels, set: -1, path: step.path } satisfies Step);
        } else {
          keepOrDropParts(state, g, first, byDie, dropped, step);
        }
      }
    }
    if (success.length > 0 || failure.length > 0) {
      // Each part's values are looked for among all of the roll's.
      state.budget.spend(g.parts.length * (success.length + failure.length + state.values.length));
      const totals = partTotals(state, byDie, first, g.parts.length);
      let s = 0;
      let f = 0;
      for (let p = 0; p < g.parts.length; p++) {
        if (dropped[p]) continue;
        const isSuccess = hits(success, totals[p]!, null);
        const isFailure = !isSuccess && hits(failure, totals[p]!, null);
        if (isSuccess) s++;
        if (isFailure) f++;
        for (const v of state.values) {
          if (byDie[v.dieIndex] !== first + p || v.isDropped) continue;
          v.isSuccess = isSuccess;
          v.isFailure = isFailure;
        }
      }
      counts = counts === null ? [s, f] : [counts[0] + s, counts[1] + f];
    }
    first += g.parts.length;
  }
  return counts;
}

/** Each part's total: the numbers of its values that are not dropped, modifiers included. */
function partTotals(state: RollState, byDie: number[], first: number, count: number): number[] {
  state.budget.spend(state.values.length);
  const totals = new Array<number>(count).fill(0);
  for (const v of state.values) {
    const p = byDie[v.dieIndex]! - first;
    if (p < 0 || p >= count || v.isDropped || v.numericValue === null) continue;
    totals[p]! += v.numericValue;
  }
  return totals;
}

/** `k` / `p` on a group of several parts: ranks the kept parts by total and drops whole parts. */
function keepOrDropParts(state: RollState, g: GroupPlan, first: number, byDie: number[], dropped: boolean[], step: GroupStep): void {
  const totals = partTotals(state, byDie, first, g.parts.length);
  const live: number[] = [];
  for (let p = 0; p < g.parts.length; p++) if (!dropped[p]) live.push(p);
  const chosen = new Set<number>();
  // A dropped part's values are looked for among all of the roll's.
  state.budget.spend(selectCost(live.length, step.sels) + live.length * state.values.length);
  for (const s of step.sels) {
    if (s.cat === 'h' || s.cat === 'l') {
      // Stable sort: equal totals go to the part written first.
      const ranked = [...live].sort((a, b) => (s.cat === 'h' ? totals[b]! - totals[a]! : totals[a]! - totals[b]!));
      for (const p of ranked.slice(0, s.num)) chosen.add(p);
    } else {
      for (const p of live) if (hits([s], totals[p]!, null)) chosen.add(p);
    }
  }
  for (const p of live) {
    if (step.code === 'k' ? chosen.has(p) : !chosen.has(p)) continue;
    dropped[p] = true;
    for (const v of state.values) if (byDie[v.dieIndex] === first + p) v.isDropped = true;
  }
}
