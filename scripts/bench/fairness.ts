/**
 * bench:fairness: what the fairness ledger (docs/fairness.md) costs per drawn value, beside the engine's
 * former random source measured in the same run, and what it stores per value on PostgreSQL.
 *
 *   npm run bench:fairness            env: BENCH_FAIRNESS_VALUES (200000 per task and round), BENCH_FAIRNESS_ROLLS (400)
 *
 * CPU time, in process, tinybench tasks (lib/micro.ts), median of 3 rounds: a value's draw (HMAC-SHA256 of the leaf, rejection sampling) against CryptoRng.int
 * (the engine's default source, what every value cost before); its proof (path and hex, as every answer
 * presents it); a batch's creation (256 secrets, 511 hashes) shared by its 256 leaves. Storage: rolls
 * of 10 d6 into one room through a real server, then the sizes PostgreSQL reports.
 */
import pg from 'pg';
import { CryptoRng } from '../../src/dice/random';
import { BatchTree, drawFace, LEAVES, newSecrets, secretOf } from '../../src/fairness/crypto';
import { createBenchDatabase } from './lib/database';
import { benchEnv, newGuest, roomWith } from './lib/fixtures';
import { batched, medianOfRounds } from './lib/micro';
import { spawnTs } from './lib/processes';
import { fmt, printTable } from './lib/table';

const VALUES = Number(process.env.BENCH_FAIRNESS_VALUES || 200_000);
const ROLLS = Number(process.env.BENCH_FAIRNESS_ROLLS || 400);
const DICE_PER_ROLL = 10;

const ROUNDS = 3;

console.log(
  `bench:fairness — node ${process.version}, ${VALUES} values per task and round (${ROUNDS} rounds, CPU time, median), ${ROLLS} rolls of ${DICE_PER_ROLL} d6 for storage`,
);

// --- CPU per value ------------------------------------------------------------------------------
const rng = new CryptoRng();
const secrets = newSecrets();
const tree = new BatchTree(secrets);
const seed = 'c0ffee00c0ffee00c0ffee00c0ffee00';
let sink = 0;
let leaf = 0;
/** CALLS calls a task and round, each a batch (CryptoRng.int takes less than the clock's own cost): VALUES draws, a quarter as many proofs. */
const CALLS = 200;
const PER_CALL = { base: Math.ceil(VALUES / CALLS), draw: Math.ceil(VALUES / CALLS), proof: Math.ceil(VALUES / CALLS / 4) };
const ms = await medianOfRounds(
  {
    base: batched(() => (sink += rng.int(20)), PER_CALL.base),
    draw: batched(() => (sink += drawFace(secretOf(secrets, leaf++ % LEAVES), seed, 20)), PER_CALL.draw),
    proof: batched(() => {
      const at = leaf++ % LEAVES;
      sink +=
        tree
          .path(at)
          .map((h) => h.toString('hex'))
          .join('').length +
        tree.commitment(at).toString('hex').length +
        Buffer.from(secretOf(secrets, at)).toString('hex').length;
    }, PER_CALL.proof),
    batch: () => (sink += new BatchTree(newSecrets()).root[0]!),
  },
  ROUNDS,
  { cpuTime: true, time: 0, iterations: CALLS, warmupIterations: 10 },
);
const nsPerValue = (task: 'base' | 'draw' | 'proof') => (ms[task]! * 1e6) / PER_CALL[task];
const base = nsPerValue('base');
const draw = nsPerValue('draw');
const proof = nsPerValue('proof');
const batch = (ms.batch! * 1e6) / LEAVES;
const ledger = draw + proof + batch;
printTable(
  'CPU per drawn value (ns), in process',
  ['what', 'ns per value', 'vs CryptoRng.int'],
  [
    ["CryptoRng.int(20): the engine's source before (baseline)", fmt(base, 0), '1.00x'],
    ['draw: HMAC-SHA256 of the leaf, rejection sampling', fmt(draw, 0), `${fmt(draw / base, 1)}x`],
    ['proof: 8-hash path, commitment and secret in hex', fmt(proof, 0), `${fmt(proof / base, 1)}x`],
    ['batch: 256 secrets and the tree, per leaf', fmt(batch, 0), `${fmt(batch / base, 1)}x`],
    ['the ledger per value (draw + proof + batch share)', fmt(ledger, 0), `${fmt(ledger / base, 1)}x`],
  ],
);
console.log(`(the ledger adds ${fmt((ledger - base) / 1000, 1)} µs of CPU per drawn value; a 2-dice roll about ${fmt((2 * (ledger - base)) / 1000, 1)} µs)`);

// --- storage per value (PostgreSQL) ----------------------------------------------------------------
const database = await createBenchDatabase();
const server = spawnTs('scripts/bench/lib/serve.ts', { cores: '', nodeArgs: [], env: benchEnv({ DATABASE_URL: database.url, REDIS_URL: '' }) });
try {
  const { url } = (await server.ready) as { url: string };
  const roller = await newGuest(url);
  const slug = await roomWith(roller.api, []);
  const body = { dice: Array.from({ length: DICE_PER_ROLL }, () => ({ type: 'd6', theme: 'standard' })), room: slug, client_seed: seed };
  for (let i = 0; i < ROLLS; i += 20) {
    await Promise.all(
      Array.from({ length: Math.min(20, ROLLS - i) }, () =>
        roller.api.post('/roll', body).then((r) => {
          if (r.status !== 201) throw new Error(`POST /roll: ${r.status} ${r.text.slice(0, 200)}`);
        }),
      ),
    );
  }
  const c = new pg.Client({ connectionString: database.url });
  await c.connect();
  await c.query('VACUUM ANALYZE');
  const one = async (q: string) => Number(Object.values((await c.query(q)).rows[0])[0]);
  const values = await one('SELECT count(*) FROM roll_values WHERE draw IS NOT NULL');
  const batches = await one('SELECT count(*) FROM fairness_batches');
  const batchBytes = await one("SELECT pg_total_relation_size('fairness_batches')");
  const rowBytes = await one('SELECT sum(pg_column_size(ledger_id) + pg_column_size(draw) + pg_column_size(draw_faces)) FROM roll_values');
  const indexBytes = await one("SELECT pg_relation_size('roll_values_ledger_draw')");
  const rollBytes = await one('SELECT sum(coalesce(pg_column_size(ledger_id), 0) + coalesce(pg_column_size(client_seed), 0)) FROM rolls');
  const rolls = await one('SELECT count(*) FROM rolls');
  await c.end();
  const perLeaf = batchBytes / (batches * LEAVES);
  printTable(
    `Storage on PostgreSQL: ${values} drawn values, ${rolls} rolls, ${batches} batches`,
    ['what', 'bytes', 'per drawn value'],
    [
      ['fairness_batches (secrets, roots; with TOAST), per published leaf', fmt(batchBytes, 0), fmt(perLeaf, 1)],
      ['roll_values: ledger_id, draw, draw_faces', fmt(rowBytes, 0), fmt(rowBytes / values, 1)],
      ['index roll_values_ledger_draw (no reuse)', fmt(indexBytes, 0), fmt(indexBytes / values, 1)],
      ['rolls: ledger_id, client_seed (per value at 10 dice a roll)', fmt(rollBytes, 0), fmt(rollBytes / values, 1)],
      ['in all, per drawn value', '', fmt(perLeaf + (rowBytes + indexBytes + rollBytes) / values, 1)],
    ],
  );
} finally {
  await server.stop();
  await database.drop();
}
if (sink === -1) console.log(sink);
