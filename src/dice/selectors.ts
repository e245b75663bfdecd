/**
 * d20 selectors: `hN` (highest N), `lN` (lowest N), `N` (dice showing N), `>N`, `<N`; and the compare
 * points of rpg-dice-roller's grammar, `>=N`, `<=N` and `=N` (written back as read: `=N` stays `=N`).
 */
import { MAX_OPERAND_LENGTH, MAX_SELECTORS_PER_OPERATOR } from './budget';
import { DiceError } from './errors';

/** `max`: the die's highest number (an explosion without a compare point), `any`: every number (`u`); written as nothing. */
export type SelectorCat = 'h' | 'l' | '>' | '<' | '=' | '>=' | '<=' | '==' | 'max' | 'any' | 'asc' | 'desc';

export interface Selector {
  cat: SelectorCat;
  num: number;
}

/** Selector numbers beyond this are typos, and bigger ones would print in exponent form. */
export const MAX_SELECTOR_NUM = 1_000_000_000;

const ONE_SELECTOR = /^(>=|<=|=|[hl<>]?)(-?\d{1,10})$/;

/**
 * Reads an operand: one selector (`h3`, `>4`, `1`) or several separated by commas (`h1,l1`, the object
 * form of d20's `kh1kl1`). A number operand is a literal selector.
 */
// Requests repeat the same few operands ("h1", "h3", "6"); parsed lists are shared, so callers must treat
// them as read-only (they are typed so). Not frozen: V8 copies and iterates frozen arrays on a slow path.
const cache = new Map<string, readonly Selector[]>();
const CACHE_SIZE = 256;

export function parseSelectors(operand: string | number, path: string): readonly Selector[] {
  if (typeof operand === 'string') {
    if (operand.length > MAX_OPERAND_LENGTH) {
      throw new DiceError('invalid_operator', path, `An operand may be at most ${MAX_OPERAND_LENGTH} characters long.`);
    }
    const hit = cache.get(operand);
    if (hit !== undefined) return hit;
    const sels = parseUncached(operand, path);
    if (cache.size >= CACHE_SIZE) cache.clear();
    cache.set(operand, sels);
    return sels;
  }
  return parseUncached(operand, path);
}

function parseUncached(operand: string | number, path: string): Selector[] {
  if (typeof operand === 'number') {
    if (!Number.isInteger(operand) || Math.abs(operand) > MAX_SELECTOR_NUM) {
      throw new DiceError('invalid_operator', path, `${operand} is not a whole number a die could show.`);
    }
    return [{ cat: '=', num: operand }];
  }
  if (typeof operand !== 'string' || operand.trim() === '') {
    throw new DiceError('invalid_operator', path, 'An operator needs a selector such as "h3", "l1", "6", ">4" or "<2".');
  }
  const out: Selector[] = [];
  for (const piece of operand.split(',')) {
    const m = ONE_SELECTOR.exec(piece.trim().toLowerCase());
    const num = m ? Number(m[2]) : NaN;
    if (!m || Math.abs(num) > MAX_SELECTOR_NUM || ((m[1] === 'h' || m[1] === 'l') && num < 0)) {
      throw new DiceError(
        'invalid_operator',
        path,
        `"${piece.trim()}" is not a selector; use hN (highest N), lN (lowest N), N (dice showing N), >N, <N, >=N, <=N or =N.`,
      );
    }
    out.push({ cat: (m[1] === '=' ? '==' : m[1] || '=') as SelectorCat, num });
  }
  refuseManySelectors(out.length, path);
  return out;
}

/** Refuses an operator holding more than MAX_SELECTORS_PER_OPERATOR selectors (each costs a pass over the dice). */
export function refuseManySelectors(count: number, path: string): void {
  if (count > MAX_SELECTORS_PER_OPERATOR) {
    throw new DiceError(
      'invalid_operator',
      path,
      `An operator may hold at most ${MAX_SELECTORS_PER_OPERATOR} selectors on the same dice; this one has ${count}.`,
    );
  }
}

/** How an operator code is written before its selector: a compare point stands alone, a failure is `f`. */
export function opPrefix(code: string): string {
  return code === 'success' ? '' : code === 'failure' ? 'f' : code;
}

/** A selector as d20 writes it after its operator: `h3`, `>4`, `6`. */
export function formatSelector(s: Selector): string {
  if (s.cat === '=') return String(s.num);
  if (s.cat === 'max' || s.cat === 'any' || s.cat === 'asc') return '';
  if (s.cat === 'desc') return 'd';
  return s.cat === '==' ? `=${s.num}` : `${s.cat}${s.num}`;
}

/** Whether a number matches a value selector (`N`, `>N`, `<N`); h/l are not value selectors. */
export function matchesValue(s: Selector, v: number): boolean {
  switch (s.cat) {
    case '=':
    case '==':
      return v === s.num;
    case '>':
      return v > s.num;
    case '<':
      return v < s.num;
    case '>=':
      return v >= s.num;
    case '<=':
      return v <= s.num;
    default:
      return false;
  }
}

/** What selecting with `sels` from `n` dice costs: one test per die and selector, plus a sort for hN/lN. */
export function selectCost(n: number, sels: readonly Selector[]): number {
  let cost = 0;
  for (const s of sels) cost += s.cat === 'h' || s.cat === 'l' ? n + sortCost(n) : n;
  return cost;
}

/** Comparisons a sort of n items makes, about. */
export function sortCost(n: number): number {
  return n < 2 ? 0 : n * Math.ceil(Math.log2(n));
}
