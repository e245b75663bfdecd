import type { Server } from 'socket.io';
import { Emitter } from '@socket.io/redis-emitter';
import { publishBlock, publishOf, type RedisClient } from '../lib/redis';
import type { Logger } from '../logger';
import type { PublishObserver } from '../metrics/realtime';

/** Where an emit goes inside one namespace: some channels (or all sockets), minus some channels. */
export interface Target {
  namespace: string;
  /** Channels to reach; empty or absent means every socket of the namespace. */
  to?: string[];
  except?: string[];
}

/**
 * The one way the realtime layer talks to sockets it does not hold in its hand. Two shapes:
 * - in process (no Redis): straight into the local namespaces;
 * - Redis: through `@socket.io/redis-emitter`, so every instance, this one included, receives each
 *   emit from the same Redis channel, in the same order. Emitting locally first and remotely second
 *   (what `nsp.emit` does with the adapter) would let clients on two instances see two events of one
 *   room in different orders.
 */
export interface Broadcaster {
  emit(target: Target, event: string, payload: unknown): void;
  /** Drop the targeted sockets from the namespace, on every instance (the client does not retry). */
  disconnect(target: Target): void;
  /**
   * Run `fn`, whose emits must reach Redis as one block (MULTI/EXEC): the per-class emits of one
   * event, so that no other instance's emit lands between them and every client sees one order.
   */
  atomically(fn: () => void): void;
}

export class LocalBroadcaster implements Broadcaster {
  constructor(private readonly io: Server) {}

  /**
   * Only namespaces that exist here: `io.of(name)` would create (and keep) an empty one. `local`: this
   * process's sockets only, even under the Redis adapter, whose own disconnectSockets() would only
   * publish a request (nothing at all while Redis is away, when the clustered shape falls back here).
   */
  private operator(target: Target) {
    const nsp = this.io._nsps.get(target.namespace);
    if (!nsp) return null;
    return nsp.local.to(target.to ?? []).except(target.except ?? []);
  }

  emit(target: Target, event: string, payload: unknown) {
    this.operator(target)?.emit(event, payload);
  }

  disconnect(target: Target) {
    this.operator(target)?.disconnectSockets(false);
  }

  // In process, emits are synchronous: nothing can land between them.
  atomically(fn: () => void) {
    fn();
  }
}

/** What a RedisBroadcaster could not publish while Redis was away: the namespaces, and when it last failed. */
export interface LostEmits {
  /** null: too many to name (resync every room). */
  namespaces: string[] | null;
  lastFailureAt: number;
}

/** Namespaces named in a lost-emits report at most; past this, every room is resynced. */
const MAX_LOST_NAMESPACES = 1000;

export class RedisBroadcaster implements Broadcaster {
  private readonly emitter: Emitter;
  /** PUBLISH with its failures (the adapter guard hides them from `redis.publish`: lib/redis.ts). */
  private readonly publish: (channel: string, message: string | Buffer) => Promise<number>;
  /** While atomically() runs: the publishes to send as one MULTI. */
  private block: Array<[string, Buffer | string]> | null = null;
  /** Namespaces of the emits being made (emit, disconnect, or an atomically() block). */
  private current = new Set<string>();
  private failing = false;
  /** Emits that never reached Redis, by namespace, until takeLost() hands them over. */
  private lost = new Set<string>();
  private lostAll = false;
  private lastFailureAt = 0;
  /** While disconnect() publishes: what to do here if the publish fails. */
  private fallback: (() => void) | null = null;
  private blockFallbacks: Array<() => void> = [];
  /** Called when a publish succeeds after failures (index.ts then reports what was lost). */
  onRecovered?: () => void;

  constructor(
    private readonly redis: RedisClient,
    key: string,
    private readonly logger: Logger,
    /** This instance's sockets, for evictions that cannot go through Redis. */
    private readonly local?: LocalBroadcaster,
    /** Told the latency and outcome of each PUBLISH (metrics), when given. */
    private readonly observer?: PublishObserver,
  ) {
    this.publish = publishOf(redis);
    const client = {
      publish: (channel: string, message: Buffer | string) => {
        if (this.block) {
          this.block.push([channel, message]);
          if (this.fallback) this.blockFallbacks.push(this.fallback);
          return Promise.resolve(0);
        }
        const fallback = this.fallback;
        return this.settle(this.publish(channel, message), [...this.current], fallback ? [fallback] : []);
      },
    };
    this.emitter = new Emitter(client, { key });
  }

  /**
   * The emitter does not handle a failed PUBLISH (Redis away): log it here, once per outage, and
   * remember the namespaces whose sockets missed something (index.ts has them resynced when Redis
   * is back: every instance then tells those sockets to reconnect and replay).
   */
  private settle<T>(sent: Promise<T>, namespaces: string[], fallbacks: Array<() => void> = []): Promise<T | 0> {
    const start = this.observer ? performance.now() : 0;
    return sent.then(
      (n) => {
        this.observer?.published((performance.now() - start) / 1000, true);
        if (this.failing) this.onRecovered?.();
        this.failing = false;
        return n;
      },
      (err: Error) => {
        this.observer?.published((performance.now() - start) / 1000, false);
        if (!this.failing) this.logger.warn({ err: err.message }, 'realtime publish failed: Redis unreachable');
        this.failing = true;
        this.lastFailureAt = Date.now();
        for (const namespace of namespaces) this.lost.add(namespace);
        if (this.lost.size > MAX_LOST_NAMESPACES) this.lostAll = true;
        for (const fallback of fallbacks) fallback();
        return 0;
      },
    );
  }

  /** What was lost since the last call (null when nothing was), and forget it. */
  takeLost(): LostEmits | null {
    if (!this.lost.size && !this.lostAll) return null;
    const report = { namespaces: this.lostAll ? null : [...this.lost], lastFailureAt: this.lastFailureAt };
    this.lost.clear();
    this.lostAll = false;
    return report;
  }

  /** Put back a report that could not be passed on (Redis failed again). */
  restoreLost(report: LostEmits) {
    if (report.namespaces === null) this.lostAll = true;
    else for (const namespace of report.namespaces) this.lost.add(namespace);
    this.lastFailureAt = Math.max(this.lastFailureAt, report.lastFailureAt);
  }

  atomically(fn: () => void) {
    if (this.block) return fn();
    this.block = [];
    const outer = this.current;
    this.current = new Set();
    let block: Array<[string, Buffer | string]>;
    let namespaces: string[];
    let fallbacks: Array<() => void>;
    try {
      fn();
    } finally {
      block = this.block;
      namespaces = [...this.current];
      fallbacks = this.blockFallbacks;
      this.block = null;
      this.blockFallbacks = [];
      this.current = outer;
    }
    if (block.length === 1) void this.settle(this.publish(block[0]![0], block[0]![1]), namespaces, fallbacks);
    else if (block.length > 1) void this.settle(publishBlock(this.redis, block), namespaces, fallbacks);
  }

  private operator(target: Target) {
    return this.emitter.of(target.namespace).to(target.to ?? []).except(target.except ?? []);
  }

  /** Run `send` (which publishes synchronously) with `namespace` recorded as the one being emitted to. */
  private within(namespace: string, send: () => void) {
    const added = !this.current.has(namespace);
    this.current.add(namespace);
    try {
      send();
    } finally {
      if (added && !this.block) this.current.delete(namespace);
    }
  }

  emit(target: Target, event: string, payload: unknown) {
    this.within(target.namespace, () => this.operator(target).emit(event, payload));
  }

  /**
   * Through Redis, so that it lands in its place among the room's events on every instance. When
   * that fails, this instance's own sockets are dropped at once; the other instances' go when they
   * resync or re-validate (index.ts, access.ts).
   */
  disconnect(target: Target) {
    this.fallback = () => this.local?.disconnect(target);
    try {
      this.within(target.namespace, () => this.operator(target).disconnectSockets(false));
    } finally {
      this.fallback = null;
    }
  }
}
