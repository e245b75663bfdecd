/**
 * Timestamps at the boundary: ISO 8601 UTC with six fractional digits and `Z`.
 * JavaScript dates carry milliseconds, so the last three digits are zeros.
 */
export function timestamp(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) return null;
  // '2026-01-02T03:04:05.123Z' -> '...05.123000Z'; slicing instead of a regex: this runs for every
  // timestamp of every presented object (a roll in a busy room presents hundreds per event).
  const iso = date.toISOString();
  return `${iso.slice(0, -1)}000Z`;
}

/** Same as timestamp() for values that are never null. */
export function ts(value: Date | string): string {
  return timestamp(value) as string;
}
