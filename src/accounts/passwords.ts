import { hash, verify } from '@node-rs/argon2';

/**
 * Passwords, hashed with argon2id (@node-rs/argon2's default algorithm and its default cost: 19 MiB,
 * 2 passes, OWASP's recommendation). A password is never logged, stored or echoed: only this hash is kept.
 */

export const PASSWORD_MIN = 8;
/** argon2 takes any length; the bound keeps one form from costing much more than another. */
export const PASSWORD_MAX = 256;

export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

/** A hash no password matches, verified when the username is unknown so that answer takes as long as a wrong password. */
let decoy: Promise<string> | null = null;

/** Whether `password` matches `stored`; with no stored hash, the same work is done and the answer is false. */
export async function passwordMatches(stored: string | null, password: string): Promise<boolean> {
  if (stored === null) {
    decoy ??= hash(`decoy-${Math.random()}`);
    await verify(await decoy, password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}
