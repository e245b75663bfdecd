import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server as SocketServer } from 'socket.io';
import { createAdapter } from '@socket.io/redis-adapter';
import type { Redis } from 'ioredis';
import type { Config } from './config';
import type { Logger } from './logger';
import { createApp } from './app';
import { openDatabase } from './db';
import { migrate } from './db/migrate';
import { MemoryRateLimitStore, RedisRateLimitStore } from './http/rateLimit';
import type { AppDeps } from './http/deps';
import { createRedis } from './lib/redis';
import { attachRealtime, type Realtime } from './realtime';
import { setListenerErrorHandler } from './realtime/bus';

/** Prefix of the Socket.IO adapter's Redis channels (the realtime emitter uses the same). */
const ADAPTER_KEY = 'dice';

/**
 * The adapter publishes without handling a failed PUBLISH, and adds listeners to its clients for
 * every namespace. While Redis is away a failed publish must be a log line, not an unhandled
 * rejection; and a busy instance has many namespaces, so listener counts are not leaks.
 */
function guardAdapterClients(pub: Redis, sub: Redis, logger: Logger) {
  pub.setMaxListeners(0);
  sub.setMaxListeners(0);
  const publish = pub.publish.bind(pub) as (channel: string, message: string | Buffer) => Promise<number>;
  let failing = false;
  (pub as unknown as { publish: typeof publish }).publish = (channel, message) =>
    publish(channel, message).then(
      (n) => {
        failing = false;
        return n;
      },
      (err: Error) => {
        if (!failing) logger.warn({ err: err.message }, 'socket.io adapter publish failed: Redis unreachable');
        failing = true;
        return 0;
      },
    );
}

export interface RunningServer {
  url: string;
  port: number;
  http: http.Server;
  io: SocketServer;
  deps: AppDeps;
  realtime: Realtime;
  /** Stop accepting, let requests in flight finish (up to the timeout), close sockets, pools and Redis. */
  close(): Promise<void>;
}

/** Open the database, migrate, build HTTP + Socket.IO (Redis adapter when configured) and listen. */
export async function startServer(config: Readonly<Config>, logger: Logger): Promise<RunningServer> {
  const database = await openDatabase(config, logger);
  await migrate(database, logger);
  setListenerErrorHandler((err) => logger.error({ err }, 'domain event listener failed'));

  let redis: Redis | null = null;
  let pub: Redis | null = null;
  let sub: Redis | null = null;
  if (config.redisUrl) {
    redis = createRedis(config.redisUrl, logger, 'main');
    pub = createRedis(config.redisUrl, logger, 'pub');
    sub = createRedis(config.redisUrl, logger, 'sub');
    try {
      await Promise.all([redis.connect(), pub.connect(), sub.connect()]);
    } catch (err) {
      throw new Error(`Cannot reach Redis at REDIS_URL (${(err as Error).message}).`);
    }
  }

  const deps: AppDeps = {
    config,
    logger,
    redis,
    rateLimitStore: redis ? new RedisRateLimitStore(redis) : new MemoryRateLimitStore(),
  };
  const app = createApp(deps);
  const server = http.createServer(app);
  // Keep-alive sockets must not hold shutdown hostage: close idle ones when asked.
  server.keepAliveTimeout = 5000;
  if (pub && sub) guardAdapterClients(pub, sub, logger);
  const io = new SocketServer(server, {
    cors: { origin: true, credentials: false },
    serveClient: true,
    // Empty room namespaces are closed by src/realtime/namespaces.ts (Socket.IO's own
    // cleanupEmptyChildNamespaces races with handshakes in progress).
    cleanupEmptyChildNamespaces: false,
    ...(pub && sub ? { adapter: createAdapter(pub, sub, { key: ADAPTER_KEY, requestsTimeout: 3000 }) } : {}),
  });
  const realtime = attachRealtime(io, deps, { pub, channelKey: ADAPTER_KEY });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const url = `http://${host}:${port}`;

  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      io.close();
      await realtime.close();
      const timer = setTimeout(() => server.closeAllConnections(), config.shutdownTimeoutMs);
      await closed;
      clearTimeout(timer);
      await Promise.allSettled([redis?.quit(), pub?.quit(), sub?.quit()]);
      await database.close();
    })());

  return { url, port, http: server, io, deps, realtime, close };
}
