import { randomInt } from 'node:crypto';

/**
 * A small seeded PRNG (sfc32) so a failing hostile run reproduces: the seed is printed, and
 * HOSTILE_SEED=<seed> replays exactly the same requests.
 */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(readonly seed: number) {
    this.a = 0x9e3779b9;
    this.b = 0x243f6a88;
    this.c = 0xb7e15162;
    this.d = seed >>> 0;
    for (let i = 0; i < 15; i++) this.next();
  }

  /** A float in [0, 1). */
  next(): number {
    this.a >>>= 0;
    this.b >>>= 0;
    this.c >>>= 0;
    this.d >>>= 0;
    let t = (this.a + this.b) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.d = (this.d + 1) | 0;
    t = (t + this.d) | 0;
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** A child generator: streams that stay reproducible whatever order tests run in. */
  fork(label: string): Rng {
    let h = this.seed ^ 0x811c9dc5;
    for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 0x01000193);
    return new Rng(h >>> 0);
  }
}

/** The run's seed: HOSTILE_SEED when given, else a fresh one. Printed by the caller. */
export function runSeed(): number {
  const given = process.env.HOSTILE_SEED;
  if (given && /^\d+$/.test(given)) return Number(given) >>> 0;
  return randomInt(0, 2 ** 31);
}
