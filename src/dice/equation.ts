/**
 * Writes a roll as an equation in d20 syntax, so that `parseEquation` reads back the same dice and operators:
 *
 *   4d6kh3+2            dice of one kind, with the operators that act on all of them
 *   2d20kh1+1d6         operators on some of the dice (the object form of `operator`)
 *   (1d20, 1d12)kh1     operators on a set of different dice: d20's set syntax, one die per element
 *   {4d6+2d8, 3d20+3}kh1  an rpg-dice-roller roll group, its parts written each like a body, the group's
 *                       modifiers inside their parts
 *   1d100               a d10x followed by a d10
 *   2{df}               a custom die, its notation in braces (d20 has no names for custom dice)
 *   floor((1d20+5)/2)   the dddice SDK's `*`, `/` and `round` (floor, ceil or round around the whole)
 *   (1d6+3)*2+1d4       the SDK's `*` and `/` on some dice ({"*": {"2": [0, 1]}}): a term in parentheses
 *                       per scale, before the other dice when the first die is scaled, else after them
 *
 * Modifiers outside groups come last, whatever their place in the request.
 */
import type { OpCode } from './planTypes';
import { appendModifiers, scalingAffixes, type RoundMode } from './scaling';
import { formatSelector, opPrefix, type Selector } from './selectors';

export interface EquationShape {
  /** per unit of the request, in order: how it is written after its count (`d20`, `d100`, `{df}`) */
  tokens: string[];
  /** per unit: the set of operators it belongs to, or -1; null when the roll has no operator sets */
  setOfUnit: number[] | null;
  /** per set, its operations in order */
  setOps: { code: OpCode; sels: readonly Selector[] }[][];
  /** per unit: its roll group and part (index into that group's parts), or -1; null when there are no groups */
  groupOfUnit: number[] | null;
  partOfUnit: number[] | null;
  /** per roll group: its parts' modifiers (each part by index) and its operators as written (`kh1`, `>=10`) */
  groups: { parts: { index: number; mods: number[] }[]; ops: string }[];
  /** modifiers outside groups */
  mods: number[];
  mul: number | null;
  div: number | null;
  round: RoundMode | null;
  /** dice and modifiers scaled on their own (`{"*": {"2": [0, 1]}}`): per scale, its units and modifiers */
  scaled: { mul: number; div: number; units: number[]; mods: number[] }[];
  /** whether the roll's first die is scaled: the scaled terms are then written before the other dice */
  scaledFirst: boolean;
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
  let all: number[];
  if (shape.scaled.length === 0) {
    all = new Array<number>(shape.tokens.length);
    for (let i = 0; i < all.length; i++) all[i] = i;
  } else {
    const inTerms = new Set(shape.scaled.flatMap((t) => t.units));
    all = [];
    for (let i = 0; i < shape.tokens.length; i++) if (!inTerms.has(i)) all.push(i);
  }
  const written = new Array<boolean>(shape.groups.length).fill(false);
  let body = writeUnits(shape, all, written);
  // A group of modifiers only has no unit to stand at: it comes after the dice.
  for (let g = 0; g < shape.groups.length; g++) if (!written[g]) body = join(body, groupTerm(shape, g));
  if (shape.scaled.length > 0) {
    const terms = shape.scaled.map((t) => scaledTerm(shape, t)).join('+');
    body = shape.scaledFirst || body === '' ? (body === '' ? terms : `${terms}+${body}`) : `${body}+${terms}`;
  }
  body = appendModifiers(body, shape.mods);
  const { prefix, suffix } = scalingAffixes(shape);
  return prefix + (body === '' ? '0' : body) + suffix;
}

/**
 * The terms of some units (`units`: indices in order): runs of alike dice as NdX, sets with their operators;
 * at top level (`groupsWritten` given) a unit of a group stands for its whole group, written at its first unit.
 */
function writeUnits(shape: EquationShape, units: number[], groupsWritten: boolean[] | null): string {
  const { tokens, setOfUnit } = shape;
  let body = '';
  const written = setOfUnit === null ? null : new Array<boolean>(shape.setOps.length).fill(false);
  for (let k = 0; k < units.length;) {
    const i = units[k]!;
    const group = groupsWritten === null || shape.groupOfUnit === null ? -1 : shape.groupOfUnit[i]!;
    if (group >= 0) {
      if (!groupsWritten![group]) {
        groupsWritten![group] = true;
        body = join(body, groupTerm(shape, group));
      }
      k++;
      continue;
    }
    const token = tokens[i]!;
    const set = setOfUnit === null ? -1 : setOfUnit[i]!;
    if (set >= 0) {
      if (!written![set]) {
        written![set] = true;
        body = join(body, setTerm(tokens, setOfUnit!, set, units, formatOps(shape.setOps[set]!)));
      }
      k++;
      continue;
    }
    let j = k + 1;
    while (
      j < units.length &&
      tokens[units[j]!] === token &&
      (setOfUnit === null || setOfUnit[units[j]!]! < 0) &&
      (groupsWritten === null || shape.groupOfUnit === null || shape.groupOfUnit[units[j]!]! < 0)
    )
      j++;
    body = join(body, `${j - k}${token}`);
    k = j;
  }
  return body;
}

/** A roll group as rpg-dice-roller writes it: `{4d6+2d8, 3d20+3}kh1`. */
function groupTerm(shape: EquationShape, g: number): string {
  const group = shape.groups[g]!;
  const parts = group.parts.map((part) => {
    const units: number[] = [];
    for (let i = 0; i < shape.tokens.length; i++) if (shape.groupOfUnit![i] === g && shape.partOfUnit![i] === part.index) units.push(i);
    const body = appendModifiers(writeUnits(shape, units, null), part.mods);
    return body === '' ? '0' : body;
  });
  return `{${parts.join(', ')}}${group.ops}`;
}

/** Dice scaled on their own, as the SDK writes them: `(1d6+3)*2`, `(2d20kh1)*2`, `(1d8)/2`. */
function scaledTerm(shape: EquationShape, t: EquationShape['scaled'][number]): string {
  const inner = appendModifiers(writeUnits(shape, t.units, null), t.mods);
  return `(${inner === '' ? '0' : inner})${t.mul !== 1 ? `*${t.mul}` : ''}${t.div !== 1 ? `/${t.div}` : ''}`;
}

function join(body: string, term: string): string {
  return body === '' ? term : `${body}+${term}`;
}

/** A set's term: NdX when its dice are all alike, else d20's set of single dice. */
function setTerm(tokens: string[], setOfUnit: number[], set: number, units: number[], ops: string): string {
  const members = units.filter((i) => setOfUnit[i] === set);
  const first = members[0]!;
  if (members.every((i) => tokens[i] === tokens[first])) return `${members.length}${tokens[first]}${ops}`;
  return `(${members.map((i) => `1${tokens[i]}`).join(', ')})${ops}`;
}

/** A group's operators as written after its closing brace: `kh1`, `dh1`, `>=10f<3`, `sd`. */
export function formatGroupOps(steps: readonly { code: string; prefix: string; sels: readonly Selector[] }[]): string {
  let out = '';
  for (const step of steps) {
    for (const s of step.sels) out += step.prefix + (step.code === 'success' && s.cat === '=' ? '=' : '') + formatSelector(s);
  }
  return out;
}
