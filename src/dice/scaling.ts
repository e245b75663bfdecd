/**
 * The SDK's `*`, `/` and `round`, and how modifiers are written: the one place the engine's total,
 * its equation writer and the hidden-dice view (hidden.ts) take them from, so the three agree.
 */
import { DiceError } from './errors';

export type RoundMode = 'nearest' | 'down' | 'up';

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

/**
 * The SDK's `*` and `/` on some dice: `{"*": {"2": [0, 1]}}` multiplies what dice 0 and 1 add by 2 (the
 * SDK writes `(1d6+3)*2+1d4` so; modifiers may be listed). Per request die index, its factor and divisor
 * (1 when none); null when the operator scales no die on its own.
 */
export interface DieScales {
  mul: Float64Array;
  div: Float64Array;
}

/** Whether an operator value is the object form of `*` or `/` (factor -> dice indices). */
export function isDieScaleForm(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * The per-die scales of an operator, for `n` request dice (validated by the engine's plan when rolled:
 * stored operators are read as they were accepted; anything else in them is skipped).
 */
export function dieScalesOf(operator: Record<string, unknown> | null | undefined, n: number): DieScales | null {
  if (!operator) return null;
  let out: DieScales | null = null;
  for (const rawKey of Object.keys(operator)) {
    const key = rawKey.trim().toLowerCase();
    if (key !== '*' && key !== '/') continue;
    const v = operator[rawKey];
    if (!isDieScaleForm(v)) continue;
    for (const factor of Object.keys(v)) {
      const f = Number(factor);
      const list = v[factor];
      if (!Number.isFinite(f) || (key === '/' && f === 0) || !Array.isArray(list)) continue;
      out ??= { mul: new Float64Array(n).fill(1), div: new Float64Array(n).fill(1) };
      for (const i of list as unknown[]) if (typeof i === 'number' && Number.isInteger(i) && i >= 0 && i < n) (key === '*' ? out.mul : out.div)[i] = f;
    }
  }
  return out;
}

/** What a value adds to the total once its die's scale applies: `x * mul / div`, in that order. */
export function scaledNumber(x: number, dieIndex: number, scales: DieScales | null): number {
  if (scales === null || dieIndex >= scales.mul.length) return x;
  return (x * scales.mul[dieIndex]!) / scales.div[dieIndex]!;
}

/**
 * A multiplier, divisor or modifier: a finite number that prints as a plain decimal (no exponent), so the
 * equation can carry it. Numeric strings are accepted, as clients send numbers both ways.
 */
export function plainNumber(v: unknown, path: string, what: string): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*[+-]?\d+(\.\d+)?\s*$/.test(v) ? Number(v) : NaN;
  // |n| <= 1e9 and |n| >= 1e-6 (or 0) is exactly the range String(n) writes without an exponent here.
  if (!Number.isFinite(n) || Math.abs(n) > 1e9 || (n !== 0 && Math.abs(n) < 1e-6)) {
    throw new DiceError('invalid_operator', path, `${what} must be a number between -1e9 and 1e9 written as a plain decimal.`);
  }
  return n;
}
