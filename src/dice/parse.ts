/**
 * parseEquation: a d20-syntax equation -> the `dice` and `operator` a roll request would carry.
 *
 * Grammar (whitespace allowed between terms; case-insensitive):
 *   equation := fn '(' body ')' | body                fn: floor -> round "down", ceil -> "up", round -> "nearest"
 *   body     := ['+'|'-'] term (('+'|'-') term)*
 *   term     := unscaled (('*' | '/') number)*       at most one of each; the whole roll's when the equation
 *                                                    is that one term ((1d20+5)*2, 1d20/2), else that term's
 *                                                    dice's alone ((1d6+3)*2+1d4: {"*": {"2": [0, 1]}})
 *   unscaled := number                               a modifier (1d20-2)
 *             | [count] die ops                      4d6kh3, d20, 2d100kl1, 3{df}
 *             | '(' die1 (',' die1)* ')' ops         a set of single dice: (1d20, 1d12)kh1
 *             | '(' body ')'                         grouping, added as if unparenthesised
 *             | '{' body (',' body)* '}' gops          an rpg-dice-roller roll group: {4d6+2d8, 3d20+3}kh1
 *   die      := 'd' digits ['x'] | 'd%' | '{' id '}'  d100 and d% are a d10x + d10 pair
 *             | 'd' letter ['.' digits]              a notation dX of the theme: 4dF, dF.1
 *   ops      := (('k'|'p'|'rr'|'ro'|'ra'|'e'|'mi'|'ma') selector | explode | compare | 'f' failure)*
 *   selector := 'h' n | 'l' n | '>' [-]n | '<' [-]n | [-]n
 *   explode  := ('!' | '!!' | '!p' | '!!p') [compare]  rpg-dice-roller's; without compare: the highest face
 *   compare  := ('=' | '>' | '>=' | '<' | '<=') [-]n  alone after dice: successes of a pool (8d10>=8)
 *   failure  := compare | [-]n                       f1, f<3: failures of a pool
 *   unique   := 'u' [compare]                        reroll duplicates (of numbers meeting compare)
 *   sort     := 's' ['a' | 'd']                      how results are shown; written s or sd
 *   gops     := (('k' | 'p' | 'd') selector | compare | 'f' failure | sort)*   a group's (groupPlan.ts)
 *
 * Result contract: `dice` lists request dice in the order written ({type} per die, {type: "mod", value} per
 * number), ready for rollDice once each gets the roller's theme. `operator` (absent when the equation has
 * none) uses d20's keys; an operator on all the dice is a string ("h3"), on some of them an object mapping
 * the selector to dice indices ({"h1": [0, 1]}); several selectors of one operator are comma-separated
 * ("h1,l1" for kh1kl1). Equations the operator object cannot say are refused (400 invalid_equation): one
 * operator twice on the same dice apart from each other (4d6kh3pl1kh1), the same operator and selector on
 * two groups (1d20kh1+1d20kh1), or two groups running operators in opposite orders.
 */
import { MAX_REQUEST_DICE, MAX_SELECTORS_PER_OPERATOR } from './budget';
import { DiceError } from './errors';
import { toRequest, type EquationDie, type Group, type Op, type ParsedEquation, type RollGroup, type TermScale } from './parseRequest';
import { isExplode, takesComparePoint, type OpCode } from './planTypes';
import type { RoundMode } from './scaling';
import { MAX_SELECTOR_NUM, type Selector, type SelectorCat } from './selectors';

export type { EquationDie, ParsedEquation } from './parseRequest';

/**
 * Characters an equation may have. Integrations send short ones (`2d20kh1+5`, `(1d6+3)*2`, `8d6`); 500 still
 * holds 100 dice written one by one (`1d4+1d6+...`) or a roll group of several parts with their operators.
 * The work budget (budget.ts), not this length, is what bounds the work of a roll; this bounds what is
 * parsed, cached and stored for a stranger's text.
 */
export const MAX_EQUATION_LENGTH = 500;

const GROUP_OPS: ReadonlySet<OpCode> = new Set<OpCode>(['k', 'p', 'success', 'failure', 's']);

/** What die() answers for a d100 (d100 or d%): a d10x + d10 pair. */
const PAIR = '%';
const FNS: [string, RoundMode][] = [
  ['floor', 'down'],
  ['ceil', 'up'],
  ['round', 'nearest'],
];

class Parser {
  private pos = 0;
  // The parser writes the request directly: dice in order and the groups operators act on.
  readonly dice: EquationDie[] = [];
  readonly groups: Group[] = [];
  readonly rollGroups: RollGroup[] = [];
  private inGroup = false;
  /** parentheses open around the term being read: only a top-level term's `*` may be the whole roll's */
  private depth = 0;
  /** `*` and `/` written after a term (`(1d6+3)*2+1d4`): the dice they scale, in order read */
  readonly scales: TermScale[] = [];
  mods = 0;
  mul: number | null = null;
  div: number | null = null;
  round: RoundMode | null = null;

  constructor(
    private readonly src: string,
    private readonly s: string,
  ) {}

  fail(message: string): never {
    const at = this.pos < this.s.length ? ` at "${this.src.slice(this.pos, this.pos + 12)}"` : ' at the end';
    throw new DiceError('invalid_equation', 'equation', `${message} (${this.src.trim()}: character ${this.pos + 1}${at}).`);
  }

  private ws(): void {
    while (this.pos < this.s.length && (this.s[this.pos] === ' ' || this.s[this.pos] === '\t')) this.pos++;
  }

  private peek(): string {
    return this.s[this.pos] ?? '';
  }

  private expect(c: string): void {
    this.ws();
    if (this.peek() !== c) this.fail(`Expected "${c}"`);
    this.pos++;
  }

  parse(): void {
    this.ws();
    const c = this.peek();
    for (const [name, mode] of c === 'f' || c === 'c' || c === 'r' ? FNS : []) {
      if (this.s.startsWith(name, this.pos)) {
        this.pos += name.length;
        this.expect('(');
        this.round = mode;
        this.scaled();
        this.expect(')');
        this.ws();
        if (this.pos < this.s.length) this.fail(`Nothing may follow ${name}(...)`);
        return;
      }
    }
    this.scaled();
    this.ws();
    if (this.pos < this.s.length) this.fail(`Unexpected "${this.peek()}"`);
  }

  /**
   * The whole equation: terms, each with its own `*` and `/` (term()). When there is only one term, its
   * `*` and `/` are the whole roll's (`(1d20+5)*2` is {"*": 2}); otherwise they scale the dice of their
   * term alone (`(1d6+3)*2+1d4` is {"*": {"2": [0, 1]}}, as the dddice SDK writes it).
   */
  private scaled(): void {
    const before = this.scales.length;
    const count = this.body();
    const last = this.scales[this.scales.length - 1];
    if (count === 1 && this.scales.length > before && last!.depth === 0) {
      this.scales.pop();
      this.mul = last!.mul;
      this.div = last!.div;
    }
    refuseTwiceScaled(this.scales, (m) => this.fail(m));
  }

  /** A term and the `*` and `/` written after it. */
  private term(sign: number): void {
    const from = this.dice.length;
    this.unscaledTerm(sign);
    let mul: number | null = null;
    let div: number | null = null;
    for (;;) {
      this.ws();
      const c = this.peek();
      if (c !== '*' && c !== '/') break;
      if (this.inGroup) this.fail('* and / cannot stand inside a group; put them around the whole roll');
      this.pos++;
      this.ws();
      const n = this.number(true);
      if (n === null) this.fail(`Expected a number after ${c}`);
      if (c === '*') {
        if (mul !== null) this.fail('Only one * is allowed after a term');
        mul = n;
      } else {
        if (div !== null) this.fail('Only one / is allowed after a term');
        if (n === 0) this.fail('Cannot divide by 0');
        div = n;
      }
    }
    if (mul !== null || div !== null) this.scales.push({ from, to: this.dice.length, mul, div, depth: this.depth });
  }

  /** Reads terms; returns how many top-level terms there were. */
  private body(): number {
    this.ws();
    let sign = 1;
    if (this.peek() === '+') this.pos++;
    else if (this.peek() === '-') {
      sign = -1;
      this.pos++;
    }
    let count = 0;
    for (;;) {
      this.ws();
      this.term(sign);
      count++;
      this.ws();
      const c = this.peek();
      if (c === '+') sign = 1;
      else if (c === '-') sign = -1;
      else return count;
      this.pos++;
    }
  }

  private unscaledTerm(sign: number): void {
    if (this.peek() === '(') return this.paren(sign, ')');
    if (this.peek() === '{' && this.isGroup()) return this.group(sign);
    const start = this.pos;
    const n = this.number(false);
    const c = this.peek();
    if (c === 'd' || c === '{') {
      if (n !== null && (!Number.isInteger(n) || n < 1)) {
        this.pos = start;
        this.fail('The number of dice must be a whole number from 1');
      }
      const count = n ?? 1;
      const die = this.die();
      if (this.dice.length + (die === PAIR ? 2 : 1) * count > MAX_REQUEST_DICE) {
        this.pos = start;
        this.fail(`A roll may have at most ${MAX_REQUEST_DICE} dice`);
      }
      const first = this.dice.length;
      for (let i = 0; i < count; i++) {
        if (die === PAIR) this.dice.push({ type: 'd10x' }, { type: 'd10' });
        else this.dice.push({ type: die });
      }
      const ops = this.ops(false);
      if (sign < 0) {
        this.pos = start;
        this.fail('Dice cannot be subtracted, only numbers (1d20-2)');
      }
      if (ops.length > 0) this.groups.push({ indices: range(first, this.dice.length), ops });
      return;
    }
    if (n === null) this.fail('Expected a die such as 1d20, or a number');
    if (this.dice.length + 1 > MAX_REQUEST_DICE) this.fail(`A roll may have at most ${MAX_REQUEST_DICE} dice`);
    this.dice.push({ type: 'mod', value: sign * n });
    this.mods++;
  }

  /**
   * Whether the brace here opens an rpg-dice-roller group (`{1d20, 1d20}kh1`, `{4d6+2d8}`) rather than a
   * custom die (`{df}`): its first part starts with a number or holds a comma or a sign. Die ids never do.
   */
  private isGroup(): boolean {
    const end = this.s.indexOf('}', this.pos);
    const inside = this.s.slice(this.pos + 1, end < 0 ? this.s.length : end);
    return /^\s*\d|[,+\-(]/.test(inside);
  }

  /**
   * rpg-dice-roller's roll group `{4d6+2d8, 3d20+3}kh1`: each part a body of its own (dice, their operators
   * and modifiers), then the group's operators (groupPlan.ts says what they do).
   */
  private group(sign: number): void {
    const start = this.pos;
    if (this.inGroup) this.fail('A group cannot hold another group');
    this.inGroup = true;
    this.pos++; // {
    const parts: number[][] = [];
    for (;;) {
      const from = this.dice.length;
      this.body();
      parts.push(range(from, this.dice.length));
      this.ws();
      if (this.peek() !== ',') break;
      this.pos++;
    }
    this.inGroup = false;
    if (this.peek() === '*' || this.peek() === '/') this.fail('* and / cannot stand inside a group; put them around the whole roll');
    this.expect('}');
    const ops = this.ops(true);
    if (sign < 0) {
      this.pos = start;
      this.fail('A group cannot be subtracted');
    }
    for (const op of ops) {
      if (!GROUP_OPS.has(op.code)) {
        this.pos = start;
        this.fail(
          `A group takes k, d (or p), a compare point, f and s; write ${op.code} inside its parts, as in {2d6${op.code === 'success' ? '>=5' : op.code}}`,
        );
      }
    }
    this.rollGroups.push({ parts, ops });
  }

  /** `( ... )` grouping, or a d20 set of single dice `(1d20, 1d12)kh1`. */
  private paren(sign: number, close: ')'): void {
    const start = this.pos;
    const firstDie = this.dice.length;
    const firstGroup = this.groups.length;
    this.pos++; // (
    this.depth++;
    let elements = 0;
    let singleDice = true; // every element so far is one die (or one d100) without operators
    for (;;) {
      const from = this.dice.length;
      const groups = this.groups.length;
      const scales = this.scales.length;
      const terms = this.body();
      elements++;
      const added = this.dice.length - from;
      const one = added === 1 && this.dice[from]!.type !== 'mod';
      const pair = added === 2 && this.dice[from]!.type === 'd10x' && this.dice[from + 1]!.type === 'd10';
      if (terms !== 1 || this.groups.length !== groups || this.scales.length !== scales || !(one || pair)) singleDice = false;
      this.ws();
      if (this.peek() !== ',') break;
      this.pos++;
    }
    this.expect(close);
    this.depth--;
    const ops = this.ops(false);
    if (elements === 1 && ops.length === 0) {
      // Grouping only: (1d20+5) adds like 1d20+5; -(2+3) subtracts numbers.
      if (sign < 0) {
        for (let i = firstDie; i < this.dice.length; i++) {
          const d = this.dice[i]!;
          if (d.type !== 'mod') {
            this.pos = start;
            this.fail('Dice cannot be subtracted, only numbers');
          }
          d.value = -d.value!;
        }
      }
      return;
    }
    // A d20 set: each element one die, the operators acting on the dice of the set.
    if (!singleDice || this.groups.length !== firstGroup) {
      this.pos = start;
      this.fail('In a set, write each die alone, as in (1d20, 1d12)kh1; a roll group {4d6+2d8, 3d20+3}kh1 takes whole sub-rolls');
    }
    if (sign < 0) {
      this.pos = start;
      this.fail('Dice cannot be subtracted, only numbers');
    }
    this.groups.push({ indices: range(firstDie, this.dice.length), ops });
  }

  /** A die after its count: its type, or PAIR for a d100. */
  private die(): string {
    if (this.peek() === '{') {
      const end = this.s.indexOf('}', this.pos);
      const id = end < 0 ? '' : this.s.slice(this.pos + 1, end).trim();
      if (id === '' || /[{()%]/.test(id)) this.fail('A custom die is written in braces, as in 2{df}');
      this.pos = end + 1;
      return id;
    }
    this.pos++; // d
    if (this.peek() === '%') {
      this.pos++;
      return PAIR;
    }
    // A theme's own notation dX or dX.N (fudge: dF, dF.1): the die whose id or notation that is.
    const letter = this.s.charCodeAt(this.pos);
    if (letter >= 97 && letter <= 122) {
      const m = /^[a-z](\.\d{1,3})?/.exec(this.s.slice(this.pos, this.pos + 5))!;
      this.pos += m[0].length;
      return `d${m[0]}`;
    }
    const start = this.pos;
    while (this.pos < this.s.length && this.pos - start < 7 && isDigit(this.s.charCodeAt(this.pos))) this.pos++;
    if (this.pos === start) this.fail('After "d" comes the number of faces (d20), % or a custom die in braces ({df})');
    const faces = String(Number(this.s.slice(start, this.pos)));
    if (this.peek() === 'x') {
      this.pos++;
      return `d${faces}x`;
    }
    return faces === '100' ? PAIR : `d${faces}`;
  }

  /** Operators after dice or, `afterGroup`, after a group's closing brace (where `d` is a drop: `dh1`). */
  private ops(afterGroup: boolean): Op[] {
    const ops: Op[] = [];
    for (;;) {
      const isD = afterGroup && this.peek() === 'd';
      const code = isD ? 'p' : this.opCode();
      if (code === null) return ops;
      this.pos += code === 'success' ? 0 : code === 'failure' ? 1 : code.length;
      const sel = code === 's' ? this.sortOrder() : takesComparePoint(code) ? this.comparePoint(code) : this.selector(isD ? 'd' : code);
      const key = code === 'p' && afterGroup ? (isD ? 'd' : 'p') : undefined;
      const last = ops[ops.length - 1];
      if (last !== undefined && last.code === code && last.key === key) {
        // d20: kh1kl1 is one keep. Each selector is one more pass over the dice, so they are counted.
        if (last.sels.length >= MAX_SELECTORS_PER_OPERATOR) {
          this.fail(`An operator may hold at most ${MAX_SELECTORS_PER_OPERATOR} selectors on the same dice`);
        }
        last.sels.push(sel);
      } else {
        ops.push(key === undefined ? { code, sels: [sel] } : { code, sels: [sel], key });
      }
    }
  }

  /** The operator at the current position, if any: k p e rr ro ra mi ma, ! !! !p !!p, a compare point, f. */
  private opCode(): OpCode | null {
    const s = this.s;
    const next = s[this.pos + 1];
    switch (s[this.pos]) {
      case '!':
        if (next === '!') return s[this.pos + 2] === 'p' ? '!!p' : '!!';
        return next === 'p' ? '!p' : '!';
      case '>':
      case '<':
      case '=':
        return 'success';
      case 'f':
        return 'failure';
      case 'u':
        return 'u';
      case 's':
        return 's';
      case 'k':
        return 'k';
      case 'p':
        return 'p';
      case 'e':
        return 'e';
      case 'r':
        return next === 'r' ? 'rr' : next === 'o' ? 'ro' : next === 'a' ? 'ra' : null;
      case 'm':
        return next === 'i' ? 'mi' : next === 'a' ? 'ma' : null;
      default:
        return null;
    }
  }

  /**
   * rpg-dice-roller's compare point: `=N`, `>N`, `>=N`, `<N`, `<=N`; after `f` also a bare N (`f1`);
   * an explosion without one explodes on the die's highest number.
   */
  private comparePoint(code: OpCode): Selector {
    const s = this.s;
    let cat: SelectorCat | null = null;
    for (const c of ['>=', '<=', '>', '<', '='] as const) {
      if (s.startsWith(c, this.pos)) {
        cat = c === '=' ? '==' : c;
        this.pos += c.length;
        break;
      }
    }
    if (cat === null) {
      if (isExplode(code)) return { cat: 'max', num: 0 };
      if (code === 'u') return { cat: 'any', num: 0 };
      if (code === 'failure') cat = '=';
      else this.fail('Expected a compare point such as >=8');
    }
    const n = this.number(true);
    if (n === null || !Number.isInteger(n) || Math.abs(n) > MAX_SELECTOR_NUM) this.fail('A compare point needs a whole number, as in >=8 or f1');
    return { cat, num: n };
  }

  /** After `s`: `a` (or nothing) ascending, `d` descending. */
  private sortOrder(): Selector {
    const c = this.peek();
    if (c === 'a' || c === 'd') this.pos++;
    return { cat: c === 'd' ? 'desc' : 'asc', num: 0 };
  }

  private selector(code: string): Selector {
    let cat: SelectorCat = '=';
    const c = this.peek();
    if (c === 'h' || c === 'l' || c === '>' || c === '<') {
      cat = c;
      this.pos++;
    }
    if ((cat === 'h' || cat === 'l') && this.peek() === '-') this.fail(`h and l take a count of dice`);
    const n = this.number(true);
    if (n === null || !Number.isInteger(n) || Math.abs(n) > MAX_SELECTOR_NUM) {
      this.fail(`"${code}" needs a selector: hN, lN, N, >N or <N`);
    }
    if ((code === 'mi' || code === 'ma') && cat !== '=') this.fail(`${code} takes a number, not a selector`);
    return { cat, num: n };
  }

  /** A decimal number (at most 10 digits, 15 after the point), optionally signed; null when none is here. */
  private number(signed: boolean): number | null {
    const start = this.pos;
    if (signed && this.peek() === '-') this.pos++;
    const digits = this.pos;
    while (this.pos < this.s.length && isDigit(this.s.charCodeAt(this.pos))) this.pos++;
    if (this.pos === digits) {
      this.pos = start;
      return null;
    }
    if (this.pos - digits > 10) this.fail('That number is too long');
    if (this.peek() === '.' && isDigit(this.s.charCodeAt(this.pos + 1))) {
      const frac = ++this.pos;
      while (this.pos < this.s.length && isDigit(this.s.charCodeAt(this.pos))) this.pos++;
      if (this.pos - frac > 15) this.fail('At most 15 digits may follow the decimal point');
    }
    return Number(this.s.slice(start, this.pos));
  }
}

/** A die takes one `*` and one `/` of its own at most: the operator object maps each die to one factor. */
function refuseTwiceScaled(scales: readonly TermScale[], fail: (message: string) => never): void {
  if (scales.length < 2) return;
  const mulOf = new Map<number, number>();
  const divOf = new Map<number, number>();
  for (const sc of scales) {
    for (let i = sc.from; i < sc.to; i++) {
      if ((sc.mul !== null && mulOf.has(i)) || (sc.div !== null && divOf.has(i))) {
        fail('A die may be multiplied once and divided once; write the factors as one number, as in (1d6)*6');
      }
      if (sc.mul !== null) mulOf.set(i, sc.mul);
      if (sc.div !== null) divOf.set(i, sc.div);
    }
  }
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

export function parseEquation(equation: string): ParsedEquation {
  if (typeof equation !== 'string' || equation.trim() === '') {
    throw new DiceError('invalid_equation', 'equation', 'The equation is empty; write one such as 1d20+5.');
  }
  if (equation.length > MAX_EQUATION_LENGTH) {
    throw new DiceError('invalid_equation', 'equation', `An equation may be at most ${MAX_EQUATION_LENGTH} characters long.`);
  }
  const p = new Parser(equation, equation.toLowerCase());
  p.parse();
  return toRequest(p);
}

function range(from: number, to: number): number[] {
  const out = new Array<number>(to - from);
  for (let i = from; i < to; i++) out[i - from] = i;
  return out;
}
