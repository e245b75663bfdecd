import type http from 'node:http';
import type { Server } from 'socket.io';
import { compileTrust } from '../http/clientAddress';
import type { AppDeps } from '../http/deps';
import { subscribe } from '../events/bus';
import { onOutbox, releaseOutbox, startOutboxSweeper } from '../outbox/sweeper';
import { startNumbering } from '../events/record';
import { ROLL_CREATED } from '../rolls/store/write';
import { publishOf, type RedisClient } from '../lib/redis';
import type { Broadcaster } from './transport/broadcaster';
import { LocalBroadcaster } from './transport/inProcessBroadcaster';
import { RedisBroadcaster } from './transport/redisBroadcaster';
import { Fanout } from './fanout/eventsToEmits';
import { limitInboundBytes } from './connection/inboundByteBudget';
import { limitOutboundBytes } from './connection/slowReaders';
import type { MoveLimits } from './fanout/draggedDice';
import { announceDisconnect, setupNamespaces, type RealtimeContext } from './connection/namespaces';
import { MemoryPresenceStore, RedisPresenceStore, type PresenceStore, type RedisPresenceOptions } from './connection/presence';
import { createRollFeed } from './fanout/rollEmits';
import { replayMissed } from './connection/replay';
import { AccessGuard } from './connection/accessRechecks';
import { controlChannel, parseControl, type ControlMessage } from './transport/controlChannel';
import { relayInvalidations } from './transport/cacheInvalidations';
import type { Logger } from '../logger';
import { countingBroadcaster, publishObserver } from '../metrics/realtime';
import { PusherGateway } from './pusher/gateway';
import type { PubSubMode } from './transport/pubsubMode';
import { wireFor } from './transport/wireFormat';
import { watchShardSubscriptions } from './transport/shardSubscriptionWatch';
import { roomChannel } from './transport/sequenceLogRedis';
import { ROOM_NAMESPACE } from './names';
import { namespacesOf } from './socketioInternals';

export interface RealtimeOptions {
  /** The production shape: a Redis connection for publishing (the adapter's pub client will do). */
  pub?: RedisClient | null;
  /**
   * The adapter's subscriber connection: its reconnections say this instance may have missed events
   * (connection/accessRechecks.ts resync), and it carries the control channel (transport/controlChannel.ts).
   */
  sub?: RedisClient | null;
  /** Prefix of the adapter's channels (createAdapter's `key`): the broadcaster must use the same. */
  channelKey?: string;
  /** The adapter the instances run (transport/pubsubMode.ts): the broadcaster writes in its format. Default classic. */
  pubsub?: PubSubMode;
  presence?: RedisPresenceOptions;
  moveLimits?: MoveLimits;
  /** The HTTP server whose `/app/{key}` upgrades the Pusher gateway takes (none: no gateway). */
  httpServer?: http.Server;
}

export interface Realtime {
  broadcaster: Broadcaster;
  presence: PresenceStore;
  fanout: Fanout;
  /** The Pusher-protocol gateway for the stock dddice SDK, when an HTTP server was given. */
  pusher: PusherGateway | null;
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
  const local = new LocalBroadcaster(io);
  const redisBroadcaster = clustered
    ? new RedisBroadcaster(options.pub!, wireFor(options.pubsub ?? 'classic', options.channelKey ?? 'socket.io'), options.channelKey ?? 'socket.io', log, {
        local,
        observer: publishObserver(deps.metrics),
        maxPending: deps.config.realtimeMaxKeptBlocks,
      })
    : null;
  const broadcaster: Broadcaster = countingBroadcaster(redisBroadcaster ?? local, deps.metrics);
  const presence: PresenceStore = clustered
    ? new RedisPresenceStore(deps.redis!, log, {
        prefix: `${deps.config.redisPrefix}presence:`,
        ttlMs: deps.config.presenceTtlMs,
        heartbeatMs: Math.round(deps.config.presenceTtlMs / 3),
        ...options.presence,
      })
    : new MemoryPresenceStore();
  const rolls = createRollFeed(broadcaster);
  const handshakeLimit = { store: deps.rateLimitStore, perMinute: deps.config.rateLimitPerMinute, trust: compileTrust(deps.config.trustProxy) };
  const ctx: RealtimeContext = {
    io,
    logger: log,
    broadcaster,
    presence,
    moveLimits: options.moveLimits,
    handshakeLimit,
    replay: (socket, send, logged) => replayMissed(socket, send, logged, broadcaster.sequence),
  };
  setupNamespaces(ctx);
  let pusher: PusherGateway | null = null;
  if (options.httpServer) {
    const { socketBytesPerSecond, socketMaxPacketBytes, socketMaxBufferedBytes } = deps.config;
    const bytes = { perSecond: socketBytesPerSecond, burst: Math.max(socketBytesPerSecond, 2 * socketMaxPacketBytes) };
    pusher = new PusherGateway(ctx, {
      pusher: deps.config.pusher,
      maxPayload: socketMaxPacketBytes,
      handshakeLimit,
      bytes,
      maxBufferedBytes: socketMaxBufferedBytes,
    });
    pusher.attach(options.httpServer);
  }
  // Bytes before they are decoded. The burst is small on purpose: every reconnection starts with a full
  // one, so it is what a client that reconnects in a loop gets per handshake (those are limited per address).
  const { socketBytesPerSecond: perSecond, socketMaxPacketBytes: maxPacket } = deps.config;
  limitInboundBytes(io, { perSecond, burst: Math.max(perSecond, 2 * maxPacket) }, log);
  limitOutboundBytes(io, deps.config.socketMaxBufferedBytes, log);

  const fanout = new Fanout({ logger: log, broadcaster, rolls, baseUrl: deps.config.publicUrl ?? undefined });
  const unsubscribe = subscribe(fanout.listener);
  const stopPresence = presence.start((slug, userId) => {
    announceDisconnect(ctx, slug, userId).catch((err: Error) => log.warn({ err: err.message }, 'could not announce a reaped participant'));
  });

  // Rolls committed by an instance that died before publishing them (src/outbox): published here,
  // straight into the fan-out (not the bus: the roll was created once, its other listeners heard it).
  const stopOutbox = onOutbox(ROLL_CREATED, ({ id, payload }) => {
    const { rollId, roomId, slug } = payload;
    if (!Number.isSafeInteger(rollId) || typeof slug !== 'string') return releaseOutbox([id], log);
    fanout.listener({ type: 'roll.created', rollId: rollId as number, roomId: Number.isSafeInteger(roomId) ? (roomId as number) : null, slug, outboxId: id });
  });
  const stopSweeper = startOutboxSweeper({ intervalMs: deps.config.outboxSweepMs, graceMs: deps.config.outboxGraceMs, logger: log });
  // Room events recorded for webhooks wait a moment for the seq this layer gives them (events/record.ts).
  const stopNumbering = startNumbering();

  const stopGuard = guardAccess(io, deps, log, redisBroadcaster, options, pusher);
  // The in-process caches' invalidations travel the same control channel (lib/invalidation.ts).
  const stopRelay = clustered && options.sub ? relayInvalidations(options.pub!, options.sub, controlChannel(deps.config.redisPrefix), log) : () => undefined;

  let closing: Promise<void> | null = null;
  return {
    broadcaster,
    presence,
    fanout,
    pusher,
    close: () =>
      (closing ??= (async () => {
        await pusher?.close();
        unsubscribe();
        stopSweeper();
        stopNumbering();
        stopOutbox();
        stopGuard();
        stopRelay();
        await fanout.drain();
        redisBroadcaster?.close();
        await stopPresence();
      })()),
  };
}

/**
 * Re-checking access on the sockets already in (connection/accessRechecks.ts): at an interval; at once for revoked
 * keys (bus event here, control channel from elsewhere); and, with Redis, whenever this instance may
 * have missed events: its subscriber reconnected (every room socket is resynced), or an instance
 * could not publish (it reports the namespaces once it can: those sockets are resynced everywhere).
 * Answers the stop function.
 */
function guardAccess(
  io: Server,
  deps: AppDeps,
  log: Logger,
  broadcaster: RedisBroadcaster | null,
  options: RealtimeOptions,
  pusher: PusherGateway | null,
): () => void {
  const guard = new AccessGuard(io, log, pusher);
  const revalidate = () => void guard.revalidate().catch((err: Error) => log.warn({ err: err.message }, 'socket re-validation failed'));
  const stopInterval = guard.start(deps.config.realtimeRevalidateMs);
  const { pub, sub } = options;
  const channel = controlChannel(deps.config.redisPrefix);
  const tell = (message: ControlMessage) =>
    pub
      ? publishOf(pub)(channel, JSON.stringify(message)).then(
          () => true,
          () => false,
        )
      : Promise.resolve(false);

  const unsubscribe = subscribe((event) => {
    if (event.type !== 'keys.revoked') return;
    guard.dropKeys(event.keyIds);
    if (broadcaster) void tell({ type: 'revoke_keys', keyIds: event.keyIds });
  });
  if (!broadcaster || !pub || !sub) {
    return () => {
      unsubscribe();
      stopInterval();
    };
  }

  const onMessage = (from: string, text: string) => {
    if (from !== channel) return;
    const message = parseControl(text);
    if (message?.type === 'revoke_keys') guard.dropKeys(message.keyIds);
    else if (message?.type === 'revalidate') revalidate();
    else if (message?.type === 'resync') {
      guard.resync('events_lost', message.namespaces, message.before);
      revalidate();
    }
  };
  // Registered after the first connection (startServer awaits it): every 'ready' is a reconnection.
  // ioredis emits it before it reads anything from the new connection, so the resync happens before
  // any event published meanwhile can reach a socket.
  const onSubReady = () => {
    guard.resync('redis_reconnected');
    revalidate();
  };
  // Only blocks dropped past the limit of those kept (transport/redisBroadcaster.ts) are lost: their rooms' logs
  // are cut first, so that the resynced sockets replay by `since` rather than from a log with holes.
  const reportLost = () => {
    const lost = broadcaster.takeLost();
    if (!lost) return;
    void broadcaster
      .forgetLogs(lost.all)
      .then(() => tell({ type: 'resync', namespaces: lost.namespaces, before: lost.lastFailureAt }))
      .then(
        (told) => {
          if (!told) broadcaster.restoreLost(lost);
        },
        () => broadcaster.restoreLost(lost),
      );
  };
  // One shard's subscription made again (a failover, its connection lost): that shard's rooms only.
  const channelKey = options.channelKey ?? 'socket.io';
  const stopWatch = (options.pubsub === 'sharded' ? watchShardSubscriptions : () => () => undefined)(
    sub,
    (namespace) => roomChannel(channelKey, namespace),
    () => [...namespacesOf(io).keys()].filter((name) => ROOM_NAMESPACE.test(name)),
    (namespaces) => {
      log.warn({ rooms: namespaces.length }, 'room subscriptions moved to another Redis connection (failover or reconnection): resyncing their sockets');
      guard.resync('redis_reconnected', namespaces);
      revalidate();
    },
  );
  sub.on('message', onMessage);
  sub.on('ready', onSubReady);
  pub.on('ready', reportLost);
  broadcaster.onRecovered = reportLost;
  void sub.subscribe(channel);
  return () => {
    unsubscribe();
    stopInterval();
    stopWatch();
    sub.off('message', onMessage);
    sub.off('ready', onSubReady);
    pub.off('ready', reportLost);
    broadcaster.onRecovered = undefined;
    void sub.unsubscribe(channel);
  };
}
