/**
 * Timestamps at the boundary: ISO 8601 UTC with six fractional digits and `Z`.
 * JavaScript dates carry milliseconds, so the last three digits are zeros.
 */
export function timestamp(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) return null;
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** Same as timestamp() for values that are never null. */
export function ts(value: Date | string): string {
  return timestamp(value) as string;
}
