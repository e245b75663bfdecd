/**
 * What comparing display names by their confusable skeleton costs (src/lib/displayName.ts `nameKey`),
 * against the NFKC-and-case-fold key it replaced, on the names a join compares: a room of 1,000
 * participants, guest names and names in other scripts. Same process, same names, alternating rounds, each
 * a tinybench run of both keys (lib/micro.ts); the median over rounds.
 *
 *   npx tsx scripts/bench/nameKey.ts [rounds, default 5]
 */
import { nameKey, normalizeDisplayName } from '../../src/lib/displayName';
import { runMicro } from './lib/micro';
import { median } from './lib/stats';

const rounds = Number(process.argv[2] ?? 5);
const nfkcKey = (name: string) => normalizeDisplayName(name).toUpperCase().toLowerCase().normalize('NFKC');

const scripts = ['Guest', 'Дмитрий', 'Αλέξανδρος', 'Արամ', 'José María', 'Ｏｗｎｅｒ', '山田'];
const names = Array.from({ length: 1000 }, (_, i) => `${scripts[i % scripts.length]} ${(i * 7919).toString(16).toUpperCase().padStart(4, '0')}`);

/** One round: tinybench times 200 passes over the names with each key, one after the other; µs per name at the median pass. */
async function round(): Promise<{ base: number; skel: number }> {
  let n = 0;
  const r = await runMicro(
    {
      base: () => {
        for (const name of names) n += nfkcKey(name).length;
      },
      skel: () => {
        for (const name of names) n += nameKey(name).length;
      },
    },
    { iterations: 200, time: 0 },
  );
  if (n < 0) console.log(n);
  const perName = (ms: number) => (ms * 1000) / names.length;
  return { base: perName(r.base!.p50), skel: perName(r.skel!.p50) };
}

const base: number[] = [];
const skel: number[] = [];
for (let r = 0; r < rounds; r++) {
  const measured = await round();
  base.push(measured.base);
  skel.push(measured.skel);
}
console.log(`NFKC key (baseline): ${median(base).toFixed(2)} µs per name`);
console.log(`skeleton key:        ${median(skel).toFixed(2)} µs per name (${(median(skel) / median(base)).toFixed(2)}x the baseline)`);
console.log(`a join in a room of 1,000: ${((median(skel) * 1000) / 1000).toFixed(2)} ms of keys (baseline ${((median(base) * 1000) / 1000).toFixed(2)} ms)`);
