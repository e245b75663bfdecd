/**
 * A roll group's equation without the modifiers a viewer may not see (hidden.ts does the modifiers outside
 * groups). It reads the equation the way equation.ts writes it, and nothing else:
 * - a group is `{part, part}ops`, written where its first die stands (groups of modifiers only last, in
 *   `operator.groups` order); a custom die's braces follow its count (`2{df}`), a group's never do;
 * - parts are separated by ", " outside parentheses and braces; a part ends with its modifiers in request
 *   order (appendModifiers), and a part left with nothing reads `0`.
 * Anything else answers null, and the viewer gets no equation rather than a secret.
 */
import { appendModifiers } from './scaling';
import type { StoredGroup } from './tally';

export interface GroupModifier {
  type: string;
  dieIndex: number;
  isHidden: boolean;
  numericValue: number | null | undefined;
}

interface Span {
  start: number;
  end: number;
  parts: string[];
  open: number;
  close: number;
}

/** The groups' spans in the text, in written order; null when the braces do not balance. */
function groupSpans(eq: string): Span[] | null {
  const spans: Span[] = [];
  for (let i = 0; i < eq.length; i++) {
    if (eq[i] !== '{') continue;
    const custom = i > 0 && eq[i - 1]! >= '0' && eq[i - 1]! <= '9';
    let depth = 0;
    let j = i;
    for (; j < eq.length; j++) {
      if (eq[j] === '{' || eq[j] === '(') depth++;
      else if (eq[j] === '}' || eq[j] === ')') depth--;
      if (depth === 0) break;
    }
    if (j >= eq.length) return null;
    if (!custom) {
      // Split the inside at ", " where only the group's own brace is open.
      const parts: string[] = [];
      let from = i + 1;
      let d = 0;
      for (let k = i + 1; k < j; k++) {
        const c = eq[k];
        if (c === '{' || c === '(') d++;
        else if (c === '}' || c === ')') d--;
        else if (d === 0 && c === ',' && eq[k + 1] === ' ') {
          parts.push(eq.slice(from, k));
          from = k + 2;
        }
      }
      parts.push(eq.slice(from, j));
      spans.push({ start: i, end: j + 1, parts, open: i, close: j });
    }
    i = j;
  }
  return spans;
}

/** The equation with the hidden modifiers of every group taken out, or null when its shape is not the writer's. */
export function withoutHiddenGroupMods(eq: string, groups: readonly StoredGroup[], values: readonly GroupModifier[]): string | null {
  const modsOf = new Map<number, GroupModifier>();
  const diceOf = new Map<number, boolean>();
  for (const v of values) {
    if (v.type === 'mod') modsOf.set(v.dieIndex, v);
    else diceOf.set(v.dieIndex, true);
  }
  // Written order: groups with dice by their first die, then groups of modifiers only, in their order.
  const firstDie = groups.map((g) => Math.min(...g.parts.flat().filter((i) => diceOf.has(i))));
  const order = groups
    .map((_, i) => i)
    .sort((a, b) => {
      const fa = firstDie[a]!;
      const fb = firstDie[b]!;
      if (Number.isFinite(fa) && Number.isFinite(fb)) return fa - fb;
      if (Number.isFinite(fa) !== Number.isFinite(fb)) return Number.isFinite(fa) ? -1 : 1;
      return a - b;
    });
  const spans = groupSpans(eq);
  if (spans === null || spans.length !== groups.length) return null;
  let out = '';
  let at = 0;
  for (let s = 0; s < spans.length; s++) {
    const span = spans[s]!;
    const group = groups[order[s]!]!;
    if (span.parts.length !== group.parts.length) return null;
    const parts: string[] = [];
    for (let p = 0; p < group.parts.length; p++) {
      const mods = group.parts[p]!.filter((i) => modsOf.has(i))
        .sort((a, b) => a - b)
        .map((i) => modsOf.get(i)!);
      const text = span.parts[p]!;
      const numbers = mods.map((m) => m.numericValue ?? 0);
      let dice: string;
      if (mods.length === 0) dice = text;
      else if (text === appendModifiers('', numbers)) dice = '';
      else {
        const suffix = appendModifiers('x', numbers).slice(1);
        if (!text.endsWith(suffix) || text.length === suffix.length) return null;
        dice = text.slice(0, text.length - suffix.length);
      }
      const body = appendModifiers(
        dice,
        mods.filter((m) => !m.isHidden).map((m) => m.numericValue ?? 0),
      );
      parts.push(body === '' ? '0' : body);
    }
    out += eq.slice(at, span.open) + `{${parts.join(', ')}}`;
    at = span.close + 1;
  }
  return out + eq.slice(at);
}
