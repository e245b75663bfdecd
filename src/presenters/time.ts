/**
 * Timestamps at the boundary: ISO 8601 UTC with six fractional digits and `Z`.
 * JavaScript dates carry milliseconds, so the last three digits are zeros.
 */
export function timestamp(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) {
    // One record's dates are presented again for each viewer class and for the REST answer: formatted once.
    const known = formatted.get(value);
    if (known !== undefined && known.at === value.getTime()) return known.text;
    const text = format(value);
    if (text !== null) formatted.set(value, { at: value.getTime(), text });
    return text;
  }
  return format(new Date(value));
}

/** Dates already formatted, with the time they held then (a Date can be changed in place). */
const formatted = new WeakMap<Date, { at: number; text: string }>();

function format(date: Date): string | null {
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
