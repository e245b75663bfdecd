/** bench:fanout's side of an audience process (lib/audience.ts): spawn it, and ask it. */
import type { Stall } from './child';
import type { Delivery } from './delivery';
import { spawnTs, type ChildHandle } from './processes';

export interface AudienceTally {
  delivery: Delivery;
  /** each delivery timed from its roll's 201 (rolls only) */
  fromAnswer: number[];
  /** each id's last arrival (epoch ms) */
  slowest: Array<[string, number]>;
  /** the audience process's own event-loop gaps during the block (BENCH_TRACE_SLOW_MS) */
  stalls: Stall[];
}

export class Audience {
  private constructor(
    readonly label: string,
    readonly handle: ChildHandle,
  ) {}

  /**
   * An audience process pinned to `cores`. Its young generation is larger than Node's default, and
   * fixed: every block parses 200,000 events that are garbage at once, and the fewer scavenges the
   * measuring process runs, the less of its own pauses it adds to what it measures (on both sides
   * alike); and an audience sits idle through the other side's blocks, after which V8 would have
   * shrunk a young generation that may shrink.
   */
  static async start(label: string, cores: string): Promise<Audience> {
    const handle = spawnTs('scripts/bench/lib/audience.ts', { cores, nodeArgs: ['--min-semi-space-size=64', '--max-semi-space-size=64'] });
    await handle.ready;
    return new Audience(label, handle);
  }

  /** One client per key (the i-th to urls[i % 2]); answers how long it took and how many were retried. */
  connect(kind: 'socket.io' | 'pusher', urls: [string, string], slug: string, keys: string[], pusherJs = 0) {
    return this.ask<{ ms: number; retried: number; pusherJs: number }>({ cmd: 'connect', kind, urls, slug, keys, pusherJs }, 600_000);
  }

  /** Start recording a block (the process is fully collected first). */
  async startBlock(stamp: 'created_at' | 'sentAt'): Promise<void> {
    await this.ask({ cmd: 'block', stamp });
  }

  /** Events received so far: the block's deliveries, or every event since the clients connected. */
  async count(block = true): Promise<number> {
    return (await this.ask<{ count: number }>({ cmd: 'count', block })).count;
  }

  tally(ids: string[], wallMs: number, answeredAt?: Map<string, number>): Promise<AudienceTally> {
    return this.ask<AudienceTally>({ cmd: 'tally', ids, wallMs, answeredAt: answeredAt ? [...answeredAt] : undefined }, 120_000);
  }

  async sample(): Promise<unknown> {
    return (await this.ask<{ sample: unknown }>({ cmd: 'sample' })).sample;
  }

  async close(): Promise<void> {
    await this.ask({ cmd: 'close' }).catch(() => undefined);
  }

  private async ask<T>(message: Record<string, unknown>, timeoutMs?: number): Promise<T> {
    const answer = await this.handle.ask<T & { error?: string }>(message, timeoutMs);
    if (answer.error) throw new Error(`audience ${this.label}: ${answer.error}`);
    return answer;
  }
}
