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
import { formatSelector, opPrefix, type Selector } from './selectors';
import { appendModifiers, scalingAffixes } from './scaling';

export interface EquationShape {
  /** per unit of the request, in order: how it is written after its count (`d20`, `d100`, `{df}`) */
  tokens: string[];
  /** per unit: the set of operators it belongs to, or -1; null when the roll has no operator sets */
  setOfUnit: number[] | null;
  /** per set, its operations in order */
  setOps: { code: OpCode; sels: readonly Selector[] }[][];
  mods: number[];
  mul: number | null;
  div: number | null;
  round: RoundMode | null;
}

export function formatOps(ops: { code: OpCode; sels: readonly Selector[] }[]): string {
  let out = '';
  for (const op of ops) {
    if (op.code === 'mi' || op.code === 'ma') {
      out += op.code + formatSelector(op.sels[op.sels.length - 1]!); // d20 uses the last bound
    } else {
      // A compare point standing alone must show its `=`: 8d10=8, never 8d108.
      for (const s of op.sels) out += opPrefix(op.code) + (op.code === 'success' && s.cat === '=' ? '=' : '') + formatSelector(s);
    }
  }
  return out;
}

export function writeEquation(shape: EquationShape): string {
  const { tokens, setOfUnit } = shape;
  let body = '';
  const written = setOfUnit === null ? null : new Array<boolean>(shape.setOps.length).fill(false);
  for (let i = 0; i < tokens.length; ) {
    const token = tokens[i]!;
    const set = setOfUnit === null ? -1 : setOfUnit[i]!;
    if (set >= 0) {
      if (!written![set]) {
        written![set] = true;
        body = join(body, setTerm(tokens, setOfUnit!, set, i, formatOps(shape.setOps[set]!)));
      }
      i++;
      continue;
    }
    let j = i + 1;
    while (j < tokens.length && tokens[j] === token && (setOfUnit === null || setOfUnit[j]! < 0)) j++;
    body = join(body, `${j - i}${token}`);
    i = j;
  }
  body = appendModifiers(body, shape.mods);
  const { prefix, suffix } = scalingAffixes(shape);
  return prefix + (body === '' ? '0' : body) + suffix;
}

function join(body: string, term: string): string {
  return body === '' ? term : `${body}+${term}`;
}

/** A set's term: NdX when its dice are all alike, else d20's set of single dice. */
function setTerm(tokens: string[], setOfUnit: number[], set: number, first: number, ops: string): string {
  let count = 0;
  let alike = true;
  for (let k = first; k < tokens.length; k++) {
    if (setOfUnit[k] !== set) continue;
    count++;
    if (tokens[k] !== tokens[first]) alike = false;
  }
  if (alike) return `${count}${tokens[first]}${ops}`;
  const members: string[] = [];
  for (let k = first; k < tokens.length; k++) if (setOfUnit[k] === set) members.push(`1${tokens[k]}`);
  return `(${members.join(', ')})${ops}`;
}
