/**
 * What the equation writer (equation.ts) needs to know of a roll: each unit's token, the sets of operators
 * and their steps, the roll groups with their parts' modifiers, the other modifiers and the scaling.
 */
import { formatGroupOps, type EquationShape } from './equation';
import type { Plan } from './planTypes';
import type { RollState, Unit } from './state';
import type { DieRequest } from './types';

export function shapeOf(units: Unit[], state: RollState, plan: Plan | null, dice: DieRequest[], unitOfDie: number[]): EquationShape {
  const tokens = new Array<string>(units.length);
  for (let i = 0; i < units.length; i++) tokens[i] = units[i]!.b !== null ? 'd100' : units[i]!.die.token;
  let setOfUnit: number[] | null = null;
  const setOps: EquationShape['setOps'] = [];
  if (plan !== null && plan.sets.length > 0) {
    setOfUnit = new Array<number>(units.length).fill(-1);
    for (let id = 0; id < plan.sets.length; id++) {
      for (const u of plan.sets[id]!) setOfUnit[u] = id;
      setOps.push([]);
    }
    for (const step of plan.steps) setOps[step.set]!.push(step);
  }
  let groupOfUnit: number[] | null = null;
  let partOfUnit: number[] | null = null;
  const groups: EquationShape['groups'] = [];
  const groupOfDie = new Array<number>(dice.length).fill(-1);
  const partOfDie = new Array<number>(dice.length).fill(-1);
  if (plan !== null && plan.groups.length > 0) {
    groupOfUnit = new Array<number>(units.length).fill(-1);
    partOfUnit = new Array<number>(units.length).fill(-1);
    plan.groups.forEach((g, gi) => {
      g.parts.forEach((part, pi) => {
        for (const i of part) {
          groupOfDie[i] = gi;
          partOfDie[i] = pi;
          if (unitOfDie[i]! >= 0) {
            groupOfUnit![unitOfDie[i]!] = gi;
            partOfUnit![unitOfDie[i]!] = pi;
          }
        }
      });
      groups.push({ parts: g.parts.map((_, pi) => ({ index: pi, mods: [] })), ops: formatGroupOps(g.steps) });
    });
  }
  const scaled = scaledTerms(plan, dice.length, unitOfDie);
  const mods: number[] = [];
  if (units.length < dice.length) {
    for (let i = 0; i < dice.length; i++) {
      if (unitOfDie[i] !== -1) continue;
      if (groupOfDie[i]! >= 0) groups[groupOfDie[i]!]!.parts[partOfDie[i]!]!.mods.push(state.values[i]!.value);
      else if (scaled !== null && scaled.termOfDie[i]! >= 0) scaled.terms[scaled.termOfDie[i]!]!.mods.push(state.values[i]!.value);
      else mods.push(state.values[i]!.value);
    }
  }
  return {
    tokens,
    setOfUnit,
    setOps,
    groupOfUnit,
    partOfUnit,
    groups,
    mods,
    mul: plan?.mul ?? null,
    div: plan?.div ?? null,
    round: plan?.round ?? null,
    scaled: scaled?.terms ?? [],
    scaledFirst: scaled !== null && scaled.termOfDie[0]! >= 0,
  };
}

/**
 * The dice scaled on their own (`{"*": {"2": [0, 1]}}`), as terms of the equation: dice and modifiers of
 * one scale make one term, in the order of their first die. Null when no die is scaled.
 */
function scaledTerms(plan: Plan | null, n: number, unitOfDie: number[]): { terms: EquationShape['scaled']; termOfDie: number[] } | null {
  const scales = plan?.dieScales ?? null;
  if (scales === null) return null;
  const terms: EquationShape['scaled'] = [];
  const termOfDie = new Array<number>(n).fill(-1);
  const seenUnit = new Set<number>();
  for (let i = 0; i < n; i++) {
    const mul = scales.mul[i]!;
    const div = scales.div[i]!;
    if (mul === 1 && div === 1) continue;
    let t = terms.findIndex((term) => term.mul === mul && term.div === div);
    if (t < 0) t = terms.push({ mul, div, units: [], mods: [] }) - 1;
    termOfDie[i] = t;
    const u = unitOfDie[i]!;
    if (u >= 0 && !seenUnit.has(u)) {
      seenUnit.add(u);
      terms[t]!.units.push(u);
    }
  }
  return terms.length > 0 ? { terms, termOfDie } : null;
}
