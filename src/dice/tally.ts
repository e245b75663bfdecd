/**
 * What a roll's values add up to, for the engine (which sees every die) and for a viewer who may not see
 * some (hidden.ts): one function, so that with nothing hidden both agree.
 *
 * A value counts its numericValue unless it is dropped (a dice pool's dice already hold +1, -1 or 0).
 * A part of a roll group that counts successes (`{4d6+2d8, 3d20+3}>=10`) counts +1, -1 or 0 as a whole
 * instead of its values, and only for a viewer who sees every value of it: its outcome comes from its
 * total, so a part with a hidden die would give that die away. A die scaled on its own (`{"*": {"2": [0]}}`,
 * scaling.ts) adds its numbers scaled; dice in roll groups never are (the plan refuses it).
 */
import { scaledNumber, type DieScales } from './scaling';

export interface TallyValue {
  dieIndex: number;
  isHidden: boolean;
  isDropped: boolean;
  isSuccess: boolean;
  isFailure: boolean;
  numericValue: number | null | undefined;
}

export interface Tally {
  sum: number;
  successes: number;
  failures: number;
}

/**
 * `poolPartOfDie`: per request die, the id of the counting group part it belongs to, or -1 (null: no
 * such group). `seesAll`: the roller (every value counts); otherwise hidden values count nothing.
 */
export function tally(values: readonly TallyValue[], poolPartOfDie: readonly number[] | null, seesAll: boolean, scales: DieScales | null = null): Tally {
  let sum = 0;
  let successes = 0;
  let failures = 0;
  let parts: Map<number, { hidden: boolean; success: boolean; failure: boolean }> | null = null;
  for (const v of values) {
    const part = poolPartOfDie === null ? -1 : (poolPartOfDie[v.dieIndex] ?? -1);
    if (part >= 0) {
      parts ??= new Map();
      let p = parts.get(part);
      if (p === undefined) parts.set(part, (p = { hidden: false, success: false, failure: false }));
      if (v.isHidden) p.hidden = true;
      if (!v.isDropped && v.isSuccess) p.success = true;
      if (!v.isDropped && v.isFailure) p.failure = true;
      continue;
    }
    if (v.isDropped || (!seesAll && v.isHidden)) continue;
    if (v.numericValue !== null && v.numericValue !== undefined) sum += scaledNumber(v.numericValue, v.dieIndex, scales);
    if (v.isSuccess) successes++;
    else if (v.isFailure) failures++;
  }
  if (parts !== null) {
    for (const p of parts.values()) {
      if (!seesAll && p.hidden) continue;
      if (p.success) {
        successes++;
        sum += 1;
      } else if (p.failure) {
        failures++;
        sum -= 1;
      }
    }
  }
  return { sum, successes, failures };
}

/** A stored operator's groups, as far as totals and presenters need them (validated when rolled). */
export interface StoredGroup {
  parts: number[][];
  /** the group counts successes of its parts (`success` or `failure` key) */
  pool: boolean;
}

export function groupsOf(operator: Record<string, unknown> | null | undefined): StoredGroup[] {
  if (!operator) return [];
  const out: StoredGroup[] = [];
  for (const key of Object.keys(operator)) {
    if (key.trim().toLowerCase() !== 'groups') continue;
    const list = operator[key];
    if (!Array.isArray(list)) continue;
    for (const g of list as unknown[]) {
      if (g === null || typeof g !== 'object' || !Array.isArray((g as { parts?: unknown }).parts)) continue;
      const parts = (g as { parts: unknown[] }).parts.map((p) => (Array.isArray(p) ? p.filter((i): i is number => typeof i === 'number') : []));
      const pool = Object.keys(g).some((k) => ['success', 'failure'].includes(k.trim().toLowerCase()));
      out.push({ parts, pool });
    }
  }
  return out;
}

/** Per request die index: the id of its counting group part, or -1; null when no group counts. */
export function poolPartsOf(groups: readonly StoredGroup[]): number[] | null {
  if (!groups.some((g) => g.pool)) return null;
  const out: number[] = [];
  let id = 0;
  for (const g of groups) {
    for (const part of g.parts) {
      if (g.pool) for (const i of part) out[i] = id;
      id++;
    }
  }
  for (let i = 0; i < out.length; i++) if (out[i] === undefined) out[i] = -1;
  return out;
}

/** Per request die index: [group, part] of the group part it belongs to (what a value's group fields say). */
export function groupPartsOf(groups: readonly StoredGroup[]): Map<number, [number, number]> {
  const out = new Map<number, [number, number]>();
  groups.forEach((g, gi) =>
    g.parts.forEach((part, pi) => {
      for (const i of part) out.set(i, [gi, pi]);
    }),
  );
  return out;
}
