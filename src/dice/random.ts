/**
 * Fair randomness from the operating system's CSPRNG.
 *
 * `crypto.randomInt` costs a call into native code per number; a roll needs many small numbers, so we fill a
 * buffer of 32-bit words with `randomFillSync` and cut numbers from it by rejection sampling: 31 bits of a
 * word are used only below the largest multiple of n under 2**31, so every result in [0, n) is exactly
 * equally likely.
 */
import { randomFillSync, randomInt } from 'node:crypto';
import type { Rng } from './types';

const TWO_31 = 2147483648;
const TWO_32 = 4294967296;
const WORDS = 1024; // 4 KiB per refill: one native call per ~1000 dice
// A rejected draw has probability below 1/2 for any n <= 2**31, so 64 rejections in a row is never seen in
// practice (p < 2**-64); past that, crypto.randomInt (also unbiased) answers and the loop stays bounded.
const MAX_REJECTIONS = 64;

export class CryptoRng implements Rng {
  private readonly words = new Uint32Array(WORDS);
  private next = WORDS;
  // The rejection limit for the last n asked for: rolls ask for the same n many times in a row.
  private lastN = 0;
  private lastLimit = 0;

  int(n: number): number {
    if (!(Number.isInteger(n) && n >= 1 && n <= TWO_32)) throw new RangeError(`int(${n}): n must be an integer in 1..2**32`);
    if (n === 1) return 0;
    if (n > TWO_31) return randomInt(n); // far beyond any die; keeps the fast path in 31-bit integers
    if (n !== this.lastN) {
      this.lastN = n;
      this.lastLimit = TWO_31 - (TWO_31 % n);
    }
    const limit = this.lastLimit;
    for (let i = 0; i < MAX_REJECTIONS; i++) {
      if (this.next === WORDS) {
        randomFillSync(this.words);
        this.next = 0;
      }
      // 31 bits, so the value and the remainder below stay small integers (a double % calls fmod: slow).
      const w = this.words[this.next++]! >>> 1;
      if (w < limit) return w % n;
    }
    return randomInt(n);
  }
}

/** The engine's default source; one per process is enough (it holds only a buffer). */
export const defaultRng: Rng = new CryptoRng();
