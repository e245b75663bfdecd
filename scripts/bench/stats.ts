/**
 * bench:stats: GET /room/{slug}/stats on a room of 100,000 values (the GROUP BY of src/stats/store),
 * against, in the same run on the same server and room, GET /room/{slug}/roll (the room's last 20
 * rolls, the request a board makes on opening). SQLite (the embedded shape), then PostgreSQL when one
 * answers at BENCH_DATABASE_URL / TEST_DATABASE_URL (each in a process of its own: the database layer
 * is one per process).
 *
 *   npx tsx scripts/bench/stats.ts      env: STATS_VALUES (100,000), STATS_REQUESTS (20 per round),
 *                                       BENCH_DATABASE_URL; --dialect=sqlite|postgres runs one only
 *
 * The room is filled through POST /roll, 100 dice per roll, as a real table's would be, by two players:
 * a tenth of the rolls whispered to the roller alone, one die in ten hidden; the statistics are asked
 * by the other player, so the privacy filter is part of what is measured. Rounds alternate the two
 * requests so that neither gets warm caches alone; requests are one after another (time per request),
 * each request a call of a tinybench task (lib/micro.ts); the median over rounds.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { startServer } from '../../src/server';
import { ADMIN_URL, createBenchDatabase, type BenchDatabase } from './lib/database';
import { benchEnv, newGuest, roomWith } from './lib/fixtures';
import { medianOfRounds } from './lib/micro';
import { ratio } from './lib/stats';

const VALUES = Number(process.env.STATS_VALUES || 100_000);
const REQUESTS = Number(process.env.STATS_REQUESTS || 20);
const ROUNDS = 3;
const PER_ROLL = 100;
const dialect = process.argv.find((a) => a.startsWith('--dialect='))?.slice(10);

if (!dialect) {
  // Each dialect in a child of its own; PostgreSQL only when it answers.
  const self = fileURLToPath(import.meta.url);
  for (const d of ['sqlite', 'postgres']) {
    const run = spawnSync(process.execPath, [...process.execArgv, self, `--dialect=${d}`], { stdio: 'inherit', env: process.env });
    if (run.status !== 0) console.log(`(${d}: exited ${run.status})`);
  }
  process.exit(0);
}

let database: BenchDatabase | null = null;
if (dialect === 'postgres') {
  try {
    database = await createBenchDatabase();
  } catch (err) {
    console.log(`postgres: skipped (${(err as Error).message.split('\n')[0]}; ${ADMIN_URL})`);
    process.exit(0);
  }
}
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dice-bench-stats-'));
const config = loadConfig(benchEnv({ DATA_DIR: dataDir, DATABASE_URL: database?.url ?? '', LOG_LEVEL: 'warn' }));
const server = await startServer(Object.freeze(config), createLogger('warn'));

try {
  const [roller, viewer] = [await newGuest(server.url), await newGuest(server.url)];
  const slug = await roomWith(roller.api, [viewer.api]);
  const room = (await roller.api.get(`/room/${slug}`)).body.data as { participants: { id: number; user: { uuid: string } }[] };
  const me = (await roller.api.get('/user')).body.data as { uuid: string };
  const myParticipant = room.participants.find((p) => p.user.uuid === me.uuid)!.id;

  const started = Date.now();
  const rolls = Math.ceil(VALUES / PER_ROLL);
  const types = ['d20', 'd20', 'd20', 'd20', 'd6', 'd6', 'd6', 'd8', 'd12', 'd4'];
  // Four rolls in flight: the fill is set-up, not what is measured.
  let next = 0;
  const fill = async () => {
    for (let i = next++; i < rolls; i = next++) {
      const who = i % 2 === 0 ? roller : viewer;
      const dice = Array.from({ length: PER_ROLL }, (_, j) => ({ type: types[j % types.length]!, theme: 'standard', is_hidden: j % 10 === 9 }));
      const body: Record<string, unknown> = { dice, room: slug };
      if (who === roller && i % 10 === 0) body.whisper = [myParticipant];
      const res = await who.api.post('/roll', body);
      if (res.status !== 201) throw new Error(`roll: ${res.status} ${res.text}`);
    }
  };
  await Promise.all([fill(), fill(), fill(), fill()]);
  const fillSeconds = (Date.now() - started) / 1000;

  const get = (url: string) => async () => {
    const res = await viewer.api.get(url);
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${res.text}`);
  };
  const stats = `/room/${slug}/stats`;
  const sample = (await viewer.api.get(stats)).body.data as { rolls: number; dice: { type: string; count: number }[] };
  const perRequest = await medianOfRounds(
    { history: get(`/room/${slug}/roll?limit=20`), stats: get(stats), oneType: get(`/room/${slug}/stats?type=d20`) },
    ROUNDS,
    { time: 0, iterations: REQUESTS, warmupIterations: REQUESTS },
  );
  const ms = { history: perRequest.history!, stats: perRequest.stats!, oneType: perRequest.oneType! };
  const counted = sample.dice.reduce((s, d) => s + d.count, 0);
  console.log(
    `${config.databaseUrl ? 'postgres' : 'sqlite'}: ${rolls} rolls of ${PER_ROLL} dice (${rolls * PER_ROLL} values) filled in ${fillSeconds.toFixed(0)} s; the viewer may see ${counted} of them in ${sample.rolls} rolls`,
  );
  console.log(`  GET /room/{slug}/roll?limit=20 (baseline): ${ms.history.toFixed(1)} ms`);
  console.log(`  GET /room/{slug}/stats:                    ${ms.stats.toFixed(1)} ms (${ratio(ms.stats, ms.history)})`);
  console.log(`  GET /room/{slug}/stats?type=d20:           ${ms.oneType.toFixed(1)} ms (${ratio(ms.oneType, ms.history)})`);
} finally {
  await server.close();
  await database?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
