/**
 * The fixed construction of provable fairness (docs/fairness.md), pure: leaves, their commitments, a
 * batch's Merkle tree, and how a leaf and a client seed become a face. scripts/verify-roll.mjs and the
 * board's check (src/board/verify.ts) restate it on their own, as any outside verifier would: keep all
 * three in step with the docs.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';

/** Leaves per batch, and the depth of a batch's tree (2^8 = 256): every proof path has 8 hashes. */
export const LEAVES = 256;
export const DEPTH = 8;
export const SECRET_BYTES = 32;
const LEAF_PREFIX = Buffer.from('odice-leaf:', 'utf8');
const TWO_32 = 4294967296;
/**
 * A draw is rejected with probability below 1/2 whatever N is, so 128 rejections in a row never happens
 * (p < 2^-128); the bound only keeps the loop finite.
 */
const MAX_TRIES = 128;

/** L = SHA-256("odice-leaf:" || s). */
export function leafCommitment(secret: Uint8Array): Buffer {
  return createHash('sha256').update(LEAF_PREFIX).update(secret).digest();
}

/** The face index (0-based) leaf secret `s` gives a die of `n` faces under client seed `c`. */
export function drawFace(secret: Uint8Array, clientSeed: string, n: number): number {
  if (!(Number.isInteger(n) && n >= 1 && n <= TWO_32)) throw new RangeError(`drawFace: ${n} faces`);
  const limit = Math.floor(TWO_32 / n) * n;
  for (let j = 0; j < MAX_TRIES; j++) {
    const x = createHmac('sha256', secret).update(`${clientSeed}:${j}`, 'utf8').digest().readUInt32BE(0);
    if (x < limit) return x % n;
  }
  throw new Error('drawFace: no draw accepted');
}

/** A batch's tree: levels[0] the 256 commitments, levels[8] the root alone. */
export class BatchTree {
  readonly levels: Buffer[][];

  constructor(secrets: Uint8Array) {
    if (secrets.length !== LEAVES * SECRET_BYTES) throw new RangeError(`a batch holds ${LEAVES * SECRET_BYTES} bytes of secrets`);
    const leaves: Buffer[] = [];
    for (let i = 0; i < LEAVES; i++) leaves.push(leafCommitment(secrets.subarray(i * SECRET_BYTES, (i + 1) * SECRET_BYTES)));
    this.levels = [leaves];
    let level = leaves;
    while (level.length > 1) {
      const up: Buffer[] = [];
      for (let i = 0; i < level.length; i += 2)
        up.push(
          createHash('sha256')
            .update(level[i]!)
            .update(level[i + 1]!)
            .digest(),
        );
      this.levels.push(up);
      level = up;
    }
  }

  get root(): Buffer {
    return this.levels[DEPTH]![0]!;
  }

  commitment(leaf: number): Buffer {
    return this.levels[0]![leaf]!;
  }

  /** The 8 sibling hashes from leaf `leaf`'s commitment up to the root. */
  path(leaf: number): Buffer[] {
    const out: Buffer[] = [];
    let i = leaf;
    for (let d = 0; d < DEPTH; d++) {
      out.push(this.levels[d]![i ^ 1]!);
      i >>= 1;
    }
    return out;
  }
}

/** 256 fresh leaf secrets (crypto.randomBytes), in leaf order. */
export function newSecrets(): Buffer {
  return randomBytes(LEAVES * SECRET_BYTES);
}

/** The secret of leaf `leaf` in a batch's secrets. */
export function secretOf(secrets: Uint8Array, leaf: number): Uint8Array {
  return secrets.subarray(leaf * SECRET_BYTES, (leaf + 1) * SECRET_BYTES);
}
