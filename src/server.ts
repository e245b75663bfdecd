import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server as SocketServer } from 'socket.io';
import { preSerializedParser } from './realtime/transport/preSerializedParser';
import { createAdapter, createShardedAdapter } from '@socket.io/redis-adapter';
import type { Config } from './config';
import type { Logger } from './logger';
import { createApp } from './app';
import { configureQuotaCounts, configureQuotas } from './users/quotas';
import { configureUnknownTheme } from './themes/rollable';
import { roomQuotaCounts } from './rooms/store/quotaCounts';
import { themeQuotaCounts } from './themes/store/quotaCounts';
import { openDatabase } from './db';
import { migrate } from './db/migrate';
import { MemoryRateLimitStore, RedisRateLimitStore } from './http/rateLimit';
import type { AppDeps } from './http/deps';
import { connectRedisClients, rememberUnguardedPublish, type RedisClient } from './lib/redis';
import { detectPubSub, type PubSubMode } from './realtime/transport/pubsubMode';
import { attachRealtime, type Realtime } from './realtime';
import { startWebhooks } from './webhooks';
import { guardRedisMessages } from './realtime/callbackGuards';
import { setListenerErrorHandler } from './events/bus';
import { Metrics, metricsEnabled } from './metrics';
import { observeInstance } from './metrics/instance';
import { listenMetrics, type MetricsListener } from './metrics/listener';
import { applyKeepAliveTimeout, drainOnClose } from './lib/httpKeepAlive';
import { createAppServer } from './http/appServer';
import { watchRevocations } from './users/revocationWatch';
import { namespacesOf, redisAdapterChannels } from './realtime/socketioInternals';
import { keepAppContextOnConnections, newAppContext, withinAppContext, type AppContext } from './lib/appContext';

/**
 * Prefix of the Socket.IO adapter's Redis channels (the realtime emitter uses the same): REDIS_PREFIX
 * without its trailing colon, so the default ("dice:") keeps the channels "dice#..." they always had.
 */
function adapterKeyOf(config: Pick<Config, 'redisPrefix'>): string {
  return config.redisPrefix.replace(/:$/, '');
}

/**
 * The adapter sends PUBLISH / SPUBLISH and (un)subscribes without handling failures, and adds
 * listeners to its clients for every namespace. While Redis is away a failure must be a log line, not
 * an unhandled rejection; and a busy instance has many namespaces, so listener counts are not leaks.
 */
function guardAdapterClients(pub: RedisClient, sub: RedisClient, logger: Logger, onPublishFailed?: () => void) {
  pub.setMaxListeners(0);
  sub.setMaxListeners(0);
  let failing = false;
  type Guarded = 'publish' | 'spublish' | 'psubscribe' | 'punsubscribe' | 'subscribe' | 'unsubscribe' | 'ssubscribe' | 'sunsubscribe';
  const guard = (client: RedisClient, method: Guarded) => {
    const original = (client[method] as (...args: unknown[]) => Promise<unknown>).bind(client);
    // The broadcaster must still see failed publishes (lib/redis.ts unguardedOf).
    if (method === 'publish' || method === 'spublish')
      rememberUnguardedPublish(client, original as (channel: string, message: string | Buffer) => Promise<number>, method);
    (client as unknown as Record<string, unknown>)[method] = (...args: unknown[]) =>
      original(...args).then(
        (result) => {
          failing = false;
          return result;
        },
        (err: Error) => {
          // Only the adapter's own publishes end here: the broadcaster uses unguardedOf() and sees its failures.
          if (method === 'publish' || method === 'spublish') onPublishFailed?.();
          if (!failing) logger.warn({ err: err.message, command: method }, 'socket.io adapter command failed: Redis unreachable');
          failing = true;
          return 0;
        },
      );
  };
  guard(pub, 'publish');
  guard(pub, 'spublish');
  for (const method of ['psubscribe', 'punsubscribe', 'subscribe', 'unsubscribe', 'ssubscribe', 'sunsubscribe'] as const) guard(sub, method);
}

/** The Socket.IO adapter of `mode` (realtime/transport/pubsubMode.ts) on these clients. */
function redisAdapter(mode: PubSubMode, pub: RedisClient, sub: RedisClient, key: string) {
  // "static": one shard channel per namespace (and one per instance for responses), whatever rooms
  // its sockets and the Pusher gateway's members (pusher/namespaceMembers.ts) join. "dynamic" would add an
  // SSUBSCRIBE per adapter room (every user:{id} channel), on every join.
  if (mode === 'sharded') return createShardedAdapter(pub, sub, { channelPrefix: key, subscriptionMode: 'static' });
  return createAdapter(pub, sub, { key, requestsTimeout: 3000 });
}

/**
 * ioredis resubscribes by itself after a reconnect, but only to what Redis had confirmed: a room
 * namespace created while Redis was away never was. Subscribe every live namespace's adapter again
 * (subscribing twice is harmless).
 */
function resubscribeOnReconnect(io: SocketServer, sub: RedisClient, mode: PubSubMode) {
  // Registered after the first connection: every 'ready' from here on is a reconnection.
  sub.on('ready', () => {
    for (const nsp of namespacesOf(io).values()) {
      const adapter = redisAdapterChannels(nsp);
      if (!adapter.channel) continue;
      if (mode === 'sharded') {
        // One SSUBSCRIBE each: on Redis Cluster the two channels may live in different slots.
        void sub.ssubscribe(adapter.channel);
        void sub.ssubscribe(adapter.responseChannel!);
        continue;
      }
      void sub.psubscribe(`${adapter.channel}*`);
      void sub.subscribe(adapter.requestChannel!, adapter.responseChannel!, adapter.specificResponseChannel!);
    }
  });
}

export interface RunningServer {
  url: string;
  port: number;
  http: http.Server;
  io: SocketServer;
  deps: AppDeps;
  realtime: Realtime;
  /** Where GET /metrics is served without a token (METRICS_PORT), or null. */
  metricsUrl: string | null;
  /** What this server owns (lib/appContext.ts): tests reach its database and caches within it. */
  context: AppContext;
  /** Stop accepting, let requests in flight finish (up to the timeout), close sockets, pools and Redis. */
  close(): Promise<void>;
}

/**
 * Open the database, migrate, build HTTP + Socket.IO (Redis adapter when configured) and listen, in
 * `context` (lib/appContext.ts; by default the process's, or a new one where a process hosts several):
 * everything this sets going finds this server's database and caches there.
 */
export function startServer(config: Readonly<Config>, logger: Logger, context: AppContext = newAppContext()): Promise<RunningServer> {
  return withinAppContext(context, async () => {
    const server = await startServerIn(config, logger, context);
    const close = server.close;
    return { ...server, context, close: () => withinAppContext(context, close) };
  });
}

async function startServerIn(config: Readonly<Config>, logger: Logger, context: AppContext): Promise<Omit<RunningServer, 'context'>> {
  const database = await openDatabase(config, logger);
  await migrate(database, logger);
  configureQuotas(config.quotas);
  configureQuotaCounts({ ...roomQuotaCounts, ...themeQuotaCounts });
  configureUnknownTheme(config.unknownTheme);
  setListenerErrorHandler((err) => logger.error({ err }, 'domain event listener failed'));

  // REDIS_URL or REDIS_CLUSTER_NODES: main, pub (fails fast) and sub connections (lib/redis.ts).
  const clients = await connectRedisClients(config, logger);
  const { redis, pub, sub } = clients ?? { redis: null, pub: null, sub: null };
  let pubsub: PubSubMode = 'classic';
  if (redis && pub && sub) {
    // Before any adapter exists: REDIS_PUBSUB=sharded on a Redis < 7 stops start-up here.
    try {
      pubsub = await detectPubSub(redis, config.redisPubsub, logger, adapterKeyOf(config));
    } catch (err) {
      for (const client of [redis, pub, sub]) client.disconnect();
      await database.close();
      throw err;
    }
  }

  const deps: AppDeps = {
    config,
    logger,
    redis,
    rateLimitStore: redis ? new RedisRateLimitStore(redis, config.redisPrefix, logger, config.rateLimitLeaseMax) : new MemoryRateLimitStore(),
    metrics: metricsEnabled(config) ? new Metrics() : null,
  };
  const app = createApp(deps);
  const server = createAppServer(app);
  keepAppContextOnConnections(server, context);
  // Longer than a load balancer keeps an idle connection (HTTP_KEEP_ALIVE_TIMEOUT_MS, 65 s): the
  // balancer closes first, never the app under a request it is sending. Shutdown closes them (drain below).
  applyKeepAliveTimeout(server, config.httpKeepAliveTimeoutMs);
  if (pub && sub) guardAdapterClients(pub, sub, logger, deps.metrics ? () => deps.metrics!.redisPublishFailures.inc() : undefined);
  if (sub) guardRedisMessages(sub, logger);
  const io = new SocketServer(server, {
    cors: { origin: true, credentials: false },
    serveClient: true,
    // Clients send moves of a few hundred bytes and handshakes: a bigger packet closes its connection
    // before it is buffered or decoded (Socket.IO's default, 1 MB, let one guest stall the loop for 25 s).
    maxHttpBufferSize: config.socketMaxPacketBytes,
    // Empty room namespaces are closed by src/realtime/connection/namespaces.ts (Socket.IO's own
    // cleanupEmptyChildNamespaces races with handshakes in progress).
    cleanupEmptyChildNamespaces: false,
    // Payloads that crossed Redis as JSON text are spliced into packets, not encoded again (realtime/transport/preSerialized.ts).
    parser: preSerializedParser,
    ...(pub && sub ? { adapter: redisAdapter(pubsub, pub, sub, adapterKeyOf(config)) } : {}),
  });
  if (sub) resubscribeOnReconnect(io, sub, pubsub);
  const realtime = attachRealtime(io, deps, { pub, sub, channelKey: adapterKeyOf(config), pubsub, httpServer: server });
  // Committed events recorded for webhooks, and this instance's share of their delivery (docs/webhooks.md).
  const webhooks = startWebhooks(deps);
  // Without Redis nothing carries another process's revocation here (the CLI's key:revoke): read them
  // from the database instead. With Redis the CLI publishes them and every instance hears at once.
  const revocations = clients ? null : watchRevocations(logger);
  const drain = drainOnClose(server);
  if (config.pusher.secretGenerated)
    logger.info(
      'PUSHER_APP_SECRET is not set: this process signs Pusher channel authorisations with a secret of its own (fine for one process; every instance behind a load balancer needs the same one)',
    );
  const stopObserving = deps.metrics ? observeInstance(deps.metrics, { io, database }) : () => undefined;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const url = `http://${host}:${port}`;
  let metricsListener: MetricsListener | null = null;
  if (deps.metrics && config.metricsPort !== null) {
    try {
      metricsListener = await listenMetrics(
        deps.metrics,
        { port: config.metricsPort, host: config.host, keepAliveTimeoutMs: config.httpKeepAliveTimeoutMs },
        logger,
      );
    } catch (err) {
      server.close();
      throw new Error(`Cannot serve metrics on METRICS_PORT ${config.metricsPort} (${(err as Error).message}).`, { cause: err });
    }
  }

  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Idle keep-alive connections close now, busy ones once answered: shutdown never waits for the keep-alive timeout.
      drain.start();
      // Pusher clients first: told 4200, they reconnect to another instance while this one drains.
      await realtime.pusher?.close();
      await revocations?.stop();
      // Not awaited: its adapters' unsubscribes would wait on a Redis that may be down, and realtime.close()
      // below ends those connections all the same.
      io.close().catch((err: Error) => logger.warn({ err: err.message }, 'closing Socket.IO failed'));
      await realtime.close();
      await webhooks.stop();
      stopObserving();
      await metricsListener?.close();
      const timer = setTimeout(() => server.closeAllConnections(), config.shutdownTimeoutMs);
      await closed;
      clearTimeout(timer);
      await Promise.allSettled([redis?.quit(), pub?.quit(), sub?.quit()]);
      await database.close();
    })());

  return { url, port, http: server, io, deps, realtime, metricsUrl: metricsListener?.url ?? null, close };
}
