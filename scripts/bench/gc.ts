/**
 * bench:gc: how much of each request reaches V8's old generation, which is what sets how often the
 * major collections come; on a pinned core their marking takes turns with the event loop, and the
 * requests that arrive meanwhile wait (docs/architecture.md, "A request").
 *
 *   npm run bench:gc      env: GC_RATE (500 req/s), GC_SECONDS (10), BENCH_DATABASE_URL, BENCH_REDIS_URL
 *
 * Each target runs open-loop at the same fixed rate after a warm-up at that rate. Reported per request:
 * the old generation's growth, the major and minor collections, p99. Targets:
 *   - one Express route on Node's own server (Express's app.listen), and the same route on the
 *     service's server (src/http/appServer.ts), whose requests are born with the app's prototypes:
 *     the cause alone;
 *   - GET /roll/{uuid} and POST /roll: the service (PostgreSQL + Redis) against bench:http's bare
 *     baseline (an Express route and one `pg` query or transaction, on Node's own server).
 */
import { createBenchDatabase, REDIS_URL } from './lib/database';
import { benchEnv, newGuest, roomWith } from './lib/fixtures';
import { atRate, type LoadResult } from './lib/load';
import { loadLine, pinSelf, planCores, spawnTs, type ChildHandle } from './lib/processes';
import { fmt, printTable } from './lib/table';
import pg from 'pg';

const RATE = Number(process.env.GC_RATE || 500);
const SECONDS = Number(process.env.GC_SECONDS || 10);
const cores = planCores();
pinSelf(cores.load);
console.log(
  `bench:gc — node ${process.version}, servers on core ${cores.server || '(unpinned)'}, ${RATE} req/s open-loop for ${SECONDS} s per target after as long a warm-up, ${loadLine()} before the run`,
);

interface OldGeneration {
  grownBytes: number;
  major: number;
  majorMs: number;
  minor: number;
  minorMs: number;
}
interface Row {
  target: string;
  run: LoadResult;
  gen: OldGeneration;
}
const rows: Row[] = [];
const children: ChildHandle[] = [];
const spawn = (entry: string, env: Record<string, string>) => {
  const child = spawnTs(entry, { cores: cores.server, env: { ...env, BENCH_OLD_GENERATION: '1' } });
  children.push(child);
  return child;
};
async function measure(target: string, child: ChildHandle, options: Parameters<typeof atRate>[2]): Promise<void> {
  // Its own warm-up run, so that the old generation is counted from the measured run's first request.
  await atRate(`${target} (warm-up)`, RATE, options, { seconds: SECONDS, warmupSeconds: 0 });
  await child.ask({ cmd: 'old-generation' });
  const run = await atRate(target, RATE, options, { seconds: SECONDS, warmupSeconds: 0 });
  rows.push({ target, run, gen: await child.ask<OldGeneration>({ cmd: 'old-generation' }) });
}

const database = await createBenchDatabase();
try {
  for (const [target, born] of [
    ["one Express route, Node's server", '0'],
    ['one Express route, born with its prototypes', '1'],
  ] as const) {
    const child = spawn('scripts/bench/lib/expressRouteServer.ts', { BORN_PROTOTYPES: born });
    const { url } = (await child.ready) as { url: string };
    await measure(target, child, { url: `${url}/ping` });
    await child.stop();
  }

  const real = spawn('scripts/bench/lib/serve.ts', benchEnv({ DATABASE_URL: database.url, REDIS_URL }));
  const { url } = (await real.ready) as { url: string };
  const roller = await newGuest(url);
  const slug = await roomWith(roller.api, []);
  const body = JSON.stringify({
    dice: [
      { type: 'd6', theme: 'standard' },
      { type: 'd20', theme: 'standard' },
    ],
    room: slug,
  });
  const first = await roller.api.post('/roll', JSON.parse(body));
  if (first.status !== 201) throw new Error(`POST /roll answered ${first.status}: ${first.text}`);
  const ids = new pg.Client({ connectionString: database.url });
  await ids.connect();
  const room = (await ids.query('SELECT id, user_id FROM rooms WHERE slug = $1', [slug])).rows[0];
  await ids.end();
  const bare = spawn('scripts/bench/lib/bareRollServer.ts', {
    DATABASE_URL: database.url,
    BENCH_USER_ID: String(room.user_id),
    BENCH_ROOM_ID: String(room.id),
  });
  const bareUrl = ((await bare.ready) as { url: string }).url;
  const key = { authorization: `Bearer ${roller.key}`, 'content-type': 'application/json', accept: 'application/json' };
  const json = { 'content-type': 'application/json', accept: 'application/json' };
  const uuid = first.body.data.uuid as string;
  await measure('GET /roll/{uuid}, bare baseline', bare, { url: `${bareUrl}/api/1.0/roll/${uuid}`, headers: json });
  await measure('GET /roll/{uuid}, service', real, { url: `${url}/api/1.0/roll/${uuid}`, headers: key });
  await measure('POST /roll, bare baseline', bare, { url: `${bareUrl}/api/1.0/roll`, method: 'POST', headers: json, body });
  await measure('POST /roll, service', real, { url: `${url}/api/1.0/roll`, method: 'POST', headers: key, body });
} finally {
  await Promise.allSettled(children.map((c) => c.stop()));
  await database.drop();
}

const perThousand = (n: number, r: Row) => (n * 1000) / r.run.requests;
printTable(
  `What reaches the old generation, at ${RATE} req/s`,
  [
    'target',
    'requests',
    'old generation grown, KiB/request',
    'major GCs',
    'major GC ms per 1,000 requests',
    'minor GCs per 1,000 requests',
    'p99 ms',
    'failed',
  ],
  rows.map((r) => [
    r.target,
    fmt(r.run.requests),
    fmt(r.gen.grownBytes / r.run.requests / 1024, 2),
    fmt(r.gen.major, 0),
    fmt(perThousand(r.gen.majorMs, r), 1),
    fmt(perThousand(r.gen.minor, r), 1),
    fmt(r.run.p99),
    fmt(r.run.failures, 0),
  ]),
);
const byName = new Map(rows.map((r) => [r.target, r]));
const ratioOf = (a: string, b: string) => {
  const x = byName.get(a)!.gen.grownBytes / byName.get(a)!.run.requests;
  const y = byName.get(b)!.gen.grownBytes / byName.get(b)!.run.requests;
  return `${(x / y).toFixed(2)}x`;
};
console.log(
  `old generation per request, born with prototypes vs Node's server (one Express route): ${ratioOf('one Express route, born with its prototypes', "one Express route, Node's server")}`,
);
console.log(
  `old generation per request, service vs bare baseline: GET ${ratioOf('GET /roll/{uuid}, service', 'GET /roll/{uuid}, bare baseline')}, POST ${ratioOf('POST /roll, service', 'POST /roll, bare baseline')}`,
);
console.log(`${loadLine()} after the run`);
process.exit(0);
