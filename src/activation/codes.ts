import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

/**
 * What an activation is made of: a short code a person reads off one screen and types on another, and
 * a long secret only the integration holds (it polls with it). Only the secret's sha256 is stored.
 */

/** No look-alikes: no 0/O, 1/I/L; letters only in upper case (the page takes either case). */
export const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const CODE_LENGTH = 6;
/** 31^6, about 887 million codes: few are live at once, and guessing one at /activate is limited. */
export const CODE_PATTERN = new RegExp(`^[${CODE_ALPHABET}]{${CODE_LENGTH}}$`);

/** How long a code may be approved and polled. */
export const ACTIVATION_TTL_MS = 10 * 60_000;

export function newCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

/** 32 random bytes, base64url (43 characters). */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

export const SECRET_PATTERN = /^[\w-]{43}$/;

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Whether `secret` is the one whose hash is stored: compared in constant time. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const given = Buffer.from(hashSecret(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}

/**
 * A code as a person typed it, in the form it is stored: spaces and dashes dropped (a code may be
 * read out in two halves), upper case. Null when it cannot be a code at all.
 */
export function normalizeCode(typed: unknown): string | null {
  if (typeof typed !== 'string' || typed.length > 32) return null;
  const code = typed.replace(/[\s-]/g, '').toUpperCase();
  return CODE_PATTERN.test(code) ? code : null;
}

/**
 * The secret of `Authorization: Secret <secret>` (the scheme in any case, as HTTP's are), or null for
 * a missing or malformed header.
 */
export function secretFromHeader(header: string | undefined): string | null {
  if (!header || header.length > 100) return null;
  const m = /^Secret +([\w-]+)\s*$/i.exec(header);
  return m && SECRET_PATTERN.test(m[1]!) ? m[1]! : null;
}

/** Longest integration name kept (the key's label has room for 64). */
export const INTEGRATION_MAX = 64;

/**
 * The X-Extension header as an integration's name: printable characters only (no control characters,
 * no line breaks), spaces squeezed, at most INTEGRATION_MAX characters; null when none is left. A
 * header that is not a name at all is dropped rather than refused: the SDK sends whatever its caller
 * gave it, and the person approving sees the name anyway.
 */
export function integrationName(header: string | string[] | undefined): string | null {
  const raw = Array.isArray(header) ? header[0] : header;
  if (typeof raw !== 'string' || raw.length > 1024) return null;
  // Node reads header bytes as latin1: a name sent as UTF-8 (by a Node client) is read back as UTF-8.
  const utf8 = Buffer.from(raw, 'latin1').toString('utf8');
  const value = utf8.includes('\ufffd') ? raw : utf8;
  const name = value
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return name ? [...name].slice(0, INTEGRATION_MAX).join('') : null;
}
