/**
 * Bounds on the shape of a parsed JSON value, checked before joi and before anything recursive sees it.
 *
 * JSON.parse builds a value 100,000 levels deep without trouble; joi, JSON.stringify, structuredClone and
 * Sequelize then recurse into it and overflow the stack, and that RangeError's text ("Maximum call stack
 * size exceeded") once reached a 400. No request of this API needs more than a handful of levels (the
 * deepest is a die's `meta`, caller data of 2 KB at most), so a generous fixed bound refuses the rest.
 *
 * Keys named `__proto__` are refused too: JSON.parse keeps one as an own key, but copying the object (joi
 * does, as does any `{...spread}` or assignment) turns it into the copy's prototype, so the key would be
 * silently dropped, or worse, change what other keys the copy seems to have.
 */

/** Levels of objects and arrays a JSON value may nest (the value itself is level 1). */
export const MAX_JSON_DEPTH = 32;

export interface ShapeProblem {
  /** where, as validate.ts writes paths: `dice[0].meta.a` ('' for the whole value) */
  path: string;
  message: string;
}

/** A container still to look at, and how it was reached (its path is written only if it is refused). */
interface Frame {
  value: object;
  depth: number;
  key: string | number;
  parent: Frame | null;
}

function pathOf(frame: Frame | null, prefix: string, extra?: string): string {
  const parts: (string | number)[] = extra === undefined ? [] : [extra];
  for (let f = frame; f !== null && f.parent !== null; f = f.parent) parts.push(f.key);
  let out = prefix;
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i]!;
    out += typeof part === 'number' ? `[${part}]` : out ? `.${part}` : part;
  }
  return out;
}

/**
 * The first place where `value` nests deeper than `maxDepth` or has a `__proto__` key, or null. Iterative
 * (an explicit stack), so it cannot overflow on the values it exists to refuse; only containers are
 * visited, and paths are written only for the answer, so a large flat body costs one pass over its keys.
 */
export function jsonShapeProblem(value: unknown, prefix = '', maxDepth = MAX_JSON_DEPTH): ShapeProblem | null {
  if (value === null || typeof value !== 'object') return null;
  const stack: Frame[] = [{ value, depth: 1, key: '', parent: null }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if (frame.depth > maxDepth) {
      const path = pathOf(frame, prefix);
      return { path, message: `${path || 'the body'} is nested too deeply: JSON may nest objects and arrays ${maxDepth} levels deep at most` };
    }
    const v = frame.value;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const child: unknown = v[i];
        if (child !== null && typeof child === 'object') stack.push({ value: child, depth: frame.depth + 1, key: i, parent: frame });
      }
      continue;
    }
    for (const key in v) {
      if (!Object.hasOwn(v, key)) continue;
      if (key === '__proto__') {
        const path = pathOf(frame, prefix, key);
        return { path, message: `${path} is not an accepted key` };
      }
      const child: unknown = (v as Record<string, unknown>)[key];
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth: frame.depth + 1, key, parent: frame });
    }
  }
  return null;
}
