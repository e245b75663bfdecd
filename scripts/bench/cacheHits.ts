/**
 * bench:cache-hits: what a cache hit leaves in V8's old generation, for src/lib/cache.ts's
 * BoundedCache (a hit marks the entry used) against, in the same run, the exact LRU it replaced
 * (a hit moves the entry to the Map's end with delete + set). Both Maps are old when measured, as the
 * service's caches are: they live as long as the process.
 *
 * Why it matters: delete + set leaves a hole in the Map's table, and every few hits V8 rehashes the
 * table into a new one, allocated in the old generation when the table already is there. That garbage
 * is only reclaimed by a major collection, whose pause is what the bench:http tail at half rate is
 * made of (docs/api.md, "Caches and bounded staleness").
 *
 *   npm run bench:cache-hits     env: CACHE_HITS (200,000 per size)
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { BoundedCache } from '../../src/lib/cache';
import { fmt, printTable } from './lib/table';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const HITS = Number(process.env.CACHE_HITS || 200_000);

/** The old generation: old space, and the large-object space a big Map's table is allocated in. */
const oldSpaceUsed = () =>
  v8
    .getHeapSpaceStatistics()
    .filter((s) => s.space_name === 'old_space' || s.space_name === 'large_object_space')
    .reduce((sum, s) => sum + s.space_used_size, 0);

/** Old-generation bytes per hit over `HITS` hits spread over `keys`, after two collections age the structures. */
function measure(keys: string[], hit: (key: string) => unknown): { bytesPerHit: number; majors: number } {
  for (let i = 0; i < 1_000; i++) hit(keys[i % keys.length]!); // warm: compiled, tables sized
  gc();
  gc();
  let majors = 0;
  const before = oldSpaceUsed();
  let last = before;
  for (let i = 0; i < HITS; i++) {
    hit(keys[i % keys.length]!);
    if ((i & 1023) === 0) {
      const now = oldSpaceUsed();
      if (now < last) majors++; // the old generation shrank: a major collection ran, the growth below is a floor
      last = now;
    }
  }
  return { bytesPerHit: (oldSpaceUsed() - before) / HITS, majors };
}

const rows: Array<Array<string | number>> = [];
for (const size of [1, 100, 10_000]) {
  const keys = Array.from({ length: size }, (_, i) => `key-${i}`);
  const cache = new BoundedCache<string, { id: number }>({ maxWeight: size, ttlMs: () => 60_000 });
  for (const [i, k] of keys.entries()) cache.set(k, { id: i }, cache.ticket());
  const lru = new Map(keys.map((k, i) => [k, { id: i }]));
  const moveToEnd = (key: string) => {
    const entry = lru.get(key)!;
    lru.delete(key);
    lru.set(key, entry);
    return entry;
  };
  const base = measure(keys, moveToEnd);
  const ours = measure(keys, (k) => cache.get(k));
  rows.push(
    [`${fmt(size, 0)} entries: exact LRU, delete + set (baseline)`, fmt(base.bytesPerHit), fmt(base.majors, 0), '1.00x'],
    [
      `${fmt(size, 0)} entries: BoundedCache, marked used`,
      fmt(ours.bytesPerHit),
      fmt(ours.majors, 0),
      base.bytesPerHit > 0 ? `${(ours.bytesPerHit / base.bytesPerHit).toFixed(2)}x` : 'n/a',
    ],
  );
}
printTable(
  `Old generation grown per cache hit (${fmt(HITS, 0)} hits per row, node ${process.version}; a major collection during a row makes its figure a floor)`,
  ['cache', 'bytes per hit', 'major GCs seen', 'vs baseline'],
  rows,
);
