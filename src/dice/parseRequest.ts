/**
 * The parser's dice and groups as a roll request: `dice` and the d20-keyed `operator` object (contract in
 * parse.ts), or a 400 for equations the object cannot say. The types of what the parser read live here,
 * below parse.ts, so that the parser imports this module and not the other way round.
 */
import { DiceError } from './errors';
import type { OpCode } from './planTypes';
import type { RoundMode } from './scaling';
import { formatSelector, type Selector } from './selectors';
import type { GroupInput, OperatorInput } from './types';

export interface EquationDie {
  type: string;
  /** only for `mod`: the modifier */
  value?: number;
}

export interface ParsedEquation {
  dice: EquationDie[];
  operator?: OperatorInput;
}

/** `key`: how a group's drop was written (`d` or `p`), kept so the equation is written back as read. */
export interface Op {
  code: OpCode;
  sels: Selector[];
  key?: string;
}
/** Dice an operator list acts on: indices into the parsed dice. */
export interface Group {
  indices: number[];
  ops: Op[];
}
/** An rpg-dice-roller roll group: per part, indices into the parsed dice (modifiers included). */
export interface RollGroup {
  parts: number[][];
  ops: Op[];
}

/** A term's `*` and `/`: dice [from, to) of the parsed dice. */
export interface TermScale {
  from: number;
  to: number;
  mul: number | null;
  div: number | null;
  depth: number;
}

/** What the parser read. */
export interface ParsedParts {
  dice: ParsedEquation['dice'];
  groups: Group[];
  rollGroups: RollGroup[];
  mods: number;
  mul: number | null;
  div: number | null;
  round: RoundMode | null;
  scales: readonly TermScale[];
}

/** The parsed dice and groups as request dice and an operator object (see the contract above). */
export function toRequest(p: ParsedParts): ParsedEquation {
  const { dice, groups } = p;
  if (groups.length === 0 && p.rollGroups.length === 0 && p.mul === null && p.div === null && p.round === null && p.scales.length === 0) return { dice };
  const diceWithoutMods = dice.length - p.mods;
  const operator: OperatorInput = {};
  const onAll = groups.length === 1 && groups[0]!.indices.length === diceWithoutMods;
  for (const code of operatorOrder(groups)) {
    if (onAll) {
      operator[code] = operand(groups[0]!.ops.find((o) => o.code === code)!);
      continue;
    }
    // An operand maps to its dice, or to a list of sets when several sets share it ({4d6kh3, 4d6kh3}).
    const byOperand: Record<string, number[][]> = {};
    for (const g of groups) {
      const op = g.ops.find((o) => o.code === code);
      if (op === undefined) continue;
      const key = String(operand(op));
      (byOperand[key] ??= []).push(g.indices);
    }
    const out: Record<string, number[] | number[][]> = {};
    for (const key of Object.keys(byOperand)) out[key] = byOperand[key]!.length === 1 ? byOperand[key]![0]! : byOperand[key]!;
    operator[code] = out;
  }
  if (p.rollGroups.length > 0) operator.groups = p.rollGroups.map(groupInput);
  const dieMul = dieScaleForm(p.scales, 'mul');
  const dieDiv = dieScaleForm(p.scales, 'div');
  if ((dieMul !== null && p.mul !== null) || (dieDiv !== null && p.div !== null)) {
    refuse('The operator object cannot scale the whole roll and some of its dice with the same * or /; scale the terms instead');
  }
  if (p.mul !== null) operator['*'] = p.mul;
  else if (dieMul !== null) operator['*'] = dieMul;
  if (p.div !== null) operator['/'] = p.div;
  else if (dieDiv !== null) operator['/'] = dieDiv;
  if (p.round !== null) operator.round = p.round;
  return Object.keys(operator).length > 0 ? { dice, operator } : { dice };
}

/** Terms' `*` (or `/`) as the SDK's object form: factor -> indices of the dice it scales; null when none. */
function dieScaleForm(scales: readonly TermScale[], which: 'mul' | 'div'): Record<string, number[]> | null {
  let out: Record<string, number[]> | null = null;
  for (const sc of scales) {
    const f = sc[which];
    if (f === null) continue;
    const list = ((out ??= {})[String(f)] ??= []);
    for (let i = sc.from; i < sc.to; i++) list.push(i);
  }
  if (out !== null) for (const key of Object.keys(out)) out[key]!.sort((a, b) => a - b);
  return out;
}

const REPEAT = 'The operator object cannot repeat an operator on the same dice with another in between; combine them or roll separately';

function refuse(message: string): never {
  throw new DiceError('invalid_equation', 'equation', `${message}.`);
}

/** A roll group as the operator object's `groups` entry: its parts, then its operators as written. */
function groupInput(g: RollGroup): GroupInput {
  const out: GroupInput = { parts: g.parts };
  for (const op of g.ops) {
    const key = op.key ?? op.code;
    if (Object.hasOwn(out, key)) refuse(REPEAT);
    out[key] = operand(op);
  }
  return out;
}

function operand(op: Op): string | number {
  if (op.code === 'mi' || op.code === 'ma') return op.sels[op.sels.length - 1]!.num;
  return op.sels.map(formatSelector).join(',');
}

/**
 * One order of operator keys that every group's order agrees with (the object has one order for all), or a
 * 400 when the groups disagree or a group repeats an operator.
 */
function operatorOrder(groups: { ops: Op[] }[]): OpCode[] {
  if (groups.length === 1 && groups[0]!.ops.length === 1) return [groups[0]!.ops[0]!.code];
  if (groups.length === 1) {
    const codes = groups[0]!.ops.map((o) => o.code);
    if (new Set(codes).size !== codes.length) refuse(REPEAT);
    return codes;
  }
  const seen: OpCode[] = [];
  const after = new Map<OpCode, Set<OpCode>>();
  for (const g of groups) {
    const codes = g.ops.map((o) => o.code);
    if (new Set(codes).size !== codes.length) {
      refuse(REPEAT);
    }
    codes.forEach((c, i) => {
      if (!seen.includes(c)) seen.push(c);
      if (!after.has(c)) after.set(c, new Set());
      for (const later of codes.slice(i + 1)) after.get(c)!.add(later);
    });
  }
  const order: OpCode[] = [];
  const left = [...seen];
  while (left.length > 0) {
    // the first code (in order of appearance) that no remaining code must precede
    const i = left.findIndex((c) => !left.some((o) => o !== c && after.get(o)!.has(c)));
    if (i < 0) refuse('These groups of dice run their operators in different orders, which the operator object cannot say');
    order.push(left.splice(i, 1)[0]!);
  }
  return order;
}
