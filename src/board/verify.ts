/**
 * The board's own check of every roll it shows (docs/fairness.md), in the browser with Web Crypto: each
 * value's commitment, its path to the root the room's ledger published, its face from the secret and
 * the roll's client seed, and that the roll's draws are consecutive leaves. The same construction as
 * scripts/verify-roll.mjs, written again on purpose: a verifier must not share the server's code.
 */
import type { FairnessLedger, Roll, RollValue } from '../client';

export interface Verdict {
  /** verified: every value checked to its face; partial: some hidden from this viewer; failed; none: nothing to check */
  state: 'verified' | 'partial' | 'failed' | 'none';
  /** for people: what was checked, or which check failed */
  detail: string;
}

const LEAVES = 256;
const TWO_32 = 4294967296;
const enc = new TextEncoder();
const utf8 = (s: string): Bytes => {
  const b = enc.encode(s);
  const out = new Uint8Array(new ArrayBuffer(b.length));
  out.set(b);
  return out;
};

const hex = (bytes: ArrayBuffer | Uint8Array) =>
  Array.from(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');
type Bytes = Uint8Array<ArrayBuffer>;
function unhex(s: string): Bytes {
  const out = new Uint8Array(new ArrayBuffer(s.length / 2));
  for (let i = 0; i < out.length; i++) out[i] = parseInt(s.slice(i * 2, i * 2 + 2), 16);
  return out;
}
const concat = (a: Uint8Array, b: Uint8Array): Bytes => {
  const out = new Uint8Array(new ArrayBuffer(a.length + b.length));
  out.set(a);
  out.set(b, a.length);
  return out;
};
const sha256 = async (data: Bytes): Promise<Bytes> => new Uint8Array(await crypto.subtle.digest('SHA-256', data));
const HEX64 = /^[0-9a-f]{64}$/;

async function drawFace(secret: Bytes, seed: string, n: number): Promise<number> {
  const key = await crypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const limit = Math.floor(TWO_32 / n) * n;
  for (let j = 0; j < 128; j++) {
    const mac = new DataView(await crypto.subtle.sign('HMAC', key, utf8(`${seed}:${j}`)));
    const x = mac.getUint32(0, false);
    if (x < limit) return x % n;
  }
  throw new Error('no draw accepted');
}

const FUDGE: Record<string, number[]> = { df: [-1, -1, 0, 0, 1, 1], 'df.2': [-1, -1, 0, 0, 1, 1], 'df.1': [-1, 0, 0, 0, 0, 1] };

function expectedValue(type: string, face: number, display: unknown): number {
  const shown = typeof display === 'number' || (typeof display === 'string' && display.trim() !== '') ? Number(display) : NaN;
  if (type === 'd10x' && Number.isInteger(shown) && shown >= 0 && shown <= 90 && shown % 10 === 0) return face === 0 ? 10 : face;
  if (FUDGE[type] && (shown === -1 || shown === 0 || shown === 1)) return FUDGE[type]![face]!;
  return face + 1;
}

/** Checks `roll`; `rootOf(batch)` answers the root the ledger published for that batch (or null). */
export async function verifyRoll(roll: Roll, rootOf: (batch: number) => Promise<string | null>): Promise<Verdict> {
  if (!roll.fairness) return { state: 'none', detail: 'made before fairness ledgers' };
  const seed = roll.fairness.client_seed ?? '';
  const moves = roll.operator ? ['mi', 'ma'].filter((k) => k in roll.operator!) : [];
  let previous: number | null = null;
  let checked = 0;
  let hidden = 0;
  const fail = (i: number, check: string): Verdict => ({ state: 'failed', detail: `die ${i + 1}: ${check} check failed` });
  for (let i = 0; i < roll.values.length; i++) {
    const v = roll.values[i] as RollValue;
    if (v.type === 'mod') continue;
    const p = v.proof;
    if (v.is_user_value) {
      if (p) return fail(i, 'proof');
      continue;
    }
    if (!p || !HEX64.test(p.root) || !HEX64.test(p.commitment) || p.path.length !== 8 || !p.path.every((h) => HEX64.test(h))) return fail(i, 'proof');
    const position = p.batch * LEAVES + p.leaf;
    if (previous !== null && position !== previous + 1) return fail(i, 'order');
    previous = position;
    let node = unhex(p.commitment);
    let at = p.leaf;
    for (const sibling of p.path) {
      node = await sha256(at % 2 === 0 ? concat(node, unhex(sibling)) : concat(unhex(sibling), node));
      at = Math.floor(at / 2);
    }
    if (hex(node) !== p.root) return fail(i, 'path');
    if ((await rootOf(p.batch)) !== p.root) return fail(i, 'published root');
    if (p.secret === null) {
      hidden++;
      continue;
    }
    if (!HEX64.test(p.secret)) return fail(i, 'commitment');
    const secret = unhex(p.secret);
    if (hex(await sha256(concat(utf8('odice-leaf:'), secret))) !== p.commitment) return fail(i, 'commitment');
    const expected = expectedValue(v.type, await drawFace(secret, seed, p.faces), v.value_to_display);
    if (v.value !== expected && !(moves.length && v.value !== null)) return fail(i, 'face');
    checked++;
  }
  if (checked === 0 && hidden === 0) return { state: 'none', detail: 'no die drawn by the server' };
  if (hidden) return { state: 'partial', detail: `${checked} dice verified; ${hidden} hidden from you, checkable once revealed` };
  return { state: 'verified', detail: `${checked} dice verified against the room's published ledger` };
}

/** The roots a room's ledger published, fetched once and again when a roll names a batch not yet seen. */
export function ledgerRoots(fetchLedger: () => Promise<FairnessLedger>): (batch: number) => Promise<string | null> {
  let roots = new Map<number, string>();
  let pending: Promise<void> | null = null;
  const refresh = () =>
    (pending ??= fetchLedger()
      .then((l) => {
        roots = new Map(l.batches.map((b) => [b.batch, b.root]));
      })
      .catch(() => undefined)
      .finally(() => {
        pending = null;
      }));
  return async (batch) => {
    if (!roots.has(batch)) await refresh();
    return roots.get(batch) ?? null;
  };
}
