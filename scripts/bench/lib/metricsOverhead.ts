/**
 * BENCH_METRICS=compare npm run bench:http: the cost of Prometheus metrics (the target: metrics on
 * within 5% of off). Two real servers up side by side on the same database, Redis and core, one
 * without metrics and one with METRICS_TOKEN (every request counted and timed, every realtime event
 * counted, and scraped every BENCH_SCRAPE_SECONDS as Prometheus would). Each round starts a fresh
 * pair of processes and runs every target on both, the order flipped every round, so the machine's
 * drift over minutes and the start order fall on both sides alike; the ratios are taken round by
 * round (BENCH_ROUNDS, 5), and their median decides.
 */
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import { Metrics } from '../../../src/metrics';
import { countRequests } from '../../../src/metrics/http';
import { benchEnv, newGuest, roomWith } from './fixtures';
import { maxRate, type LoadResult } from './load';
import { cpuSecondsOf, spawnTs, type ChildHandle } from './processes';
import { median } from './stats';
import { connectRoom, type Listener } from './sockets';
import { fmt, printTable } from './table';

const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS || 5));
const LISTENERS = Number(process.env.BENCH_LISTENERS ?? 10);
const SCRAPE_SECONDS = Number(process.env.BENCH_SCRAPE_SECONDS || 15);
/**
 * BENCH_METRICS_CALIBRATE=1: the "on" server without metrics too, an A/A run: how far the ratios
 * stray when nothing differs but the process (its heap, its JIT, when the machine was busy).
 */
const CALIBRATE = process.env.BENCH_METRICS_CALIBRATE === '1';
const ROLL_BODY = (slug: string) =>
  JSON.stringify({
    dice: [
      { type: 'd6', theme: 'standard' },
      { type: 'd20', theme: 'standard' },
    ],
    room: slug,
  });

interface Side {
  name: 'off' | 'on';
  child: ChildHandle;
  url: string;
  key: string;
  slug: string;
  listeners: Listener[];
  token?: string;
}

interface Run {
  rps: number;
  /** Server CPU per request, ms. */
  cpuMs: number;
  failures: number;
}

async function start(name: Side['name'], env: Record<string, string>, cores: string): Promise<Side> {
  const token = name === 'on' && !CALIBRATE ? randomBytes(24).toString('hex') : undefined;
  const child = spawnTs('scripts/bench/lib/serve.ts', { cores, env: benchEnv({ ...env, ...(token ? { METRICS_TOKEN: token } : {}) }) });
  const { url } = (await child.ready) as { url: string };
  const roller = await newGuest(url);
  const audience = await Promise.all(Array.from({ length: LISTENERS }, () => newGuest(url)));
  const slug = await roomWith(
    roller.api,
    audience.map((a) => a.api),
  );
  const listeners = await Promise.all(audience.map((a) => connectRoom(url, slug, a.key)));
  return { name, child, url, key: roller.key, slug, listeners, token };
}

/** One saturation run, with the server's CPU over it (warm-up included, as bench:http counts it). */
async function run(side: Side, target: string): Promise<Run> {
  const headers = { authorization: `Bearer ${side.key}`, 'content-type': 'application/json', accept: 'application/json' };
  const options =
    target === 'POST /roll'
      ? { url: `${side.url}/api/1.0/roll`, method: 'POST' as const, headers, body: ROLL_BODY(side.slug) }
      : { url: `${side.url}/api/1.0/user`, headers };
  // Prometheus scrapes the instance with metrics on, as it would in production.
  const scraper = side.token ? setInterval(() => void scrape(side).catch(() => undefined), SCRAPE_SECONDS * 1000) : null;
  const cpu0 = cpuSecondsOf(side.child.pid);
  let result: LoadResult;
  try {
    result = await maxRate(`${target} (metrics ${side.name})`, options);
  } finally {
    if (scraper) clearInterval(scraper);
  }
  const requests = result.requests + result.rps * 2;
  return { rps: result.rps, cpuMs: ((cpuSecondsOf(side.child.pid) - cpu0) / requests) * 1000, failures: result.failures };
}

async function scrape(side: Side): Promise<string> {
  const res = await fetch(`${side.url}/metrics`, { headers: { authorization: `Bearer ${side.token}` } });
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}`);
  return res.text();
}

/**
 * Share of the server's busy CPU (idle samples left out) spent in the metrics' own code, by self time
 * in a V8 profile: prom-client, src/metrics/, and Socket.IO's outgoing-listener hook the delivery
 * counter installs. Unlike the off/on ratios, a busy machine barely moves it: both sides of the
 * fraction are samples of the same process over the same seconds.
 */
function metricsShareOfProfile(file: string): { busyMs: number; shares: Record<string, number> } {
  type Node = { id: number; callFrame: { functionName: string; url: string } };
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  let busy = 0;
  const spent: Record<string, number> = { 'prom-client': 0, 'src/metrics': 0, 'socket.io notifyOutgoingListeners': 0 };
  profile.samples.forEach((id, i) => {
    const node = byId.get(id)!;
    const dt = profile.timeDeltas[i] ?? 0;
    if (node.callFrame.functionName === '(idle)') return;
    busy += dt;
    const { url, functionName } = node.callFrame;
    if (url.includes('/node_modules/prom-client/')) spent['prom-client']! += dt;
    else if (url.includes('/src/metrics/')) spent['src/metrics']! += dt;
    else if (functionName === 'notifyOutgoingListeners') spent['socket.io notifyOutgoingListeners']! += dt;
  });
  return { busyMs: busy / 1000, shares: Object.fromEntries(Object.entries(spent).map(([k, v]) => [k, v / busy])) };
}

/**
 * The instrument alone, in this process: the real middleware on a stand-in request and response
 * (start time, 'finish' listener, route lookup, prom-client's counter and histogram), per request.
 * A figure that the machine's noise does not swamp, to set beside the ratios.
 */
function instrumentCostMicroseconds(): number {
  const app = express();
  app.post('/api/1.0/roll', () => undefined);
  const route = (app as unknown as { router: { stack: Array<{ route?: object }> } }).router.stack.find((l) => l.route)!.route;
  const middleware = countRequests(new Metrics());
  const n = 300_000;
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    const start = performance.now();
    for (let i = 0; i < n; i++) {
      const res = Object.assign(new EventEmitter(), { statusCode: 201 });
      const req = { app, route, method: 'POST' };
      Object.assign(res, { req });
      middleware(req as never, res as never, () => undefined);
      res.emit('finish');
    }
    best = Math.min(best, ((performance.now() - start) * 1000) / n);
  }
  // Less the stand-ins' own cost (an EventEmitter and two objects per request).
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const res = Object.assign(new EventEmitter(), { statusCode: 201 });
    Object.assign(res, { req: { app, route, method: 'POST' } });
    res.on('finish', () => undefined);
    res.emit('finish');
  }
  return Math.max(0, best - ((performance.now() - start) * 1000) / n);
}

const TARGETS = ['GET /user', 'POST /roll'] as const;

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

async function stopSides(sides: Side[]) {
  for (const side of sides) for (const l of side.listeners) l.socket.close();
  await Promise.allSettled(sides.map((s) => s.child.stop()));
}

/**
 * Fresh processes every round, started in the order that round runs them (off first in odd rounds,
 * on first in even ones): an A/A run (BENCH_METRICS_CALIBRATE=1) kept on one pair of processes for
 * every round found the second process started 5 to 13% slower per request with both sides alike,
 * a bias that went into every ratio.
 */
export async function compareMetrics(options: { databaseUrl: string; redisUrl: string; cores: string }): Promise<void> {
  const env = { DATABASE_URL: options.databaseUrl, REDIS_URL: options.redisUrl, PUSHER_APP_SECRET: 'bench-pusher-secret-0123456789' };
  const rows = new Map<string, string[][]>(TARGETS.map((t) => [t, []]));
  const ratios = new Map<string, { rps: number[]; cpu: number[] }>(TARGETS.map((t) => [t, { rps: [], cpu: [] }]));
  const offCpu: number[] = [];
  const profiled: string[][] = [];
  let text = '';
  let sides: Side[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const order: Array<Side['name']> = round % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
      // One after the other: the very first runs the migrations.
      sides = [];
      for (const name of order) sides.push(await start(name, env, options.cores));
      const side = (name: Side['name']) => sides.find((s) => s.name === name)!;
      for (const target of TARGETS) {
        const got = new Map<string, Run>();
        for (const s of sides) got.set(s.name, await run(s, target));
        const a = got.get('off')!;
        const b = got.get('on')!;
        if (target === 'GET /user') offCpu.push(a.cpuMs);
        ratios.get(target)!.rps.push(b.rps / a.rps);
        ratios.get(target)!.cpu.push(b.cpuMs / a.cpuMs);
        rows
          .get(target)!
          .push([
            `${round + 1} (${order.join(' then ')})`,
            fmt(a.rps, 0),
            fmt(b.rps, 0),
            (b.rps / a.rps).toFixed(3),
            fmt(a.cpuMs, 3),
            fmt(b.cpuMs, 3),
            (b.cpuMs / a.cpuMs).toFixed(3),
            String(a.failures + b.failures),
          ]);
      }
      if (round === ROUNDS - 1 && !CALIBRATE) {
        // One more run of each target on the server with metrics on, profiled: the share of its CPU the metrics take.
        for (const target of TARGETS) {
          const file = path.join(os.tmpdir(), `bench-metrics-${process.pid}-${target.replace(/\W+/g, '-')}.cpuprofile`);
          await side('on').child.ask({ cmd: 'profile-start' });
          await run(side('on'), target);
          await side('on').child.ask({ cmd: 'profile-stop', file });
          const { busyMs, shares } = metricsShareOfProfile(file);
          fs.rmSync(file, { force: true });
          const share = Object.values(shares).reduce((x, y) => x + y, 0);
          profiled.push([target, fmt(busyMs, 0), ...Object.values(shares).map((x) => `${(x * 100).toFixed(2)}%`), `${(share * 100).toFixed(2)}%`]);
        }
        text = await scrape(side('on'));
      }
      await stopSides(sides);
      sides = [];
    }

    const summary: string[][] = [];
    for (const target of TARGETS) {
      printTable(
        `${target}: metrics off vs on, round by round (saturation, ${LISTENERS} listening sockets in the room, fresh processes each round)`,
        ['round', 'off req/s', 'on req/s', 'on/off req/s', 'off CPU ms/req', 'on CPU ms/req', 'on/off CPU', 'failed'],
        rows.get(target)!,
      );
      // The median of the round ratios decides: one round disturbed by the rest of the machine moves the mean, not the median.
      const { rps, cpu } = ratios.get(target)!;
      summary.push([
        target,
        median(rps).toFixed(3),
        mean(rps).toFixed(3),
        median(cpu).toFixed(3),
        mean(cpu).toFixed(3),
        median(rps) >= 0.95 && median(cpu) <= 1.05 ? 'met' : 'MISSED',
      ]);
    }
    if (CALIBRATE) console.log('CALIBRATION (BENCH_METRICS_CALIBRATE=1): both servers WITHOUT metrics; the ratios below show the noise alone.');
    printTable(
      `Metrics on vs off over ${ROUNDS} rounds (target, on the medians: req/s >= 0.95x and CPU per request <= 1.05x)`,
      ['target', 'req/s median', 'req/s mean', 'CPU/req median', 'CPU/req mean', 'within 5%'],
      summary,
    );
    if (CALIBRATE) return;
    printTable(
      "Metrics on, one more saturation run profiled: self time of the metrics code, share of the server's busy CPU",
      ['target', 'busy CPU ms', 'prom-client', 'src/metrics', 'socket.io notifyOutgoingListeners', 'all metrics code'],
      profiled,
    );
    const series = text.split('\n').filter((l) => l && !l.startsWith('#')).length;
    const requests = text
      .split('\n')
      .filter((l) => l.startsWith('dice_http_requests_total'))
      .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
    console.log(
      `metrics on (last round's server): ${series} series, ${fmt(requests, 0)} requests counted, ${fmt(Buffer.byteLength(text) / 1024)} KiB per scrape`,
    );
    const micro = instrumentCostMicroseconds();
    console.log(
      `the HTTP instrument alone, in process: ${micro.toFixed(2)} µs per request (best of 5 x 300,000), against the ${fmt(median(offCpu) * 1000, 0)} µs of server CPU a GET /user costs with metrics off (median of the rounds)`,
    );
  } finally {
    await stopSides(sides);
  }
}
