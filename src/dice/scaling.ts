/**
 * The SDK's `*`, `/` and `round`, and how modifiers are written: the one place the engine's total,
 * its equation writer and the hidden-dice view (hidden.ts) take them from, so the three agree.
 */
import type { RoundMode } from './plan';

export interface Scaling {
  mul: number | null;
  div: number | null;
  round: RoundMode | null;
}

export const ROUND_FN: Readonly<Record<RoundMode, string>> = { down: 'floor', up: 'ceil', nearest: 'round' };

/** `*`, then `/`, then `round` (halves away from 0), in the engine's order; never -0 (JSON has none). */
export function applyScaling(sum: number, { mul, div, round }: Scaling): number {
  if (mul !== null) sum *= mul;
  if (div !== null) sum /= div;
  if (round === 'down') sum = Math.floor(sum);
  else if (round === 'up') sum = Math.ceil(sum);
  else if (round === 'nearest') sum = Math.sign(sum) * Math.round(Math.abs(sum));
  return sum === 0 ? 0 : sum;
}

/** What an equation's body is wrapped in: `round((body)*mul/div)` is prefix + body + suffix. */
export function scalingAffixes({ mul, div, round }: Scaling): { prefix: string; suffix: string } {
  const scaled = mul !== null || div !== null;
  return {
    prefix: (round !== null ? `${ROUND_FN[round]}(` : '') + (scaled ? '(' : ''),
    suffix: (scaled ? `)${mul !== null ? `*${mul}` : ''}${div !== null ? `/${div}` : ''}` : '') + (round !== null ? ')' : ''),
  };
}

/** Modifiers written after a body, as the equation shows them: `1d20+5-2`, or `5-2` alone. */
export function appendModifiers(body: string, mods: readonly number[]): string {
  for (const m of mods) {
    if (body === '') body = String(m);
    else body += m < 0 ? String(m) : `+${m}`;
  }
  return body;
}
