/**
 * rpg-dice-roller's roll groups: `{4d6+2d8, 3d20+3}kh1`, `{4d6kh3, 4d6kh3}`, `{...}dh1`, `{...}>=10`.
 *
 * In the operator object a group is an entry of `groups`: `parts` lists each sub-roll's request dice
 * (dice and modifiers, by index into `dice`), the other keys are the group's operators, run in the
 * object's order after every dice operator of the roll:
 * - `k` / `p` (`d`, as rpg-dice-roller writes its drop) on a group of several parts keep or drop whole
 *   parts, ranked by their totals (`h1`: the highest total; ties go to the part written first; a value
 *   selector `k>10` compares totals); a dropped part's values are all `isDropped`, modifiers included.
 *   On a group of one part they act on that part's dice, as rpg-dice-roller does (`{2d20}kh1`).
 * - `success` / `failure` compare each kept part's total (one part too: `{3d20+5}>40`): the part counts
 *   +1, -1 or 0 instead of its total, and each of its values says `isSuccess` / `isFailure`.
 * - `s` says how to show the parts; it changes nothing.
 * Dice operators act inside one part (a set may not span parts), so the roll stays writable as a group.
 *
 * This module reads and checks `groups` (the plan stage); groups.ts runs them (the run stage).
 */
import { DiceError } from './errors';
import type { GroupCode, GroupPlan, GroupStep, Layout, Plan } from './planTypes';
import { parseSelectors, type Selector } from './selectors';
import type { GroupInput } from './types';

/** Group operator keys -> [code, how it is written]; `d` is rpg-dice-roller's drop, d20's `p`. */
const GROUP_KEYS = new Map<string, [GroupCode, string]>([
  ['k', ['k', 'k']],
  ['p', ['p', 'p']],
  ['d', ['p', 'd']],
  ['success', ['success', '']],
  ['failure', ['failure', 'f']],
  ['s', ['s', 's']],
]);

function refuse(path: string, message: string): never {
  throw new DiceError('invalid_operator', path, message);
}

/** Reads `operator.groups`: checks every part and operator, before anything is rolled. */
export function compileGroups(val: unknown, layout: Layout, path: string): GroupPlan[] {
  if (!Array.isArray(val) || val.length === 0) {
    refuse(path, `${path} must list groups such as [{"parts": [[0, 1], [2, 3]], "k": "h1"}].`);
  }
  const n = layout.unitOfDie.length;
  const partOfDie = new Array<number>(n).fill(-1); // across all groups, as partIds() numbers them
  let partId = 0;
  const out: GroupPlan[] = [];
  for (let g = 0; g < val.length; g++) {
    const input = val[g] as GroupInput;
    const gPath = `${path}[${g}]`;
    if (input === null || typeof input !== 'object' || Array.isArray(input))
      refuse(gPath, `${gPath} must be an object such as {"parts": [[0, 1], [2]], "k": "h1"}.`);
    const rawParts: unknown = Object.hasOwn(input, 'parts') ? input.parts : undefined;
    if (!Array.isArray(rawParts) || rawParts.length === 0)
      refuse(`${gPath}.parts`, `${gPath}.parts must list the parts, each a list of dice indices: [[0, 1], [2]].`);
    const parts: number[][] = [];
    for (let p = 0; p < rawParts.length; p++) {
      const list: unknown = rawParts[p];
      // Paths are written only for a refusal: this runs on every roll with groups.
      const pPath = (): string => `${gPath}.parts[${p}]`;
      if (!Array.isArray(list) || list.length === 0) refuse(pPath(), `${pPath()} must list the indices of its dice (and modifiers), such as [0, 1].`);
      const part: number[] = [];
      for (let j = 0; j < list.length; j++) {
        const i: unknown = list[j];
        if (typeof i !== 'number' || !Number.isInteger(i) || i < 0 || i >= n) {
          refuse(`${pPath()}[${j}]`, `${String(i)} is not the index of a die in this roll (0 to ${n - 1}).`);
        }
        if (partOfDie[i] !== -1) refuse(`${pPath()}[${j}]`, `dice[${i}] is already in a group part; a die belongs to one part at most.`);
        partOfDie[i] = partId;
        part.push(i);
      }
      let sorted = true;
      for (let k = 1; k < part.length; k++) if (part[k - 1]! > part[k]!) sorted = false;
      parts.push(sorted ? part : part.sort((a, b) => a - b));
      partId++;
    }
    const steps: GroupStep[] = [];
    for (const rawKey in input) {
      if (!Object.hasOwn(input, rawKey) || rawKey === 'parts') continue;
      const key = rawKey.trim().toLowerCase();
      const sPath = `${gPath}.${rawKey}`;
      const known = GROUP_KEYS.get(key);
      if (!known) refuse(sPath, `"${rawKey}" is not a group operator; a group takes k, p (or d), success, failure and s. Put dice operators inside its parts.`);
      const operand = input[rawKey];
      if (typeof operand !== 'string' && typeof operand !== 'number') refuse(sPath, `${sPath} must be a selector string such as "h1" or ">=10".`);
      steps.push({ code: known[0], prefix: known[1], sels: groupSelectors(known[0], operand, sPath), path: sPath });
    }
    out.push({ parts, steps });
  }
  // A d100's two dice add up to one number: they belong to the same part.
  for (let i = 0; i + 1 < n; i++) {
    if (layout.unitOfDie[i]! >= 0 && layout.unitOfDie[i] === layout.unitOfDie[i + 1] && partOfDie[i] !== partOfDie[i + 1]) {
      refuse(path, `dice[${i}] and dice[${i + 1}] are one d100: put both in the same group part.`);
    }
  }
  return out;
}

function groupSelectors(code: GroupCode, operand: string | number, path: string): readonly Selector[] {
  if (code === 's') {
    const dir = typeof operand === 'string' ? operand.trim().toLowerCase() : null;
    if (dir === '' || dir === 'a') return [{ cat: 'asc', num: 0 }];
    if (dir === 'd') return [{ cat: 'desc', num: 0 }];
    refuse(path, 's sorts the parts: "a" (or "") ascending, "d" descending.');
  }
  const sels = parseSelectors(operand, path);
  if ((code === 'success' || code === 'failure') && sels.some((s) => s.cat === 'h' || s.cat === 'l')) {
    refuse(path, `${code} takes a compare point such as ">=10", "=1" or "<3", not a count of parts.`);
  }
  return sels;
}

/** Per request die: the id of its part across all groups, or -1. */
export function partIds(groups: GroupPlan[], n: number): number[] {
  const out = new Array<number>(n).fill(-1);
  let id = 0;
  for (const g of groups)
    for (const part of g.parts) {
      for (const i of part) out[i] = id;
      id++;
    }
  return out;
}

export function isPoolGroup(g: GroupPlan): boolean {
  return g.steps.some((s) => s.code === 'success' || s.code === 'failure');
}

/**
 * Refuses dice operators the group could not be written around: a set of dice spanning two parts (or a
 * part and dice outside), and a dice pool inside a group that itself counts successes.
 */
export function checkSetsInParts(plan: Plan, layout: Layout): void {
  const byDie = partIds(plan.groups, layout.unitOfDie.length);
  const partOfUnit = new Array<number>(layout.unitCount).fill(-1);
  for (let i = 0; i < byDie.length; i++) if (layout.unitOfDie[i]! >= 0) partOfUnit[layout.unitOfDie[i]!] = byDie[i]!;
  // Each set once: the part all of its units are in (-2 when they are not all in one).
  const partOfSet = plan.sets.map((set) => {
    const part = partOfUnit[set[0]!]!;
    for (const u of set) if (partOfUnit[u] !== part) return -2;
    return part;
  });
  const poolParts: boolean[] = [];
  for (const g of plan.groups) for (let p = 0; p < g.parts.length; p++) poolParts.push(isPoolGroup(g));
  for (const step of plan.steps) {
    const part = partOfSet[step.set]!;
    if (part === -2) {
      refuse(step.path, `${step.path} applies to dice of different group parts; a dice operator acts inside one part.`);
    }
    if ((step.code === 'success' || step.code === 'failure') && part >= 0 && poolParts[part]) {
      refuse(step.path, `${step.path} counts successes inside a group that counts successes of its parts; use one of the two.`);
    }
  }
}
