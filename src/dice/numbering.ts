/**
 * How a die's `value` numbers its faces on the wire, as dddice and its SDK number them, so a client reads
 * back what it sent:
 * - most dice: the face's 1-based position among the die's faces (a standard d20's 17 is face 17);
 * - `d10x`, the percentile tens die: its tens digit, 1 to 9, and 10 for the face 00 (`5` is the face 50);
 * - fate dice (`df`, `df.1`, `df.2`): the face's own number, -1, 0 or 1.
 * A d10x or fate die's face that is not such a number (a theme's image, a word) keeps its position.
 *
 * The engine and the rolls store keep the face's position (RolledValue.value); `wireValue` is what answers
 * show, for rolls stored before this numbering too, and `faceOfValue` reads a predetermined `value` back.
 * Which numbering applies goes by the die's type as requested (lower case), as every value carries it.
 */
import type { WorkBudget } from './budget';
import { faceNumber, type PreparedDie } from './faces';
import type { Face } from './types';

export type Numbering = 'position' | 'tens' | 'fate';

/** The numbering of a die type (lower case), as a value's `type` names it. */
export function numberingOf(type: string): Numbering {
  if (type === 'd10x') return 'tens';
  return type === 'df' || type === 'df.1' || type === 'df.2' ? 'fate' : 'position';
}

/** The dddice number of a face, or null when the face keeps its position under that numbering. */
function numberOfFace(numbering: Numbering, face: Face): number | null {
  if (numbering === 'position') return null;
  const n = faceNumber(face);
  if (n === null) return null;
  if (numbering === 'fate') return n === -1 || n === 0 || n === 1 ? n : null;
  return n >= 0 && n <= 90 && n % 10 === 0 ? (n === 0 ? 10 : n / 10) : null;
}

/** The `value` an answer shows for a die of type `type` showing `face` at 1-based `position`. */
export function wireValue(type: string, position: number, face: Face): number {
  // Every value of every answer passes here: a d10x and a fate die have "1" or "f" second, most dice not.
  const second = type.charCodeAt(1) | 0x20;
  if (second !== 0x31 && second !== 0x66) return position;
  return numberOfFace(numberingOf(type.toLowerCase()), face) ?? position;
}

/**
 * The 0-based face a predetermined `value` names for a die requested as `type` (lower case, as values
 * carry it): the first face whose wireValue it is, or -1 for none. Scanning a d10x's or fate die's faces
 * is charged to the roll's budget.
 */
export function faceOfValue(die: PreparedDie, type: string, value: number, budget: WorkBudget): number {
  const numbering = numberingOf(type);
  const faces = die.def.faces;
  if (numbering !== 'position') {
    budget.spend(die.size);
    for (let f = 0; f < faces.length; f++) if (numberOfFace(numbering, faces[f]!) === value) return f;
  }
  // A face without a dddice number keeps its position, and so does every face of most dice.
  if (!Number.isInteger(value) || value < 1 || value > die.size) return -1;
  return numberOfFace(numbering, faces[value - 1]!) === null ? value - 1 : -1;
}

/** What `value` may be for a die, in words, for the refusal. */
export function describeValues(die: PreparedDie, type: string): string {
  switch (numberingOf(type)) {
    case 'tens':
      return `a d10x's value is its tens digit, 1 to 9, or 10 for 00`;
    case 'fate':
      return `a fate die's value is its face, -1, 0 or 1`;
    default:
      return `value is the face's position on the die, 1 to ${die.size} for ${die.def.id}`;
  }
}
