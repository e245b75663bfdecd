/**
 * What plan.ts compiles an operator object into, and what every later stage reads: operator codes, steps
 * on sets of units, roll groups, and how request dice map to units. Types and two predicates on codes,
 * below the parser (which writes these codes) and the plan (which makes these objects), so that neither
 * the stages after the plan nor the parser import the plan's compiler.
 */
import type { DieScales, RoundMode } from './scaling';
import type { Selector } from './selectors';

export type OpCode = 'k' | 'p' | 'rr' | 'ro' | 'ra' | 'e' | 'mi' | 'ma' | ExplodeCode | 'success' | 'failure' | 'u' | 's';
/** rpg-dice-roller's explosions: explode, compound, penetrate, compound and penetrate */
export type ExplodeCode = '!' | '!!' | '!p' | '!!p';

export function isExplode(code: OpCode): code is ExplodeCode {
  return code === '!' || code === '!!' || code === '!p' || code === '!!p';
}

/** Codes whose operand is a compare point (`>=8`, `=1`, `<3`, `5`), never `hN`/`lN`. */
export function takesComparePoint(code: OpCode): boolean {
  return code === 'success' || code === 'failure' || code === 'u' || isExplode(code);
}

export interface Step {
  code: OpCode;
  /** may be shared with the selector cache: never mutate, replace */
  sels: readonly Selector[];
  /** index into Plan.sets */
  set: number;
  /** where this step came from, for errors: `operator.k` or `operator.k.h1` */
  path: string;
}

export interface Plan {
  /** each set: indices of units (a die, or a d100 pair), ascending */
  sets: number[][];
  steps: Step[];
  /** roll groups (`{4d6+2d8, 3d20+3}kh1`), in the order given */
  groups: GroupPlan[];
  mul: number | null;
  div: number | null;
  round: RoundMode | null;
  /** the object form of `*` and `/`: dice (and modifiers) scaled on their own; null when none */
  dieScales: DieScales | null;
}

/** How request dice map to units, which the plan's sets are made of. */
export interface Layout {
  /** per request die: its unit's index, or -1 for a modifier */
  unitOfDie: number[];
  unitCount: number;
}

export type GroupCode = 'k' | 'p' | 'success' | 'failure' | 's';

export interface GroupStep {
  code: GroupCode;
  /** how the operator is written after the closing brace: k, p, d, f, s, or nothing for a compare point */
  prefix: string;
  sels: readonly Selector[];
  path: string;
}

export interface GroupPlan {
  /** per part: indices into the request's dice (dice and modifiers), ascending */
  parts: number[][];
  steps: GroupStep[];
}
