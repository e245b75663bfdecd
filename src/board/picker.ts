import type { DieInput, Theme } from '../client';

/** A die the picker offers: the theme's die id and how an equation writes it. */
export interface PickerDie {
  id: string;
  notation: string;
}

/** The standard set, for a board that could not read its themes. */
export const STANDARD_PICKER: PickerDie[] = ['d4', 'd6', 'd8', 'd10', 'd12', 'd20', 'd100', 'd2'].map((id) => ({ id, notation: id }));

/**
 * The buttons for a theme: its `available_dice` (their notation, which the server reads back), and a
 * d100 when it has both halves (a d10x and a d10), which replaces the lone d10x button.
 */
export function pickerDice(theme: Pick<Theme, 'available_dice'> | null | undefined): PickerDie[] {
  if (!theme?.available_dice?.length) return STANDARD_PICKER;
  const dice = theme.available_dice.map((d) => (typeof d === 'string' ? { id: d, notation: d } : { id: d.id, notation: d.notation || d.id }));
  const ids = new Set(dice.map((d) => d.id.toLowerCase()));
  if (!(ids.has('d10x') && ids.has('d10'))) return dice;
  return [...dice.filter((d) => d.id.toLowerCase() !== 'd10x'), { id: 'd100', notation: 'd100' }];
}

/**
 * How an equation writes a die: `d6`-like ids as they are, any other id in braces (`{fate}`). By id, not
 * notation: the server's parser finds custom dice by id (a braced notation such as `{dF}` is refused).
 */
function token(die: PickerDie): string {
  return /^d\d+x?$/i.test(die.id) ? die.id : `{${die.id}}`;
}

/** `{d6: 2, d20: 1}` -> `2d6+1d20`, in picker order. */
export function equationOf(counts: Record<string, number>, dice: PickerDie[] = STANDARD_PICKER): string {
  return dice
    .filter((d) => (counts[d.id] ?? 0) > 0)
    .map((d) => `${counts[d.id]}${token(d)}`)
    .join('+');
}

const TERM = /^([+-]?)(?:(\d{0,3})(?:d(\d{1,3}x?|%)|\{([^{}]{1,64})\})|(\d{1,6}))$/i;

/**
 * A plain sum (`2d6+1d20-1`, `2{dF}`) as a `dice` array, so each die can be marked hidden when created:
 * an equation cannot carry `is_hidden`. Answers null for anything with operators (kh3, rr1...),
 * which only the server's parser understands. Braced names are matched to die ids by notation.
 */
export function diceOfPlainSum(equation: string, theme: string, hidden: boolean, dice: PickerDie[] = STANDARD_PICKER): DieInput[] | null {
  const compact = equation.replace(/\s+/g, '');
  if (!compact) return null;
  const terms = compact.match(/[+-]?[^+-]+/g);
  if (!terms) return null;
  const out: DieInput[] = [];
  for (const term of terms) {
    const m = TERM.exec(term);
    if (!m) return null;
    const [, sign, count, sides, named, flat] = m;
    if (flat !== undefined) {
      out.push({ type: 'mod', theme, value: Number(sign === '-' ? `-${flat}` : flat), is_hidden: hidden });
      continue;
    }
    if (sign === '-') return null;
    const n = count ? Number(count) : 1;
    if (n < 1 || out.length + n > 100) return null;
    const type =
      named !== undefined
        ? (dice.find((d) => d.notation.toLowerCase() === named.toLowerCase() || d.id.toLowerCase() === named.toLowerCase())?.id ?? named)
        : null;
    for (let i = 0; i < n; i++) {
      if (type) out.push({ type, theme, is_hidden: hidden });
      else if (sides === '%' || sides === '100') out.push({ type: 'd10x', theme, is_hidden: hidden }, { type: 'd10', theme, is_hidden: hidden });
      else out.push({ type: `d${sides!.toLowerCase()}`, theme, is_hidden: hidden });
    }
  }
  return out.some((d) => d.type !== 'mod') ? out : null;
}
