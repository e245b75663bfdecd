/**
 * What comparing display names by their confusable skeleton costs (src/lib/displayName.ts `nameKey`),
 * against the NFKC-and-case-fold key it replaced, on the names a join compares: a room of 1,000
 * participants, guest names and names in other scripts. Same process, same names, alternating rounds.
 *
 *   npx tsx scripts/bench/nameKey.ts [rounds, default 5]
 */
import { nameKey, normalizeDisplayName } from '../../src/lib/displayName';

const rounds = Number(process.argv[2] ?? 5);
const nfkcKey = (name: string) => normalizeDisplayName(name).toUpperCase().toLowerCase().normalize('NFKC');

const scripts = ['Guest', 'Дмитрий', 'Αλέξανδρος', 'Արամ', 'José María', 'Ｏｗｎｅｒ', '山田'];
const names = Array.from({ length: 1000 }, (_, i) => `${scripts[i % scripts.length]} ${(i * 7919).toString(16).toUpperCase().padStart(4, '0')}`);

function perName(key: (name: string) => string): number {
  const start = process.hrtime.bigint();
  let n = 0;
  for (let r = 0; r < 200; r++) for (const name of names) n += key(name).length;
  if (n < 0) console.log(n);
  return Number(process.hrtime.bigint() - start) / 1000 / (200 * names.length);
}

const base: number[] = [];
const skel: number[] = [];
for (let r = 0; r < rounds; r++) {
  base.push(perName(nfkcKey));
  skel.push(perName(nameKey));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`NFKC key (baseline): ${median(base).toFixed(2)} µs per name`);
console.log(`skeleton key:        ${median(skel).toFixed(2)} µs per name (${(median(skel) / median(base)).toFixed(2)}x the baseline)`);
console.log(`a join in a room of 1,000: ${((median(skel) * 1000) / 1000).toFixed(2)} ms of keys (baseline ${((median(base) * 1000) / 1000).toFixed(2)} ms)`);
