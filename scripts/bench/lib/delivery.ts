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
  /**
   * Per send: its first delivery's latency and its last's. The first is the pipeline (from the stamp
   * to the first socket written and read); last - first is the fan-out itself (every socket written).
   */
  spans: Array<[number, number]>;
}

/** Wait until `count()` has not grown for QUIET_MS (events still in flight are late, not lost); answers the time waited. */
export async function settle(count: () => number | Promise<number>, maxMs: number): Promise<number> {
  const start = Date.now();
  let last = await count();
  let lastChange = Date.now();
  while (Date.now() - lastChange < QUIET_MS && Date.now() - start < maxMs) {
    await sleep(250);
    const now = await count();
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
 * One block's deliveries to an audience: which ids each client got, how many times, when, and the
 * latency of each from `stamp(payload)`. Every block of a comparison records the same things the same
 * way, in the clients' own process, and keeps no object per delivery: ids are numbered at first
 * sight, and per-delivery records are plain numbers. A phase that kept a [uuid, time] pair per
 * delivery (200,000 of them) set off major collections in the clients' process that the other phase
 * did not, and its clients then read their events late (docs/performance.md, "Who was late").
 * The audience's listeners call `record`; lib/audience.ts makes a new Tracker per block and routes
 * its clients' listeners to it.
 */
export class Tracker {
  private readonly numbers = new Map<string, number>();
  private readonly ids: string[] = [];
  private readonly seen: Array<Map<number, number>>;
  private readonly latencies: number[] = [];
  /** per delivery, in arrival order: its id's number and when it arrived (epoch ms) */
  private readonly arrivedId: number[] = [];
  private readonly arrivedAt: number[] = [];

  constructor(
    clients: number,
    private readonly idOf: (p: any) => string,
    private readonly stamp: (p: any) => number,
  ) {
    this.seen = Array.from({ length: clients }, () => new Map<number, number>());
  }

  /** Client `index` received `payload` (Socket.IO or Pusher alike). */
  record(index: number, payload: any): void {
    const now = Date.now();
    const n = this.number(this.idOf(payload));
    const seen = this.seen[index]!;
    seen.set(n, (seen.get(n) ?? 0) + 1);
    this.latencies.push(now - this.stamp(payload));
    this.arrivedId.push(n);
    this.arrivedAt.push(now);
  }

  get count(): number {
    return this.latencies.length;
  }

  /** Every delivery (measured or not) as [id, arrival epoch ms], in arrival order. */
  *arrivals(): Generator<[string, number]> {
    for (let i = 0; i < this.arrivedId.length; i++) yield [this.ids[this.arrivedId[i]!]!, this.arrivedAt[i]!];
  }

  /** The deliveries of `ids`: their latencies, and the lost (an id a client never got) and duplicated ones, over every client tracked. */
  tally(ids: readonly string[], wallMs: number): Delivery {
    let lost = 0;
    let duplicated = 0;
    for (const seen of this.seen) {
      for (const id of ids) {
        const number = this.numbers.get(id);
        const n = number === undefined ? 0 : (seen.get(number) ?? 0);
        if (n === 0) lost++;
        if (n > 1) duplicated += n - 1;
      }
    }
    // Only the deliveries of `ids`: a block's warm-up sends go to the same audience, unmeasured.
    const measured = new Set(ids.map((id) => this.numbers.get(id)));
    const latencies: number[] = [];
    const first = new Map<number, number>();
    const last = new Map<number, number>();
    for (let i = 0; i < this.latencies.length; i++) {
      const n = this.arrivedId[i]!;
      if (!measured.has(n)) continue;
      const latency = this.latencies[i]!;
      latencies.push(latency);
      first.set(n, Math.min(first.get(n) ?? Infinity, latency));
      last.set(n, Math.max(last.get(n) ?? -Infinity, latency));
    }
    const spans = [...first].map(([n, f]): [number, number] => [f, last.get(n)!]);
    return { latencies, lost, duplicated, expected: this.seen.length * ids.length, wallMs, spans };
  }

  private number(id: string): number {
    let n = this.numbers.get(id);
    if (n === undefined) {
      n = this.ids.length;
      this.ids.push(id);
      this.numbers.set(id, n);
    }
    return n;
  }
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
