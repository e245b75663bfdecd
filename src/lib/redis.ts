import { Redis } from 'ioredis';
import type { Logger } from '../logger';

/**
 * An ioredis client that fails fast while Redis is away (commands error after one retry instead
 * of queueing without bound) and reconnects by itself.
 */
export function createRedis(url: string, logger: Logger, name: string): Redis {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: true,
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
