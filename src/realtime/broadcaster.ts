import type { Server } from 'socket.io';
import { Emitter } from '@socket.io/redis-emitter';
import type { Redis } from 'ioredis';
import type { Logger } from '../logger';

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
}

export class RedisBroadcaster implements Broadcaster {
  private readonly emitter: Emitter;

  constructor(redis: Redis, key: string, logger: Logger) {
    // The emitter does not handle a failed PUBLISH (Redis away): catch it here, once per outage.
    let failing = false;
    const client = {
      publish: (channel: string, message: Buffer | string) =>
        redis.publish(channel, message).then(
          (n) => {
            failing = false;
            return n;
          },
          (err: Error) => {
            if (!failing) logger.warn({ err: err.message }, 'realtime publish failed: Redis unreachable');
            failing = true;
            return 0;
          },
        ),
    };
    this.emitter = new Emitter(client, { key });
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
