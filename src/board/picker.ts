import type { DieInput } from '../client';

/** The dice picker's buttons: what the standard theme offers (a d100 is a d10x + d10 pair). */
export const PICKER_DICE = ['d4', 'd6', 'd8', 'd10', 'd12', 'd20', 'd100', 'd2'] as const;

/** `{d6: 2, d20: 1}` -> `2d6+1d20`, in picker order. */
export function equationOf(counts: Record<string, number>): string {
  return PICKER_DICE.filter((d) => (counts[d] ?? 0) > 0)
    .map((d) => `${counts[d]}${d}`)
    .join('+');
}

const TERM = /^([+-]?)(?:(\d{0,3})d(\d{1,3}|%)|(\d{1,6}))$/i;

/**
 * A plain sum (`2d6+1d20-1`) as a `dice` array, so each die can be marked hidden when created:
 * an equation cannot carry `is_hidden`. Answers null for anything with operators (kh3, rr1...),
 * which only the server's parser understands.
 */
export function diceOfPlainSum(equation: string, theme: string, hidden: boolean): DieInput[] | null {
  const compact = equation.replace(/\s+/g, '');
  if (!compact) return null;
  const terms = compact.match(/[+-]?[^+-]+/g);
  if (!terms) return null;
  const dice: DieInput[] = [];
  for (const term of terms) {
    const m = TERM.exec(term);
    if (!m) return null;
    const [, sign, count, sides, flat] = m;
    if (flat !== undefined) {
      dice.push({ type: 'mod', theme, value: Number(sign === '-' ? `-${flat}` : flat), is_hidden: hidden });
      continue;
    }
    if (sign === '-') return null;
    const n = count ? Number(count) : 1;
    if (n < 1 || dice.length + n > 100) return null;
    for (let i = 0; i < n; i++) {
      if (sides === '%' || sides === '100') {
        dice.push({ type: 'd10x', theme, is_hidden: hidden }, { type: 'd10', theme, is_hidden: hidden });
      } else {
        dice.push({ type: `d${sides}`, theme, is_hidden: hidden });
      }
    }
  }
  return dice.some((d) => d.type !== 'mod') ? dice : null;
}
