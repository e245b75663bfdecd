import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import autocannon, { type Options, type Result } from 'autocannon';
import { summarize } from './stats';

export interface LoadResult {
  label: string;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  /** Responses that were not 2xx, plus socket errors and timeouts. */
  failures: number;
  statuses: string;
  /** Epoch ms at which the open-loop run started (for lining its trace up with the server's). */
  startEpoch?: number;
}

function toResult(label: string, r: Result): LoadResult {
  const statuses = Object.entries(r.statusCodeStats ?? {})
    .map(([code, { count }]) => `${code}:${count}`)
    .join(' ');
  // Requests completed divided by the run's length: autocannon's `requests.average` is per-second buckets.
  return {
    label,
    rps: r.requests.total / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: r.requests.total,
    failures: r.non2xx + r.errors + r.timeouts,
    statuses,
  };
}

export const SECONDS = Number(process.env.BENCH_SECONDS || 10);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 32);

/** Closed-loop load: `connections` clients each sending as fast as answers come. Gives the maximum rate. */
export async function maxRate(label: string, options: Options): Promise<LoadResult> {
  await autocannon({ ...options, connections: options.connections ?? CONNECTIONS, duration: 2 }); // warm-up (JIT, pools)
  return toResult(label, await autocannon({ connections: CONNECTIONS, duration: SECONDS, timeout: 10, ...options }));
}

/**
 * Open-loop load at a fixed rate: the latency a client sees when the server is not saturated.
 *
 * Not autocannon's `overallRate`: that gives each connection a budget per second which it spends
 * closed-loop, as fast as answers come, from the start of every second, so "half the maximum rate"
 * was a saturating burst for the first part of each second and nothing for the rest; and its
 * coordinated-omission correction, with an expected interval of ceil(1 / per-connection rate) = 1 ms,
 * filled the histogram with invented values. Here request i is due at start + i / rate (evenly spaced,
 * as independent clients arrive on average), is sent on any free keep-alive connection (a new one up
 * to OPEN_LOOP_SOCKETS), and its latency runs from when it was due, not from when it left: a server
 * (or a generator) that falls behind is charged for the wait.
 */
export async function atRate(label: string, rate: number, options: Options, length: { seconds?: number; warmupSeconds?: number } = {}): Promise<LoadResult> {
  const seconds = length.seconds ?? HALF_SECONDS;
  const warmupSeconds = length.warmupSeconds ?? HALF_WARMUP_SECONDS;
  const perSecond = Math.max(1, rate);
  const agent = new http.Agent({ keepAlive: true, maxSockets: OPEN_LOOP_SOCKETS });
  const next = requestMaker(options);
  const latencies: number[] = [];
  const statuses = new Map<string, number>();
  let failures = 0;
  const slow: Array<[number, number]> = [];
  // Traced: when the generator opened its connections (ms into the run), a cost the first requests on each pay.
  const opened: number[] = [];
  const known = new WeakSet<object>();
  const inFlight = new Set<Promise<void>>();
  // The first HALF_WARMUP_SECONDS run the same schedule unmeasured (connections, the server's
  // collections after the saturation run just before): the latency at half rate is a steady state's.
  const warmTotal = Math.round(perSecond * warmupSeconds);
  const warmStart = performance.now();
  const start = warmStart + (warmTotal * 1000) / perSecond;
  // The generator's own pauses: a stall here is charged to the server by the due-time clock.
  const ownLoop = TRACE_SLOW_MS ? monitorEventLoopDelay({ resolution: 5 }) : null;
  ownLoop?.enable();
  const total = warmTotal + Math.round(perSecond * seconds);
  let sent = 0;
  const fire = (due: number, measured: boolean) => {
    if (measured && sent === warmTotal + 1) ownLoop?.reset();
    const { url, method, headers, body } = next();
    const done = new Promise<void>((resolve) => {
      const finish = (status: string, ok: boolean) => {
        if (!measured) return resolve();
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (ok) latencies.push(performance.now() - due);
        else failures++;
        if (ok && TRACE_SLOW_MS && performance.now() - due > TRACE_SLOW_MS) slow.push([Math.round(due - start), Math.round(performance.now() - due)]);
        resolve();
      };
      const req = http.request(url, { method, headers, agent, timeout: 10_000 }, (res) => {
        res.resume();
        res.on('end', () => finish(String(res.statusCode), (res.statusCode ?? 0) < 300));
        res.on('error', () => finish('error', false));
      });
      if (TRACE_SLOW_MS)
        req.on('socket', (s) => {
          if (!known.has(s)) {
            known.add(s);
            opened.push(Math.round(performance.now() - start));
          }
        });
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', () => finish('error', false));
      req.end(body);
    });
    inFlight.add(done);
    void done.then(() => inFlight.delete(done));
  };
  while (sent < total) {
    const now = performance.now();
    while (sent < total && warmStart + (sent * 1000) / perSecond <= now) {
      const index = sent++;
      fire(warmStart + (index * 1000) / perSecond, index >= warmTotal);
    }
    if (sent < total) await new Promise((r) => setTimeout(r, Math.max(0, warmStart + (sent * 1000) / perSecond - performance.now())));
  }
  await Promise.all(inFlight);
  agent.destroy();
  const { p50, p99 } = summarize(latencies);
  if (TRACE_SLOW_MS) {
    ownLoop!.disable();
    console.log(
      `${label} at ${Math.round(perSecond)}/s: the load generator's own event-loop delay p99 ${(ownLoop!.percentile(99) / 1e6).toFixed(1)} ms, max ${(ownLoop!.max / 1e6).toFixed(1)} ms`,
    );
    // Slow requests by the 100 ms in which they were due: a stall of the server shows as one cluster.
    const buckets = new Map<number, { n: number; max: number }>();
    for (const [at, ms] of slow) {
      const b = buckets.get(Math.floor(at / 100)) ?? { n: 0, max: 0 };
      buckets.set(Math.floor(at / 100), { n: b.n + 1, max: Math.max(b.max, ms) });
    }
    console.log(
      `${label} at ${Math.round(perSecond)}/s: ${opened.length} connections opened, ${opened.filter((ms) => ms < 0).length} of them in the ${warmupSeconds} s warm-up, ${opened.filter((ms) => ms >= 0 && ms < 1000).length} in the measured run's first second, the last at ${opened.at(-1) ?? 0} ms`,
    );
    console.log(
      `${label} at ${Math.round(perSecond)}/s: ${slow.length} of ${latencies.length} requests over ${TRACE_SLOW_MS} ms, by when they were due (s: count, slowest ms): ${[...buckets].map(([b, v]) => `${(b / 10).toFixed(1)}: ${v.n}, ${v.max}`).join('; ')}`,
    );
  }
  return {
    label,
    rps: latencies.length / ((performance.now() - start) / 1000),
    p50: Math.round(p50 * 10) / 10,
    p99: Math.round(p99 * 10) / 10,
    requests: latencies.length,
    failures,
    statuses: [...statuses].map(([k, n]) => `${k}:${n}`).join(' '),
    startEpoch: performance.timeOrigin + start,
  };
}

/** The server's own slow requests ([epoch ms at arrival, ms taken]) by the 100 ms of the run in which they arrived, printed like atRate's trace. */
export function printServerSlow(label: string, startEpoch: number, seen: number, slow: Array<[number, number]>): void {
  const buckets = new Map<number, { n: number; max: number }>();
  for (const [at, ms] of slow) {
    const k = Math.floor((at - startEpoch) / 100);
    const b = buckets.get(k) ?? { n: 0, max: 0 };
    buckets.set(k, { n: b.n + 1, max: Math.max(b.max, ms) });
  }
  console.log(
    `${label}: ${slow.length} of ${seen} requests took the server itself over ${TRACE_SLOW_MS} ms, by when they arrived (s: count, slowest ms): ${[...buckets].map(([b, v]) => `${(b / 10).toFixed(1)}: ${v.n}, ${Math.round(v.max)}`).join('; ')}`,
  );
}

export { TRACE_SLOW_MS };

/**
 * How long the open-loop runs last (BENCH_HALF_SECONDS, default twice BENCH_SECONDS): a p99 over 10 s
 * at ~180 req/s is the 18th slowest request, which one stall of a shared machine decides by itself.
 */
export const HALF_SECONDS = Number(process.env.BENCH_HALF_SECONDS || SECONDS * 2);

/** Unmeasured seconds of the open-loop schedule before the measured ones (BENCH_HALF_WARMUP_SECONDS, default 2; 0: none). */
const HALF_WARMUP_SECONDS = Number(process.env.BENCH_HALF_WARMUP_SECONDS ?? 2);

/** BENCH_TRACE_SLOW_MS: print when (ms after the open-loop run's start) requests slower than this were due: stalls show as clusters. */
const TRACE_SLOW_MS = Number(process.env.BENCH_TRACE_SLOW_MS || 0);

/** At most this many connections the open-loop generator opens (requests wait for one beyond that, counted). */
const OPEN_LOOP_SOCKETS = 256;

/** The requests an autocannon options object describes (one request, or `requests` with setupRequest), one at a time. */
function requestMaker(options: Options): () => { url: string; method: string; headers: Record<string, string>; body?: string } {
  const base = new URL(String(options.url));
  return () => {
    const spec = options.requests?.[0] as
      { method?: string; headers?: Record<string, string>; body?: string; path?: string; setupRequest?: (r: unknown) => unknown } | undefined;
    let req = {
      method: spec?.method ?? options.method ?? 'GET',
      headers: { ...(options.headers as Record<string, string>), ...spec?.headers },
      body: spec?.body ?? (options.body as string | undefined),
      path: spec?.path ?? base.pathname,
    };
    if (spec?.setupRequest) req = spec.setupRequest(req) as typeof req;
    return { url: new URL(req.path, base).toString(), method: req.method, headers: req.headers, body: req.body };
  };
}
