import type { Server } from 'socket.io';
import type { Redis } from 'ioredis';
import { unguardedOf } from '../lib/redis';
import type { Logger } from '../logger';
import type { PublishObserver } from '../metrics/realtime';
import type { Publication, WireFormat } from './wire';

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
 * - Redis: published in the format of the adapter the instances run (wire.ts: the classic adapter's,
 *   written by `@socket.io/redis-emitter`, or the sharded adapter's, shardedPublisher.ts), so every
 *   instance, this one included, receives each emit from the same Redis channel, in the same order.
 *   Emitting locally first and remotely second
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

/** A message waiting for the end of its atomically() block. */
interface Queued {
  namespace: string;
  publication: Publication;
  /** What to do on this instance if it cannot be sent (disconnects: drop the local sockets). */
  fallback?: () => void;
}

export class RedisBroadcaster implements Broadcaster {
  /** The command that carries the format's messages, with its failures (the adapter guard hides them: lib/redis.ts). */
  private readonly send: (channel: string, message: string | Buffer) => Promise<number>;
  /** While atomically() runs: the messages to send as one block. */
  private block: Queued[] | null = null;
  private failing = false;
  /** Emits that never reached Redis, by namespace, until takeLost() hands them over. */
  private lost = new Set<string>();
  private lostAll = false;
  private lastFailureAt = 0;
  /** Called when a publish succeeds after failures (index.ts then reports what was lost). */
  onRecovered?: () => void;

  constructor(
    private readonly redis: Redis,
    /** How messages are written for the adapter the instances run (wire.ts): classic or sharded. */
    private readonly format: WireFormat,
    private readonly logger: Logger,
    /** This instance's sockets, for evictions that cannot go through Redis. */
    private readonly local?: LocalBroadcaster,
    /** Told the latency and outcome of each PUBLISH (metrics), when given. */
    private readonly observer?: PublishObserver,
  ) {
    this.send = unguardedOf(redis, format.command);
  }

  /**
   * A failed PUBLISH (Redis away) is logged here, once per outage, and the namespaces whose sockets
   * missed something are remembered (index.ts has them resynced when Redis is back: every instance
   * then tells those sockets to reconnect and replay).
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

  /**
   * Send the messages of one namespace, in order, as one block: one command, or MULTI/EXEC so that no
   * other instance's message lands between them. On the sharded fabric they all go to the
   * namespace's one shard channel, so the block touches one slot (what Redis Cluster requires of a
   * transaction). `fallbacks` run when it fails. The one place messages leave for Redis.
   */
  private sendBlock(namespace: string, entries: Publication[], fallbacks: Array<() => void>): void {
    if (!entries.length) return;
    const namespaces = [namespace];
    if (entries.length === 1) {
      void this.settle(this.send(entries[0]!.channel, entries[0]!.message), namespaces, fallbacks);
      return;
    }
    const command = this.format.command;
    void this.settle(this.redis.multi(entries.map(({ channel, message }) => [command, channel, message])).exec(), namespaces, fallbacks);
  }

  atomically(fn: () => void) {
    if (this.block) return fn();
    const block: Queued[] = (this.block = []);
    try {
      fn();
    } finally {
      this.block = null;
    }
    // The callers emit to one namespace per block; should one ever mix them, each namespace is its
    // own block (the order between rooms does not matter, and a transaction must stay in one slot).
    const byNamespace = new Map<string, Queued[]>();
    for (const queued of block) {
      const list = byNamespace.get(queued.namespace);
      if (list) list.push(queued);
      else byNamespace.set(queued.namespace, [queued]);
    }
    for (const [namespace, queued] of byNamespace) {
      const fallbacks = queued.flatMap((q) => (q.fallback ? [q.fallback] : []));
      this.sendBlock(namespace, queued.map((q) => q.publication), fallbacks);
    }
  }

  /** Queue `publication` in the open block, or send it now; `fallback` runs here if it cannot be sent. */
  private publish(namespace: string, publication: Publication, fallback?: () => void) {
    if (this.block) this.block.push({ namespace, publication, fallback });
    else this.sendBlock(namespace, [publication], fallback ? [fallback] : []);
  }

  emit(target: Target, event: string, payload: unknown) {
    this.publish(target.namespace, this.format.encodeFor(target, event, payload));
  }

  /**
   * Through Redis, so that it lands in its place among the room's events on every instance. When
   * that fails, this instance's own sockets are dropped at once; the other instances' go when they
   * resync or re-validate (index.ts, access.ts).
   */
  disconnect(target: Target) {
    this.publish(target.namespace, this.format.encodeDisconnect(target), () => this.local?.disconnect(target));
  }
}
