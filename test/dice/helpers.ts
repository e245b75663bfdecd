/** Test helpers for the dice engine: scripted and seeded randomness, and a resolver with custom dice. */
import { standardDefinition, type DieDefinition, type Resolve, type Rng } from '../../src/dice/index';

/**
 * A scripted source: each number is the 1-based face the next draw shows. Fails loudly when a test draws
 * more than it scripted or scripts a face the die does not have, so tests also pin how many draws happen.
 */
export function faces(...script: number[]): Rng & { left(): number } {
  let i = 0;
  return {
    int(n: number): number {
      if (i >= script.length) throw new Error(`scripted rng ran out after ${script.length} draws (asked for 1..${n})`);
      const f = script[i++]!;
      if (f < 1 || f > n) throw new Error(`scripted face ${f} is not on a ${n}-sided die (draw ${i})`);
      return f - 1;
    },
    left: () => script.length - i,
  };
}

/** A small seeded generator (xorshift32) so property tests are reproducible; not for fairness claims. */
export function seeded(seed: number): Rng {
  let x = seed >>> 0 || 1;
  return {
    int(n: number): number {
      x ^= x << 13;
      x >>>= 0;
      x ^= x >>> 17;
      x ^= x << 5;
      x >>>= 0;
      return Math.floor((x / 4294967296) * n);
    },
  };
}

export const CUSTOM: Record<string, DieDefinition> = {
  fate: { id: 'fate', type: 'd6', notation: 'dF', faces: ['-1', '-1', '0', '0', '+1', '+1'] },
  pips: { id: 'pips', type: 'd6', notation: 'd6', faces: [{ src: 'p1.png' }, { src: 'p2.png' }, 3, 4, 5, 6] },
  word: { id: 'word', type: 'd4', notation: 'word', faces: ['miss', 'hit', 'hit', 'crit'] },
  d1: { id: 'd1', type: 'd6', notation: 'd1', faces: [1] },
  coin: { id: 'coin', type: 'd2', notation: 'coin', faces: [0, 1] },
};

/** Theme "t" has the standard dice plus CUSTOM; theme "bare" has only d6. Matches notations as a fallback. */
export const resolve: Resolve = (theme, type) => {
  if (theme === 'bare') return type === 'd6' ? standardDefinition('d6') : null;
  if (theme !== 't') return null;
  const hit = CUSTOM[type] ?? standardDefinition(type);
  if (hit) return hit;
  return Object.values(CUSTOM).find((d) => d.notation.toLowerCase() === type) ?? null;
};

export const T = 't';

/** Request dice of one theme from types, e.g. dice('d20', 'd20', 'mod:5'). */
export function dice(...types: string[]): { type: string; theme: string; value?: number }[] {
  return types.map((t) => {
    const [type, value] = t.split(':');
    return value === undefined ? { type: type!, theme: T } : { type: type!, theme: T, value: Number(value) };
  });
}
