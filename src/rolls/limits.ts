/**
 * What a roll may store of its caller's own data, and so send to every member of its room with each
 * roll event (docs/api/rolls.md, "Size limits"; docs/reliability.md, "Request and storage limits").
 * Each free-form field has a bound of its own (schema.ts); the budget below bounds what rerolls and
 * explosions multiply: every value rolled for a die carries that die's `label` and `meta`.
 */

/** A die's `meta`, as JSON. */
export const MAX_META_BYTES = 2048;
/** The operator object, as JSON: the SDK's and d20's operators over 100 dice's indices fit in well under 1 KiB. */
export const MAX_OPERATOR_BYTES = 4096;
/** A face given as an object (`{"src": "d20-1.png"}`), as JSON: a file name and a few keys. */
export const MAX_FACE_BYTES = 1024;
/** `label` and `meta` of every value of a roll together (rerolls and explosions included), in bytes. */
export const MAX_CARRIED_BYTES = 16 * 1024;

/** Bytes of a value as JSON in UTF-8 (0 for null or absent). */
export function jsonBytes(value: unknown): number {
  if (value === null || value === undefined) return 0;
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}

interface Carrier {
  label?: string | null;
  meta?: unknown;
}

/**
 * The bytes of `label` and `meta` the items carry together. Values rolled for one die share that die's
 * objects: each distinct object is measured once, however many values carry it.
 */
export function carriedBytes(items: readonly Carrier[]): number {
  const measured = new Map<object, number>();
  const metaBytes = (meta: unknown): number => {
    if (meta === null || typeof meta !== 'object') return jsonBytes(meta);
    let n = measured.get(meta);
    if (n === undefined) measured.set(meta, (n = jsonBytes(meta)));
    return n;
  };
  let total = 0;
  for (const item of items) total += (item.label ? Buffer.byteLength(item.label, 'utf8') : 0) + metaBytes(item.meta);
  return total;
}

export function carriedTooLargeMessage(bytes: number, afterRolling: boolean): string {
  return afterRolling
    ? `This roll's values would carry ${bytes} bytes of label and meta with their rerolls and explosions (each carries its die's); at most ${MAX_CARRIED_BYTES}: send less meta or fewer labels.`
    : `The dice carry ${bytes} bytes of label and meta together; at most ${MAX_CARRIED_BYTES}.`;
}
