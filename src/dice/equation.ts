/**
 * Writes a roll as an equation in d20 syntax, so that `parseEquation` reads back the same dice and operators:
 *
 *   4d6kh3+2            dice of one kind, with the operators that act on all of them
 *   2d20kh1+1d6         operators on some of the dice (the object form of `operator`)
 *   (1d20, 1d12)kh1     operators on a set of different dice: d20's set syntax, one die per element
 *   1d100               a d10x followed by a d10
 *   2{df}               a custom die, its notation in braces (d20 has no names for custom dice)
 *   floor((1d20+5)/2)   the dddice SDK's `*`, `/` and `round` (floor, ceil or round around the whole)
 *
 * Modifiers come last, whatever their place in the request.
 */
import type { OpCode, RoundMode } from './plan';
import { formatSelector, type Selector } from './selectors';

export interface EquationShape {
  /** the request's units in order: their token (`d20`, `d100`, `{df}`) and the set they belong to, or -1 */
  units: { token: string; set: number }[];
  /** per set, its operations in order */
  setOps: { code: OpCode; sels: Selector[] }[][];
  mods: number[];
  mul: number | null;
  div: number | null;
  round: RoundMode | null;
}

const ROUND_FN: Record<RoundMode, string> = { down: 'floor', up: 'ceil', nearest: 'round' };

export function formatOps(ops: { code: OpCode; sels: Selector[] }[]): string {
  let out = '';
  for (const op of ops) {
    if (op.code === 'mi' || op.code === 'ma') {
      out += op.code + formatSelector(op.sels[op.sels.length - 1]!); // d20 uses the last bound
    } else {
      for (const s of op.sels) out += op.code + formatSelector(s);
    }
  }
  return out;
}

export function writeEquation(shape: EquationShape): string {
  const terms: string[] = [];
  const units = shape.units;
  const written = new Array<boolean>(shape.setOps.length).fill(false);
  for (let i = 0; i < units.length; ) {
    const u = units[i]!;
    if (u.set >= 0) {
      if (!written[u.set]) {
        written[u.set] = true;
        const members = units.filter((m) => m.set === u.set);
        const ops = formatOps(shape.setOps[u.set]!);
        terms.push(members.every((m) => m.token === u.token)
          ? `${members.length}${u.token}${ops}`
          : `(${members.map((m) => `1${m.token}`).join(', ')})${ops}`);
      }
      i++;
      continue;
    }
    let j = i + 1;
    while (j < units.length && units[j]!.set < 0 && units[j]!.token === u.token) j++;
    terms.push(`${j - i}${u.token}`);
    i = j;
  }
  let body = terms.join('+');
  for (const m of shape.mods) {
    if (body === '') body = String(m);
    else body += m < 0 ? String(m) : `+${m}`;
  }
  if (body === '') body = '0';
  if (shape.mul !== null || shape.div !== null) {
    body = `(${body})`;
    if (shape.mul !== null) body += `*${shape.mul}`;
    if (shape.div !== null) body += `/${shape.div}`;
  }
  if (shape.round !== null) body = `${ROUND_FN[shape.round]}(${body})`;
  return body;
}
