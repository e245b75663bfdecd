/**
 * The physical dice a theme's `available_dice` may name as a `type`, and their plain faces.
 *
 * The spec names seven shapes (d4 d6 d8 d10 d10x d12 d20); the dice engine's standard set (src/dice/faces.ts,
 * STANDARD_DICE) adds d2 and d16, and the built-in theme offers them too, so they are accepted as types here.
 * The faces below are the engine's: a d10 runs 1..10, a d10x 0..90 in tens (0 is the face printed "00").
 * test/themes/dice.test.ts checks that the two tables agree.
 */
export type PhysicalType = 'd2' | 'd4' | 'd6' | 'd8' | 'd10' | 'd10x' | 'd12' | 'd16' | 'd20';

function range(from: number, to: number, step = 1): number[] {
  const out: number[] = [];
  for (let v = from; v <= to; v += step) out.push(v);
  return out;
}

export const PLAIN_FACES: Readonly<Record<PhysicalType, readonly number[]>> = Object.freeze({
  d2: Object.freeze(range(1, 2)),
  d4: Object.freeze(range(1, 4)),
  d6: Object.freeze(range(1, 6)),
  d8: Object.freeze(range(1, 8)),
  d10: Object.freeze(range(1, 10)),
  d10x: Object.freeze(range(0, 90, 10)),
  d12: Object.freeze(range(1, 12)),
  d16: Object.freeze(range(1, 16)),
  d20: Object.freeze(range(1, 20)),
});

export const PHYSICAL_TYPES = Object.freeze(Object.keys(PLAIN_FACES) as PhysicalType[]);

/** The set assumed when a manifest leaves `available_dice` out (docs/spec.md §2.3). */
export const STANDARD_SET: readonly string[] = Object.freeze(['d4', 'd6', 'd8', 'd10', 'd10x', 'd12', 'd20']);

export function isPhysicalType(value: unknown): value is PhysicalType {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(PLAIN_FACES, value);
}

/** A die of `available_dice` with the string shorthand expanded. */
export interface DieEntry {
  id: string;
  type: string;
  notation: string;
}

/** `"d6"` is `{id: "d6", type: "d6", notation: "d6"}` (docs/spec.md §2.3.1); objects pass through. Malformed entries give null. */
export function normalizeDie(entry: unknown): DieEntry | null {
  if (typeof entry === 'string') return { id: entry, type: entry, notation: entry };
  if (entry && typeof entry === 'object' && !Array.isArray(entry)) {
    const { id, type, notation } = entry as Record<string, unknown>;
    if (typeof id === 'string' && typeof type === 'string') {
      return { id, type, notation: typeof notation === 'string' && notation !== '' ? notation : id };
    }
  }
  return null;
}

/** Every well-formed die of a manifest's `available_dice` (malformed entries are skipped). */
export function normalizeDice(availableDice: unknown): DieEntry[] {
  if (!Array.isArray(availableDice)) return [];
  const out: DieEntry[] = [];
  for (const entry of availableDice) {
    const die = normalizeDie(entry);
    if (die) out.push(die);
  }
  return out;
}
