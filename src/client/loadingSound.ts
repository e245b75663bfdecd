/**
 * `roll.loading` sounds (docs/spec.md §2.3.2) are the shake sounds played while dice are about to be thrown. Their
 * `value` says for which hand sizes, the number of dice thrown in the roll, as dddice's theme editor
 * writes it: an operator and a hand size. One parser, used by the server to accept manifests
 * (src/themes/manifest/manifest.ts) and by renderers to pick the sound (docs/api/themes.md, "Sounds").
 *
 * Forms: a number or numeric string (exactly N), `=N` or `==N` (exactly N), `>=N`, `>N`, `<=N`, `<N`;
 * spaces around the operator are allowed. Anything else is null (refused by the server).
 */

export type LoadingOperator = '==' | '>=' | '>' | '<=' | '<';

/** A `roll.loading` value in its normalised form: `{op: '>=', count: 3}` for ">=3". */
export interface LoadingCondition {
  op: LoadingOperator;
  count: number;
}

const FORM = /^\s*(==|=|>=|>|<=|<)?\s*(-?\d+(?:\.\d+)?)\s*$/;

/** The normalised condition of a `roll.loading` value, or null when it is not one of the accepted forms. */
export function loadingCondition(value: unknown): LoadingCondition | null {
  if (typeof value === 'number') return Number.isFinite(value) ? { op: '==', count: value } : null;
  if (typeof value !== 'string' || value.length > 32) return null;
  const m = FORM.exec(value);
  if (!m) return null;
  const op = (m[1] === undefined || m[1] === '=' ? '==' : m[1]) as LoadingOperator;
  return { op, count: Number(m[2]) };
}

/** Whether a `roll.loading` sound with this value plays for a roll throwing `handSize` dice. No value: always. */
export function loadingSoundPlays(value: unknown, handSize: number): boolean {
  if (value === undefined || value === null) return true;
  const c = loadingCondition(value);
  if (!c) return false;
  switch (c.op) {
    case '==':
      return handSize === c.count;
    case '>=':
      return handSize >= c.count;
    case '>':
      return handSize > c.count;
    case '<=':
      return handSize <= c.count;
    case '<':
      return handSize < c.count;
  }
}
