/**
 * Inflating a zlib stream without trusting it: an FBX array declares its length, but its deflate stream
 * may inflate to a thousand times its size. The stream is fed in small pieces and dropped as soon as
 * it has given more than it declared, so what is held stays within `limit` plus one piece's output.
 * fflate is the inflater three's FBXLoader itself uses (bundled with three).
 */
import { Unzlib } from 'three/examples/jsm/libs/fflate.module.js';

const PIECE = 4096;

/** The inflated bytes, 'over' when they would exceed `limit`, or 'broken' when the stream is not zlib. */
export function inflateAtMost(data: Uint8Array, limit: number): Uint8Array | 'over' | 'broken' {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const stream = new Unzlib((chunk) => {
    total += chunk.length;
    if (total <= limit) chunks.push(chunk);
  });
  try {
    for (let at = 0; at < data.length && total <= limit; at += PIECE) stream.push(data.subarray(at, at + PIECE), at + PIECE >= data.length);
  } catch {
    return 'broken';
  }
  if (total > limit) return 'over';
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}
