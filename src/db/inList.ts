/** IN lists of at most this many values (SQLite's default limit on parameters is 999 in old builds). */
export const IN_LIST_MAX = 400;

/** `items` in slices of at most `size`: one query per slice when an IN list could grow past the limit. */
export function chunks<T>(items: readonly T[], size = IN_LIST_MAX): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
