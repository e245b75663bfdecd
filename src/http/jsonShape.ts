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

function childPath(parent: string, key: string, isArray: boolean): string {
  if (isArray) return `${parent}[${key}]`;
  return parent ? `${parent}.${key}` : key;
}

/**
 * The first place where `value` nests deeper than `maxDepth` or has a `__proto__` key, or null. Iterative
 * (an explicit stack), so it cannot overflow on the values it exists to refuse.
 */
export function jsonShapeProblem(value: unknown, prefix = '', maxDepth = MAX_JSON_DEPTH): ShapeProblem | null {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: prefix, depth: 1 }];
  while (stack.length > 0) {
    const { value: v, path, depth } = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    const where = path || 'the body';
    if (depth > maxDepth) {
      return { path, message: `${where} is nested too deeply: JSON may nest objects and arrays ${maxDepth} levels deep at most` };
    }
    const isArray = Array.isArray(v);
    for (const key of Object.keys(v)) {
      if (!isArray && key === '__proto__') {
        const at = childPath(path, key, false);
        return { path: at, message: `${at} is not an accepted key` };
      }
      stack.push({ value: (v as Record<string, unknown>)[key], path: childPath(path, key, isArray), depth: depth + 1 });
    }
  }
  return null;
}
