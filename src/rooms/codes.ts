import { randomInt, timingSafeEqual, createHash } from 'node:crypto';

/**
 * Room slugs and passcodes. Both travel in URLs, sometimes unencoded (docs/architecture.md, Wire conventions), so both
 * use URL-safe characters only; both come from `crypto`, so private rooms cannot be enumerated.
 */

/** Lower-case letters and digits without the look-alikes 0/o, 1/l/i: safe to read aloud and type. */
export const UNAMBIGUOUS_ALPHABET = '23456789abcdefghjkmnpqrstuvwxyz';

/** 16 characters of a 31-letter alphabet: about 79 bits, far beyond enumeration. */
export const SLUG_LENGTH = 16;
/** 8 characters: about 40 bits, a code people can type; guessing it online is rate-limited. */
export const PASSCODE_LENGTH = 8;

/** A slug as rooms get them: what `/room/:slug` routes and socket namespaces (`[\w-]+`) accept. */
export const SLUG_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
/** A passcode an owner may choose: URL-unreserved characters only, so unencoded query strings still work. */
export const PASSCODE_PATTERN = /^[A-Za-z0-9._~-]{4,64}$/;

/** `length` characters drawn uniformly (randomInt rejects biased draws) from `alphabet`. */
export function randomCode(length: number, alphabet = UNAMBIGUOUS_ALPHABET): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

export function generateSlug(): string {
  return randomCode(SLUG_LENGTH);
}

export function generatePasscode(): string {
  return randomCode(PASSCODE_LENGTH);
}

/**
 * Compare a given passcode with the room's in constant time. Hashing both first makes the inputs
 * equal in length, so neither the content nor the length of the real passcode leaks through timing.
 */
export function passcodesEqual(expected: string | null | undefined, given: string | null | undefined): boolean {
  if (typeof expected !== 'string' || expected === '' || typeof given !== 'string') return false;
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(given).digest();
  return timingSafeEqual(a, b);
}
