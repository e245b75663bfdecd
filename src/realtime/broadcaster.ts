import type { Server } from 'socket.io';
import { Emitter } from '@socket.io/redis-emitter';
import type { Redis } from 'ioredis';
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

  /** Only namespaces that exist here: `io.of(name)` would create (and keep) an empty one. */
  private operator(target: Target) {
    const nsp = this.io._nsps.get(target.namespace);
    if (!nsp) return null;
    return nsp.to(target.to ?? []).except(target.except ?? []);
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

export class RedisBroadcaster implements Broadcaster {
  private readonly emitter: Emitter;
  /** While atomically() runs: the publishes to send as one MULTI. */
  private block: Array<[string, Buffer | string]> | null = null;
  private failing = false;

  constructor(
    private readonly redis: Redis,
    key: string,
    private readonly logger: Logger,
    /** Told the latency and outcome of each PUBLISH (metrics), when given. */
    private readonly observer?: PublishObserver,
  ) {
    const client = {
      publish: (channel: string, message: Buffer | string) => {
        if (this.block) {
          this.block.push([channel, message]);
          return Promise.resolve(0);
        }
        return this.settle(redis.publish(channel, message));
      },
    };
    this.emitter = new Emitter(client, { key });
  }

  /** The emitter does not handle a failed PUBLISH (Redis away): log it here, once per outage. */
  private settle<T>(sent: Promise<T>): Promise<T | 0> {
    const start = this.observer ? performance.now() : 0;
    return sent.then(
      (n) => {
        this.observer?.published((performance.now() - start) / 1000, true);
        this.failing = false;
        return n;
      },
      (err: Error) => {
        this.observer?.published((performance.now() - start) / 1000, false);
        if (!this.failing) this.logger.warn({ err: err.message }, 'realtime publish failed: Redis unreachable');
        this.failing = true;
        return 0;
      },
    );
  }

  atomically(fn: () => void) {
    if (this.block) return fn();
    this.block = [];
    let block: Array<[string, Buffer | string]>;
    try {
      fn();
    } finally {
      block = this.block;
      this.block = null;
    }
    if (block.length === 1) void this.settle(this.redis.publish(block[0]![0], block[0]![1]));
    else if (block.length > 1) void this.settle(this.redis.multi(block.map(([channel, message]) => ['publish', channel, message])).exec());
  }

  private operator(target: Target) {
    return this.emitter.of(target.namespace).to(target.to ?? []).except(target.except ?? []);
  }

  emit(target: Target, event: string, payload: unknown) {
    this.operator(target).emit(event, payload);
  }

  disconnect(target: Target) {
    this.operator(target).disconnectSockets(false);
  }
}
