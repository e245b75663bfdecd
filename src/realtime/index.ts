import type { Server } from 'socket.io';
import type { Redis } from 'ioredis';
import type { AppDeps } from '../http/deps';
import { subscribe } from './bus';
import { LocalBroadcaster, RedisBroadcaster, type Broadcaster } from './broadcaster';
import { Fanout } from './fanout';
import type { MoveLimits } from './moves';
import { announceDisconnect, setupNamespaces, type RealtimeContext } from './namespaces';
import { MemoryPresenceStore, RedisPresenceStore, type PresenceStore, type RedisPresenceOptions } from './presence';
import { createRollFeed, replayMissedRolls } from './rollFeed';
import { countingBroadcaster, publishObserver } from '../metrics/realtime';

export interface RealtimeOptions {
  /** The production shape: a Redis connection for publishing (the adapter's pub client will do). */
  pub?: Redis | null;
  /** Prefix of the adapter's channels (createAdapter's `key`): the emitter must use the same. */
  channelKey?: string;
  presence?: RedisPresenceOptions;
  moveLimits?: MoveLimits;
}

export interface Realtime {
  broadcaster: Broadcaster;
  presence: PresenceStore;
  fanout: Fanout;
  /** Stop listening to domain events and withdraw this instance's presence. */
  close(): Promise<void>;
}

/**
 * Live rooms: `/room/{slug}` namespaces (auth, presence, replay, dragged dice), `/user`, and the
 * listener that turns committed domain events into emits. Without Redis everything stays in process;
 * with it, emits and presence go through Redis so any number of instances act as one.
 */
export function attachRealtime(io: Server, deps: AppDeps, options: RealtimeOptions = {}): Realtime {
  const { logger } = deps;
  const log = logger.child({ component: 'realtime' });
  const clustered = Boolean(deps.redis && options.pub);
  const broadcaster: Broadcaster = countingBroadcaster(
    clustered ? new RedisBroadcaster(options.pub!, options.channelKey ?? 'socket.io', log, publishObserver(deps.metrics)) : new LocalBroadcaster(io),
    deps.metrics,
  );
  const presence: PresenceStore = clustered
    ? new RedisPresenceStore(deps.redis!, log, { prefix: `${deps.config.redisPrefix}presence:`, ...options.presence })
    : new MemoryPresenceStore();
  const rolls = createRollFeed(broadcaster);
  const handshakeLimit = { store: deps.rateLimitStore, perMinute: deps.config.rateLimitPerMinute, trustProxy: deps.config.trustProxy };
  const ctx: RealtimeContext = { io, logger: log, broadcaster, presence, moveLimits: options.moveLimits, handshakeLimit, replay: replayMissedRolls };
  setupNamespaces(ctx);

  const fanout = new Fanout({ logger: log, broadcaster, rolls, baseUrl: deps.config.publicUrl ?? undefined });
  const unsubscribe = subscribe(fanout.listener);
  const stopPresence = presence.start((slug, userId) => {
    announceDisconnect(ctx, slug, userId).catch((err: Error) => log.warn({ err: err.message }, 'could not announce a reaped participant'));
  });

  let closing: Promise<void> | null = null;
  return {
    broadcaster,
    presence,
    fanout,
    close: () =>
      (closing ??= (async () => {
        unsubscribe();
        await fanout.drain();
        await stopPresence();
      })()),
  };
}
