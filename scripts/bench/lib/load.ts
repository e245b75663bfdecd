import autocannon, { type Options, type Result } from 'autocannon';

export interface LoadResult {
  label: string;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  /** Responses that were not 2xx, plus socket errors and timeouts. */
  failures: number;
  statuses: string;
}

function toResult(label: string, r: Result): LoadResult {
  const statuses = Object.entries(r.statusCodeStats ?? {}).map(([code, { count }]) => `${code}:${count}`).join(' ');
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
 * Open-loop load at a fixed rate (autocannon corrects for coordinated omission): the latency a
 * client sees when the server is not saturated.
 */
export async function atRate(label: string, rate: number, options: Options): Promise<LoadResult> {
  return toResult(label, await autocannon({ connections: CONNECTIONS, duration: SECONDS, timeout: 10, ...options, overallRate: Math.max(1, Math.round(rate)) }));
}
