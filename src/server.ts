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
import { attachRealtime } from './realtime';
import { setListenerErrorHandler } from './realtime/bus';

export interface RunningServer {
  url: string;
  port: number;
  http: http.Server;
  io: SocketServer;
  deps: AppDeps;
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
  const io = new SocketServer(server, {
    cors: { origin: true, credentials: false },
    serveClient: true,
    ...(pub && sub ? { adapter: createAdapter(pub, sub, { key: 'dice' }) } : {}),
  });
  const detachRealtime = attachRealtime(io, deps);

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
      detachRealtime();
      io.close();
      const timer = setTimeout(() => server.closeAllConnections(), config.shutdownTimeoutMs);
      await closed;
      clearTimeout(timer);
      await Promise.allSettled([redis?.quit(), pub?.quit(), sub?.quit()]);
      await database.close();
    })());

  return { url, port, http: server, io, deps, close };
}
