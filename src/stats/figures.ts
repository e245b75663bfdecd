import { faceNumber, wireValue, type DieDefinition, type Face, type Resolve } from '../dice';
import { chiSquareAgainstUniform, chiSquarePValue } from './chiSquare';
import type { FaceCount } from './store/counts';

/**
 * From face counts (store/counts.ts) to the figures of each die: counts in face order with zeros, mean,
 * the chi-square test against a fair die. Pure: the faces come through `resolve` (the roll's own rule:
 * the theme's die by id or notation, the built-in dice for the built-in theme).
 *
 * - A die type rolled with several themes is one entry when those themes give it the same faces (the
 *   built-in d20 and a theme's d20 numbered "1" to "20"), else one entry per distinct list of faces
 *   (`themes` says which): a fair die is fair in its own faces.
 * - Faces come from the theme's latest version. When that no longer describes a value (a theme deleted,
 *   or a later version with fewer faces), the built-in die of that name stands in, else a die of as many
 *   faces as the highest position seen, each face its position: the counts stay true, only the faces'
 *   look is lost.
 * - Values the client supplied (`is_user_value`) are counted apart, in `userValues`, never in the test:
 *   they were chosen, not drawn. Every drawn value counts, dropped and rerolled ones included.
 */
export interface FaceFigure {
  face: Face;
  /** the face as roll values number it (numbering.ts wireValue) */
  value: number;
  count: number;
}

export interface DieFigures {
  type: string;
  themes: string[];
  faces: number;
  count: number;
  counts: FaceFigure[];
  mean: number | null;
  expectedMean: number | null;
  chiSquare: number | null;
  degreesOfFreedom: number;
  pValue: number | null;
  userValues: number;
}

interface Entry {
  type: string;
  faces: readonly Face[];
  themes: Set<string>;
  drawn: number[];
  userValues: number;
}

/** The faces of `type` in `theme` for values up to position `highest`. */
function facesOf(resolve: Resolve, builtin: (type: string) => DieDefinition | null, theme: string, type: string, highest: number): readonly Face[] {
  for (const def of [resolve(theme, type), builtin(type)]) {
    if (def && Array.isArray(def.faces) && def.faces.length >= highest) return def.faces;
  }
  return Array.from({ length: highest }, (_, i) => i + 1);
}

export function dieFigures(rows: readonly FaceCount[], resolve: Resolve, builtin: (type: string) => DieDefinition | null): DieFigures[] {
  // (type, theme) -> its rows, then each group's faces.
  const groups = new Map<string, FaceCount[]>();
  for (const row of rows) {
    const key = `${row.type}\u0000${row.theme}`;
    const list = groups.get(key);
    if (list) list.push(row);
    else groups.set(key, [row]);
  }
  const entries = new Map<string, Entry>();
  for (const list of groups.values()) {
    const { type, theme } = list[0]!;
    const highest = list.reduce((m, r) => Math.max(m, r.position), 0);
    const faces = facesOf(resolve, builtin, theme, type, highest);
    const key = `${type}\u0000${facesKey(faces)}`;
    let entry = entries.get(key);
    if (!entry) entries.set(key, (entry = { type, faces, themes: new Set(), drawn: new Array<number>(faces.length).fill(0), userValues: 0 }));
    entry.themes.add(theme);
    for (const r of list) {
      // Position 0 or below is no face (a stored value outside any die): not a throw of this die.
      if (r.position < 1) continue;
      if (r.isUserValue) entry.userValues += r.count;
      else entry.drawn[r.position - 1]! += r.count;
    }
  }
  return [...entries.values()].map(figuresOf).sort(byType);
}

/** Faces as the engine compares them (faces.ts facesEqual): numbers by value ("7" is 7), images by src. */
function facesKey(faces: readonly Face[]): string {
  return JSON.stringify(faces.map((f) => faceNumber(f) ?? (typeof f === 'object' ? { src: f.src } : f)));
}

function figuresOf(e: Entry): DieFigures {
  const count = e.drawn.reduce((s, n) => s + n, 0);
  const numbers = e.faces.map(faceNumber);
  const numeric = numbers.every((n): n is number => n !== null);
  const df = e.faces.length - 1;
  const chiSquare = count > 0 ? chiSquareAgainstUniform(e.drawn) : null;
  return {
    type: e.type,
    themes: [...e.themes].sort(),
    faces: e.faces.length,
    count,
    counts: e.faces.map((face, i) => ({ face, value: wireValue(e.type, i + 1, face), count: e.drawn[i]! })),
    mean: numeric && count > 0 ? numbers.reduce((s: number, n, i) => s + n! * e.drawn[i]!, 0) / count : null,
    expectedMean: numeric ? numbers.reduce((s: number, n) => s + n!, 0) / numbers.length : null,
    chiSquare,
    degreesOfFreedom: df,
    // A die of one face has nothing to test; no throws, nothing to test either.
    pValue: chiSquare !== null && df >= 1 ? chiSquarePValue(chiSquare, df) : null,
    userValues: e.userValues,
  };
}

/** d4, d6, d8, d10, d10x, d12, d20, d100..., then words; a type's entries by number of faces. */
function byType(a: DieFigures, b: DieFigures): number {
  return a.type.localeCompare(b.type, 'en', { numeric: true }) || a.faces - b.faces || (a.themes[0] ?? '').localeCompare(b.themes[0] ?? '');
}
