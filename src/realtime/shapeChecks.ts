/**
 * Small shape checks for untrusted values (websocket frames, Socket.IO payloads, Redis messages):
 * fields are read as the type they must have, or not at all. Nothing here calls a method of the value
 * (String(x), `${x}`, x.toString()): a parsed JSON object can carry its own `toString` or `valueOf`.
 */

/** A plain object: not null, not an array, not a Buffer or typed array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !ArrayBuffer.isView(value);
}

/** `record[key]` when it is a string of 1 to `max` characters, else null. Own properties only. */
export function stringAt(record: unknown, key: string, max: number): string | null {
  if (!isRecord(record) || !Object.hasOwn(record, key)) return null;
  const value = record[key];
  return typeof value === 'string' && value.length > 0 && value.length <= max ? value : null;
}

/** Every element a safe integer, at most `max` of them. */
export function isIdList(value: unknown, max: number): value is number[] {
  return Array.isArray(value) && value.length <= max && value.every((x) => Number.isSafeInteger(x));
}

/** Every element a string of at most `maxLength` characters, at most `max` of them. */
export function isStringList(value: unknown, max: number, maxLength: number): value is string[] {
  return Array.isArray(value) && value.length <= max && value.every((x) => typeof x === 'string' && x.length <= maxLength);
}
