/**
 * bench:http: POST /roll (2 dice, in a room with 10 listening sockets) and GET /roll/{uuid} against
 * one instance on PostgreSQL (+ Redis, the production shape), beside a bare Express route that writes
 * the same rows with one `pg` transaction, measured in the same run on the same database.
 *
 *   npm run bench:http [-- --no-redis] [-- --cpu-prof] [-- --heap-prof[=promoted]] [-- --only=roll|get]
 *   env: BENCH_SECONDS (10), BENCH_HALF_SECONDS (20: the open-loop runs at half rate), BENCH_ROUNDS (2), BENCH_CONNECTIONS (32), BENCH_DATABASE_URL, BENCH_REDIS_URL, BENCH_LOG_LEVEL (warn)
 *   BENCH_METRICS=on: the service with Prometheus metrics on (METRICS_TOKEN); BENCH_METRICS=compare: only
 *   the metrics' cost, off and on side by side in alternating rounds (lib/metricsOverhead.ts)
 *
 * The server runs pinned to one core, this process (autocannon and the sockets) to another. For each
 * target: the maximum rate (closed loop, BENCH_CONNECTIONS connections), then p50/p99 at half that
 * rate (open loop: evenly spaced requests, each timed from when it was due; lib/load.ts). With
 * --cpu-prof the real server profiles each saturation run (V8, through the
 * inspector) into ./profiles/.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { RequestSpec } from 'autocannon';
import pg from 'pg';
import { createBenchDatabase, REDIS_URL } from './lib/database';
import { compareMetrics } from './lib/metricsOverhead';
import { benchEnv, newGuest, roomWith } from './lib/fixtures';
import { atRate, CONNECTIONS, HALF_SECONDS, maxRate, printServerSlow, SECONDS, TRACE_SLOW_MS, type LoadResult } from './lib/load';
import {
  cpuByName,
  cpuSecondsOf,
  cpuSpent,
  loadLine,
  planCores,
  pinSelf,
  tolerateSocketResets,
  root,
  SERVER_NODE_ARGS,
  spawnTs,
  type ChildHandle,
} from './lib/processes';
import { perRequest, type QueryCount } from './lib/querycount';
import { connectRoom, type Listener } from './lib/sockets';
import { ratio } from './lib/stats';
import { fmt, printTable } from './lib/table';

const args = new Set(process.argv.slice(2));
const useRedis = !args.has('--no-redis');
const cpuProf = args.has('--cpu-prof');
/** --heap-prof: sample the service's allocations during its first saturation run of each target (lib/heapProfile.ts reads it); --heap-prof=promoted: only what outlived the young generation. */
const heapProf = args.has('--heap-prof') || args.has('--heap-prof=promoted');
/** --only=roll measures POST /roll alone, --only=get GET /roll/{uuid} alone (for profiling). */
const only = [...args].find((a) => a.startsWith('--only='))?.slice(7) ?? null;
const LISTENERS = Number(process.env.BENCH_LISTENERS ?? 10);
/** Saturation runs per target and side, alternating baseline and service (BENCH_ROUNDS). */
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS || 2));
const ROLL_BODY = (slug: string) =>
  JSON.stringify({
    dice: [
      { type: 'd6', theme: 'standard' },
      { type: 'd20', theme: 'standard' },
    ],
    room: slug,
  });

const cores = planCores();
pinSelf(cores.load);
tolerateSocketResets();
console.log(
  `bench:http — node ${process.version}, server on core ${cores.server || '(unpinned)'}, load on core ${cores.load || '(unpinned)'}, ${SECONDS} s per saturation run, ${HALF_SECONDS} s per open-loop run at half rate, ${CONNECTIONS} connections, PostgreSQL${useRedis ? ' + Redis' : ''}, log level ${process.env.BENCH_LOG_LEVEL || 'warn'}, metrics ${process.env.BENCH_METRICS || 'off'}, ${loadLine()} before the run`,
);

const database = await createBenchDatabase();
if (process.env.BENCH_METRICS === 'compare') {
  try {
    await compareMetrics({ databaseUrl: database.url, redisUrl: useRedis ? REDIS_URL : '', cores: cores.server });
    console.log(`${loadLine()} after the run`);
  } finally {
    await database.drop();
  }
  process.exit(process.exitCode ?? 0);
}
const children: ChildHandle[] = [];
const listeners: Listener[] = [];
const cleanup = async () => {
  for (const l of listeners) l.socket.close();
  await Promise.allSettled(children.map((c) => c.stop()));
  await database.drop();
};
process.on('SIGINT', () => void cleanup().then(() => process.exit(130)));

const profiles: string[] = [];
/** CPU per request at saturation: the server process, and PostgreSQL (all its processes). */
const cpu: Array<[string, number, number]> = [];
async function withCpu(name: string, who: string, pid: number, run: () => Promise<LoadResult>): Promise<LoadResult> {
  const [node0, pg0] = [cpuSecondsOf(pid), cpuByName('postgres')];
  const result = await run();
  const [node1, pg1] = [cpuSecondsOf(pid), cpuByName('postgres')];
  // maxRate's 2 s warm-up is inside the window: count its requests too (at the measured rate).
  const requests = result.requests + result.rps * 2;
  cpu.push([`${name} (${who})`, ((node1 - node0) / requests) * 1000, (cpuSpent(pg0, pg1) / requests) * 1000]);
  return result;
}

try {
  // --- the real server -------------------------------------------------------------------------
  const real = spawnTs('scripts/bench/lib/serve.ts', {
    cores: cores.server,
    nodeArgs: SERVER_NODE_ARGS,
    env: benchEnv({
      DATABASE_URL: database.url,
      REDIS_URL: useRedis ? REDIS_URL : '',
      ...(process.env.BENCH_METRICS === 'on' ? { METRICS_TOKEN: 'bench-metrics-token-0123456789' } : {}),
    }),
  });
  children.push(real);
  const { url } = (await real.ready) as { url: string };

  const roller = await newGuest(url);
  const audience = await Promise.all(Array.from({ length: LISTENERS }, () => newGuest(url)));
  const slug = await roomWith(
    roller.api,
    audience.map((a) => a.api),
  );
  for (const a of audience) {
    try {
      listeners.push(await connectRoom(url, slug, a.key));
    } catch (err) {
      console.log(`! listening socket refused (${(err as Error).message}): realtime not available, rolls measured without listeners`);
      break;
    }
  }
  const authHeaders = { authorization: `Bearer ${roller.key}`, 'content-type': 'application/json', accept: 'application/json' };

  const probe = await roller.api.post('/roll', JSON.parse(ROLL_BODY(slug)));
  const rollsAvailable = probe.status === 201;
  if (!rollsAvailable) console.log(`! POST /roll answered ${probe.status} (${probe.text.slice(0, 120)}): roll rows skipped for the real server`);

  // --- the baseline: bare Express + one pg transaction, same database, same core, up beside it --
  const ids = new pg.Client({ connectionString: database.url });
  await ids.connect();
  const roomId = (await ids.query('SELECT id, user_id FROM rooms WHERE slug = $1', [slug])).rows[0];
  await ids.end();
  const bare = spawnTs('scripts/bench/lib/bareRollServer.ts', {
    cores: cores.server,
    nodeArgs: SERVER_NODE_ARGS,
    env: { DATABASE_URL: database.url, BENCH_USER_ID: String(roomId.user_id), BENCH_ROOM_ID: String(roomId.id) },
  });
  children.push(bare);
  const bareUrl = ((await bare.ready) as { url: string }).url;
  const json = { 'content-type': 'application/json', accept: 'application/json' };

  // Each target's saturation runs alternate, baseline then service, ROUNDS times: the machine's speed
  // drifts over minutes (the baseline alone moved 0.87 to 1.08 ms of CPU per request between runs),
  // and measuring one side after the other put that drift into the ratio.
  const realRuns: Record<string, { max: LoadResult; half: LoadResult; maxes: LoadResult[] }> = {};
  const baseRuns: Record<string, { max: LoadResult; half: LoadResult; maxes: LoadResult[] }> = {};
  let uuids: string[] = [];
  const getRoll = (u: string, headers: Record<string, string>) => ({
    url: u,
    requests: [
      { method: 'GET', headers, setupRequest: (req: RequestSpec) => ({ ...req, path: `/api/1.0/roll/${uuids[Math.floor(Math.random() * uuids.length)]}` }) },
    ],
  });
  const measure = async (name: string, service: (u: string) => Parameters<typeof maxRate>[1], baseline?: (u: string) => Parameters<typeof maxRate>[1]) => {
    fs.mkdirSync(path.join(root, 'profiles'), { recursive: true });
    const realMaxes: LoadResult[] = [];
    const baseMaxes: LoadResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      if (baseline) baseMaxes.push(await withCpu(name, 'bare pg baseline', bare.pid, () => maxRate(name, baseline(bareUrl))));
      const profiling = cpuProf && round === 0;
      const file = path.join(root, 'profiles', `http-${name.replace(/\W+/g, '-')}-${Date.now()}.cpuprofile`);
      const sampling = heapProf && round === 0;
      if (profiling) await real.ask({ cmd: 'profile-start' });
      if (sampling) await real.ask({ cmd: 'heap-start', promoted: args.has('--heap-prof=promoted') });
      realMaxes.push(await withCpu(name, 'service', real.pid, () => maxRate(name, service(url))));
      if (profiling) profiles.push((await real.ask<{ file: string }>({ cmd: 'profile-stop', file })).file);
      if (sampling) profiles.push((await real.ask<{ file: string }>({ cmd: 'heap-stop', file: file.replace(/\.cpuprofile$/, '.heapprofile') })).file);
    }
    if (baseline) {
      const max = mean(baseMaxes);
      baseRuns[name] = { max, maxes: baseMaxes, half: await atRate(name, max.rps / 2, baseline(bareUrl)) };
    }
    const max = mean(realMaxes);
    await real.ask({ cmd: 'pauses' }); // from here: what the open-loop run below meets
    if (TRACE_SLOW_MS) await real.ask({ cmd: 'slow-requests' });
    realRuns[name] = { max, maxes: realMaxes, half: await atRate(name, max.rps / 2, service(url)) };
    if (TRACE_SLOW_MS) {
      const own = await real.ask<{ seen: number; slow: Array<[number, number]> }>({ cmd: 'slow-requests', overMs: TRACE_SLOW_MS });
      printServerSlow(`${name}, service at half rate`, realRuns[name]!.half.startEpoch!, own.seen, own.slow);
    }
    const pauses = await real.ask<{
      gc: Record<string, { n: number; totalMs: number; maxMs: number }>;
      timeline: Array<[number, string, number]>;
      loopDelayMs: { p99: number; max: number };
      threads: { mainRanMs: number; mainWaitedMs: number; othersRanMs: number } | null;
    }>({ cmd: 'pauses' });
    console.log(
      `${name}, service at half rate: event-loop delay p99 ${pauses.loopDelayMs.p99} ms, max ${pauses.loopDelayMs.max} ms; garbage collections ${Object.entries(
        pauses.gc,
      )
        .map(([k, g]) => `${k} ${g.n}x, ${g.totalMs} ms in all, longest ${g.maxMs} ms`)
        .join('; ')}`,
    );
    if (TRACE_SLOW_MS) {
      const at0 = realRuns[name]!.half.startEpoch!;
      console.log(
        `${name}, service at half rate: its collections over 4 ms or not minor (s into the run: kind ms): ${pauses.timeline
          .filter(([at]) => at >= at0)
          .map(([at, kind, ms]) => `${((at - at0) / 1000).toFixed(2)}: ${kind} ${ms}`)
          .join('; ')}`,
      );
    }
    if (pauses.threads)
      console.log(
        `${name}, service at half rate: main thread ran ${pauses.threads.mainRanMs} ms and waited ${pauses.threads.mainWaitedMs} ms for its core; the other threads (V8 GC and compiler workers, libuv) ran ${pauses.threads.othersRanMs} ms`,
      );
  };

  // The same authenticated route, no database write: what auth + rate limit + Express cost alone.
  if (!only) await measure('GET /user', (u) => ({ url: `${u}/api/1.0/user`, headers: authHeaders }));
  if (rollsAvailable) {
    if (only === 'get') for (let i = 0; i < 500; i++) await roller.api.post('/roll', JSON.parse(ROLL_BODY(slug)));
    else
      await measure(
        'POST /roll',
        (u) => ({ url: `${u}/api/1.0/roll`, method: 'POST', headers: authHeaders, body: ROLL_BODY(slug) }),
        (u) => ({ url: `${u}/api/1.0/roll`, method: 'POST', headers: json, body: ROLL_BODY(slug) }),
      );
    uuids = await latestRollUuids(database.url);
    if (!only || only === 'get')
      await measure(
        'GET /roll/{uuid}',
        (u) => getRoll(u, authHeaders),
        (u) => getRoll(u, json),
      );
  }
  // Database work per request, counted by PostgreSQL itself over 100 sequential requests.
  const statements: Record<string, QueryCount> = {};
  if (rollsAvailable) statements['POST /roll (service)'] = await perRequest(database.url, 100, () => roller.api.post('/roll', JSON.parse(ROLL_BODY(slug))));
  statements['POST /roll (bare pg baseline)'] = await perRequest(database.url, 100, () =>
    fetch(`${bareUrl}/api/1.0/roll`, { method: 'POST', headers: json, body: ROLL_BODY(slug) }).then((r) => r.text()),
  );
  const delivered = listeners.reduce((s, l) => s + (l.counts.get('RollCreateEvent') ?? 0), 0);
  for (const l of listeners) l.socket.close();
  listeners.length = 0;
  const realIdle = await real.ask<{ rss: number }>({ cmd: 'memory' });
  await Promise.all([real.stop(), bare.stop()]);
  children.length = 0;

  // --- report ----------------------------------------------------------------------------------
  const rows = [];
  for (const name of ['POST /roll', 'GET /roll/{uuid}', 'GET /user']) {
    const r = realRuns[name];
    const b = baseRuns[name];
    if (!r && !b) continue;
    if (b)
      rows.push([
        `${name} (bare pg baseline)`,
        fmt(b.max.rps, 0),
        fmt(b.max.p50),
        fmt(b.max.p99),
        fmt(b.half.p50),
        fmt(b.half.p99),
        '1.00x',
        String(b.max.failures + b.half.failures),
      ]);
    if (r)
      rows.push([
        `${name} (service)`,
        fmt(r.max.rps, 0),
        fmt(r.max.p50),
        fmt(r.max.p99),
        fmt(r.half.p50),
        fmt(r.half.p99),
        b ? ratio(r.max.rps, b.max.rps) : '—',
        String(r.max.failures + r.half.failures),
      ]);
  }
  printTable(
    'Throughput at saturation, and latency (ms) at half that rate',
    ['target', 'req/s', 'p50@max', 'p99@max', 'p50@half', 'p99@half', 'vs baseline', 'failed'],
    rows,
  );
  console.log(`(req/s and latency at max: the mean of ${ROUNDS} saturation runs per side, baseline and service alternating)`);
  for (const name of ['POST /roll', 'GET /roll/{uuid}']) {
    const r = realRuns[name];
    const b = baseRuns[name];
    if (r && b)
      console.log(
        `${name}: service vs baseline round by round: ${r.maxes.map((m, i) => `${fmt(m.rps, 0)} / ${fmt(b.maxes[i]!.rps, 0)} = ${ratio(m.rps, b.maxes[i]!.rps)}`).join(', ')}`,
      );
  }
  if (rollsAvailable && realRuns['POST /roll']) {
    const r = realRuns['POST /roll']!;
    const b = baseRuns['POST /roll']!;
    const share = r.max.rps / b.max.rps;
    console.log('');
    console.log(
      `POST /roll: ${(share * 100).toFixed(0)}% of the baseline's throughput (target >= 70%, with fairness proofs): ${share >= 0.7 ? 'met' : 'MISSED'}`,
    );
    console.log(
      `POST /roll: p99 ${fmt(r.half.p99)} ms at ${fmt(r.half.rps, 0)} req/s (half the maximum; target < 50 ms): ${r.half.p99 < 50 ? 'met' : 'MISSED'}`,
    );
    const g = realRuns['GET /roll/{uuid}'];
    const gb = baseRuns['GET /roll/{uuid}'];
    if (g && gb) {
      console.log(
        `GET /roll/{uuid}: ${((g.max.rps / gb.max.rps) * 100).toFixed(0)}% of the baseline's throughput (target >= 80%): ${g.max.rps / gb.max.rps >= 0.8 ? 'met' : 'MISSED'}`,
      );
      console.log(
        `GET /roll/{uuid}: p99 ${fmt(g.half.p99)} ms at ${fmt(g.half.rps, 0)} req/s (half the maximum; target < 50 ms): ${g.half.p99 < 50 ? 'met' : 'MISSED'}`,
      );
    }
    console.log(`RollCreateEvent deliveries to the ${LISTENERS} listening sockets: ${delivered}`);
  }
  const cpuByTarget = new Map<string, Array<[number, number]>>();
  for (const [k, n, p] of cpu) cpuByTarget.set(k, [...(cpuByTarget.get(k) ?? []), [n, p]]);
  const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  printTable(
    `CPU per request at saturation (ms, mean of ${ROUNDS} runs; Node server process vs all PostgreSQL processes)`,
    ['target', 'server CPU', 'PostgreSQL CPU'],
    [...cpuByTarget].map(([k, v]) => [k, fmt(avg(v.map((x) => x[0])), 2), fmt(avg(v.map((x) => x[1])), 2)]),
  );
  printTable(
    'PostgreSQL work per POST /roll (pg_stat_database over 100 sequential requests)',
    ['target', 'statements+transactions', 'rows inserted', 'rows fetched'],
    Object.entries(statements).map(([k, q]) => [k, fmt(q.transactions), fmt(q.inserted), fmt(q.fetched)]),
  );
  const fails = Object.values(realRuns)
    .flatMap((x) => [x.max, x.half])
    .filter((x) => x.failures > 0);
  for (const f of fails) console.log(`! ${f.label}: ${f.failures} failed responses (${f.statuses})`);
  console.log(`${loadLine()} after the run`);
  console.log(`service memory after the runs: rss ${fmt(realIdle.rss / 1048576)} MiB`);
  for (const f of profiles) {
    const heap = f.endsWith('.heapprofile');
    console.log(
      `${heap ? 'Allocation' : 'CPU'} profile of the service at saturation: ${path.relative(root, f)} (summarize: npx tsx scripts/bench/lib/${heap ? 'heapProfile' : 'profile'}.ts ${path.relative(root, f)})`,
    );
  }
} finally {
  // Bounded: a child that will not stop or a database that will not drop must not hang the benchmark.
  await Promise.race([cleanup(), new Promise((r) => setTimeout(r, 30_000))]);
}
// Client sockets and keep-alive agents may linger: the benchmark is over.
process.exit(process.exitCode ?? 0);

async function latestRollUuids(url: string): Promise<string[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const rows = (await c.query<{ uuid: string }>('SELECT uuid FROM rolls ORDER BY id DESC LIMIT 500')).rows;
  await c.end();
  return rows.map((r) => r.uuid);
}

/** The mean of several saturation runs of one target (rates and latencies averaged, counts summed). */
function mean(runs: LoadResult[]): LoadResult {
  const avg = (f: (r: LoadResult) => number) => runs.reduce((s, r) => s + f(r), 0) / runs.length;
  return {
    label: runs[0]!.label,
    rps: avg((r) => r.rps),
    p50: avg((r) => r.p50),
    p99: avg((r) => r.p99),
    requests: runs.reduce((s, r) => s + r.requests, 0),
    failures: runs.reduce((s, r) => s + r.failures, 0),
    statuses: runs.map((r) => r.statuses).join(' | '),
  };
}
