/**
 * Types shared by the dice engine. camelCase inside; the HTTP layer maps them to the wire's snake_case.
 */

/** One face of a die as a theme's `values` lists it: a number, a string, or an image such as `{src}`. */
export type Face = number | string | { src: string; [k: string]: unknown };

/** A die as the roller's theme defines it, resolved by the caller (see `Resolve`). */
export interface DieDefinition {
  /** die id in the theme (`d20`, or a custom id) */
  id: string;
  /** physical shape (`d6`, `d10x`, ...) */
  type: string;
  /** abbreviation used when the die is written in an equation */
  notation: string;
  /** faces in face order; `value` in a roll is a 1-based index into this list */
  faces: Face[];
}

/** One entry of a roll request's `dice`. */
export interface DieRequest {
  /** die id in the theme, case-insensitive, or `mod` */
  type: string;
  /** theme id */
  theme: string;
  /** predetermined 1-based face index; for `mod`, the modifier itself */
  value?: number;
  /** predetermined face; for `mod`, a number (or numeric string) accepted in place of `value` */
  valueToDisplay?: Face;
  isHidden?: boolean;
  label?: string;
  meta?: unknown;
}

/**
 * A roll group (rpg-dice-roller's `{4d6+2d8, 3d20+3}kh1`): `parts` lists, per sub-roll, indices into
 * `dice` (dice and modifiers); the other keys are the group's operators (`k`, `p`/`d`, `success`,
 * `failure`, `s`), run in the object's order once every dice operator ran.
 */
export interface GroupInput {
  parts: number[][];
  [op: string]: string | number | number[][];
}

/**
 * The request's `operator` object, in either vocabulary (d20's or the dddice SDK's). An operand maps to
 * the indices of one set of dice, or to several sets (`{"k": {"h3": [[0, 1, 2, 3], [4, 5, 6, 7]]}}`);
 * `groups` lists roll groups.
 */
export type OperatorInput = Record<string, string | number | Record<string, number[] | number[][]> | GroupInput[]>;

/** Where a rolled value came from. */
export type Origin = 'roll' | 'reroll' | 'explosion' | 'mod';

export interface RolledValue {
  /** index into the request's dice this value belongs to (rerolls and explosions keep their die's index) */
  dieIndex: number;
  /** die id, lower case */
  type: string;
  theme: string;
  /** 1-based face index; for a `mod`, the modifier */
  value: number;
  /** the face itself; for a `mod`, the modifier */
  valueToDisplay: Face;
  /** what this value adds to the total, or null when its face is not a number */
  numericValue: number | null;
  isDropped: boolean;
  /** a pool die (compare point `>=8`) that counts as a success / a failure (`f1`); at most one is true */
  isSuccess: boolean;
  isFailure: boolean;
  /** a throw of a compounding die (`!!`): every throw of it, the first (origin roll) included */
  isCompounded: boolean;
  /** a penetrating throw (`!p`, `!!p`): counts one less than its face */
  isPenetrated: boolean;
  isUserValue: boolean;
  isHidden: boolean;
  origin: Origin;
  label?: string;
  meta?: unknown;
}

export interface RollResult {
  /** request dice first (values[i] belongs to dice[i]), then rerolls and explosions in the order they happened */
  values: RolledValue[];
  total: number;
  /** successes and failures of the dice with a compare point (`8d10>=8f1`); null when the roll has none */
  successCount: number | null;
  failureCount: number | null;
  /** the roll in d20 syntax; `parseEquation` reads it back */
  equation: string;
  /** the operator object as given (or as parsed from an equation), null when there was none */
  operator: OperatorInput | null;
}

/** Finds a theme's die; null when the theme has no such die (the engine answers 422). */
export type Resolve = (theme: string, dieType: string) => DieDefinition | null;

/** A source of uniform integers. */
export interface Rng {
  /** a uniform integer in [0, n), for an integer 1 <= n <= 2**32 */
  int(n: number): number;
}
