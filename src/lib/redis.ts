import { Redis } from 'ioredis';
import type { Logger } from '../logger';

export interface RedisClientOptions {
  /**
   * Never hold a command for later: while Redis is away it fails at once, and one in flight when the
   * connection drops fails too instead of being sent again on reconnection. For the publishing
   * client: an event is then either delivered in its place or known lost (and its room resynced,
   * src/realtime/index.ts), never delivered seconds late out of order, which would make a client's
   * `since` skip the events lost before it.
   */
  failFast?: boolean;
}

/**
 * An ioredis client that fails fast while Redis is away (commands error after one retry instead
 * of queueing without bound) and reconnects by itself.
 */
export function createRedis(url: string, logger: Logger, name: string, options: RedisClientOptions = {}): Redis {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: !options.failFast,
    autoResendUnfulfilledCommands: !options.failFast,
    connectTimeout: 3000,
    retryStrategy: (times) => Math.min(times * 200, 2000),
    connectionName: `dice-${name}`,
  });
  let down = false;
  client.on('error', (err) => {
    if (!down) logger.warn({ redis: name, err: err.message }, 'redis connection error');
    down = true;
  });
  client.on('ready', () => {
    if (down) logger.info({ redis: name }, 'redis connection restored');
    down = false;
  });
  return client;
}
