/** Counting deliveries in bench:fanout: who got which event, when, and what was lost or duplicated. */
import { sleep } from './processes';

/** After the last send: wait until nothing arrived for this long (or `maxMs`), then count. */
export const QUIET_MS = 3000;

export interface Delivery {
  latencies: number[];
  lost: number;
  duplicated: number;
  expected: number;
  wallMs: number;
}

/** Wait until `count()` has not grown for QUIET_MS (events still in flight are late, not lost); answers the time waited. */
export async function settle(count: () => number, maxMs: number): Promise<number> {
  const start = Date.now();
  let last = count();
  let lastChange = Date.now();
  while (Date.now() - lastChange < QUIET_MS && Date.now() - start < maxMs) {
    await sleep(250);
    const now = count();
    if (now !== last) {
      last = now;
      lastChange = Date.now();
    }
  }
  return Date.now() - start;
}

/** Events of a whole audience, for settle(): the sum of every client's counts. */
export function countAll(audience: ReadonlyArray<{ counts: Map<string, number> }>): number {
  return audience.reduce((n, l) => n + [...l.counts.values()].reduce((a, b) => a + b, 0), 0);
}

/**
 * Per client: which ids it got, and when; latency from `stamp(payload)`. `on` subscribes to the
 * event on that client (Socket.IO or Pusher alike).
 */
export function track(on: (listener: (payload: any) => void) => void, idOf: (p: any) => string, stamp: (p: any) => number, got: Map<string, number>[], latencies: number[], index: number, arrivals?: Array<[string, number]>) {
  const seen = new Map<string, number>();
  got[index] = seen;
  on((payload: any) => {
    const now = Date.now();
    const id = idOf(payload);
    seen.set(id, (seen.get(id) ?? 0) + 1);
    latencies.push(now - stamp(payload));
    arrivals?.push([id, now]);
  });
}

export function tally(got: Map<string, number>[], ids: string[], latencies: number[], wallMs: number): Delivery {
  let lost = 0;
  let duplicated = 0;
  for (const seen of got) {
    for (const id of ids) {
      const n = seen.get(id) ?? 0;
      if (n === 0) lost++;
      if (n > 1) duplicated += n - 1;
    }
  }
  return { latencies, lost, duplicated, expected: got.length * ids.length, wallMs };
}

/** Send `n` things at `rate` per second on a fixed schedule (not one after another's answer). */
export async function steady(n: number, rate: number, send: (i: number) => Promise<unknown>): Promise<void> {
  const start = Date.now();
  const inflight: Promise<unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - Date.now();
    if (wait > 0) await sleep(wait);
    inflight.push(send(i));
  }
  await Promise.all(inflight);
}
