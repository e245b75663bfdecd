/**
 * Standard dice and what the engine needs to know about a die's faces.
 */
import { DiceError } from './errors';
import type { DieDefinition, Face } from './types';

function range(from: number, to: number, step = 1): number[] {
  const out: number[] = [];
  for (let v = from; v <= to; v += step) out.push(v);
  return out;
}

function standard(id: string, faces: number[]): { type: string; notation: string; faces: number[] } {
  return Object.freeze({ type: id, notation: id, faces: Object.freeze(faces) as number[] });
}

/**
 * The dice every theme is assumed to have. The d10 runs 1..10 (the face printed "0" is 10), so a d10 on its
 * own totals like every other die; the d10x is the percentile tens die, 00..90 in steps of ten, where 00 is
 * the face 0. A `d10x` directly followed by a `d10` in a request is one d100 (see `pairValue`).
 */
export const STANDARD_DICE: Readonly<Record<string, { type: string; notation: string; faces: number[] }>> = Object.freeze({
  d2: standard('d2', range(1, 2)),
  d4: standard('d4', range(1, 4)),
  d6: standard('d6', range(1, 6)),
  d8: standard('d8', range(1, 8)),
  d10: standard('d10', range(1, 10)),
  d10x: standard('d10x', range(0, 90, 10)),
  d12: standard('d12', range(1, 12)),
  d16: standard('d16', range(1, 16)),
  d20: standard('d20', range(1, 20)),
});

/** The standard definition of a die id, as a theme without its own values would have it. */
export function standardDefinition(id: string): DieDefinition | null {
  const key = id.toLowerCase();
  // Own keys only: `constructor` or `toString` is not a standard die.
  if (!Object.hasOwn(STANDARD_DICE, key)) return null;
  const std = STANDARD_DICE[key]!;
  return { id: id.toLowerCase(), type: std.type, notation: std.notation, faces: std.faces };
}

/** Sides a generic die of the built-in theme may have (`1d3`, `2d30`, `1d1000`). */
export const MIN_GENERIC_SIDES = 2;
export const MAX_GENERIC_SIDES = 1000;

const FUDGE: Readonly<Record<string, number[]>> = Object.freeze({
  // Fudge/FATE dice are six-sided: two of each face (dF, dF.2), or one -, four blanks and one + (dF.1).
  df: [-1, -1, 0, 0, 1, 1],
  'df.2': [-1, -1, 0, 0, 1, 1],
  'df.1': [-1, 0, 0, 0, 0, 1],
});

/**
 * A die the built-in theme rolls without listing it: a standard die, fudge dice (`df`, `df.1`, `df.2`;
 * faces -1, 0, +1) and any `dN` for 2 <= N <= 1,000 (faces 1..N). Null for anything else.
 */
// The built-in fudge dice are written as read (4dF); a theme's own dX dice keep braces (2{df}), as stored
// equations always wrote them, so no existing equation changes its text.
const builtinFudge = new WeakSet<DieDefinition>();
// Definitions are kept so that a die prepared once (faces.map, its WeakMap entry) is prepared once.
const builtins = new Map<string, DieDefinition | null>();

export function builtinDefinition(id: string): DieDefinition | null {
  const key = id.toLowerCase();
  let def = builtins.get(key);
  if (def === undefined) {
    def = makeBuiltin(key);
    if (def !== null || builtins.size < 4096) builtins.set(key, def); // at most ~1,000 dice; misses bounded
  }
  return def;
}

function makeBuiltin(key: string): DieDefinition | null {
  const std = standardDefinition(key);
  if (std !== null) return std;
  if (Object.hasOwn(FUDGE, key)) {
    const def = { id: key, type: 'd6', notation: key === 'df' ? 'dF' : `dF${key.slice(2)}`, faces: FUDGE[key]! };
    builtinFudge.add(def);
    return def;
  }
  const m = /^d(\d{1,4})$/.exec(key);
  const n = m ? Number(m[1]) : NaN;
  if (!(n >= MIN_GENERIC_SIDES && n <= MAX_GENERIC_SIDES) || String(n) !== m![1]) return null;
  return { id: key, type: key, notation: key, faces: range(1, n) };
}

const NUMERIC_STRING = /^\s*[+-]?\d+(?:\.\d+)?\s*$/;

/**
 * The number a face counts as, or null. Themes often store numeric faces as strings ("00", "7", "-1"), so a
 * string that is a plain decimal number counts as that number; words, symbols and images count as nothing.
 */
export function faceNumber(face: Face): number | null {
  if (typeof face === 'number') return Number.isFinite(face) ? face : null;
  if (typeof face === 'string' && NUMERIC_STRING.test(face)) return Number(face);
  return null;
}

/** Whether a face a caller sent is this face: numbers by value (6 is "6"), strings exactly, images by src. */
export function facesEqual(a: Face, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'object') {
    return typeof b === 'object' && b !== null && typeof (b as { src?: unknown }).src === 'string' && (b as { src: string }).src === a.src;
  }
  if (typeof b !== 'number' && typeof b !== 'string') return false;
  const na = faceNumber(a);
  const nb = faceNumber(b);
  return na !== null && nb !== null && na === nb;
}

/** A die definition with what the engine computes from it once. */
export interface PreparedDie {
  def: DieDefinition;
  /** number of faces */
  size: number;
  /** faceNumber of each face */
  numbers: (number | null)[];
  /** the die as written in an equation term after the count: `d20`, `{dF}` */
  token: string;
  /** its highest number (what `!` explodes on), or null when no face is a number */
  max: number | null;
}

/** Faces beyond this are a broken theme, not a die; it also keeps draws inside the RNG's range. */
export const MAX_FACES = 10_000;

// Definitions usually come from a theme cache and repeat across rolls; a WeakMap lets them go with it.
const prepared = new WeakMap<DieDefinition, PreparedDie>();

/** Prepares a definition; `where` names the die in the error when the theme's die has no usable faces. */
export function prepare(def: DieDefinition, where: string): PreparedDie {
  let p = prepared.get(def);
  if (p !== undefined) return p;
  const faces = def.faces;
  if (!Array.isArray(faces) || faces.length === 0 || faces.length > MAX_FACES) {
    throw new DiceError(
      'unknown_die',
      where,
      `The die "${def.id}" of this theme has ${Array.isArray(faces) ? faces.length : 'no list of'} faces; ` + `a die needs between 1 and ${MAX_FACES}.`,
      422,
    );
  }
  const numbers = faces.map(faceNumber);
  let max: number | null = null;
  for (const n of numbers) if (n !== null && (max === null || n > max)) max = n;
  p = { def, size: faces.length, numbers, token: notationToken(def), max };
  prepared.set(def, p);
  return p;
}

/**
 * How a die is written after its count. `d6`-like notations are written as they are; any other notation in
 * braces (`4{dF}`), because d20 syntax has no names for custom dice and braces keep the parse unambiguous.
 */
function notationToken(def: DieDefinition): string {
  const notation = (typeof def.notation === 'string' && def.notation.trim() !== '' ? def.notation : def.id).trim().toLowerCase();
  if (/^d\d+x?$/.test(notation)) return notation;
  // The built-in fudge dice: dF, dF.1 (the parser reads a letter after d as a notation dX).
  if (builtinFudge.has(def)) return def.notation;
  if (/^[^{}()+\-*/,\s]+$/.test(notation)) return `{${notation}}`;
  return `{${def.id.toLowerCase()}}`;
}

/**
 * The number a d100 pair (tens face `tens`, units face `units`) counts as, by the usual percentile reading:
 * the units die's 10 reads 0, and 00 with 0 is 100. So 50 + 7 is 57, 90 + 10 is 90, 00 + 10 is 100,
 * 00 + 1 is 1: every number 1..100 comes from exactly one pair of faces.
 */
export function pairValue(tens: number, units: number): number {
  const v = tens + (((units % 10) + 10) % 10);
  return v === 0 ? 100 : v;
}
