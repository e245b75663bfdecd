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

type Publish = (channel: string, message: string | Buffer) => Promise<number>;
/** The commands that publish: PUBLISH (classic pub/sub) and SPUBLISH (sharded pub/sub, Redis 7). */
export type PublishCommand = 'publish' | 'spublish';
/** The PUBLISH and SPUBLISH of clients whose own methods the adapter guard replaced (server.ts). */
const unguarded = new WeakMap<Redis, Map<PublishCommand, Publish>>();

/** Called by the adapter guard before it replaces `client[command]`. */
export function rememberUnguardedPublish(client: Redis, publish: Publish, command: PublishCommand = 'publish'): void {
  let commands = unguarded.get(client);
  if (!commands) unguarded.set(client, (commands = new Map()));
  commands.set(command, publish);
}

/**
 * PUBLISH or SPUBLISH as Redis answers it, failures included. The adapter guard makes the shared
 * client's own methods resolve 0 when Redis is away (the adapter does not handle rejections); the
 * realtime broadcaster and the control channel must see those failures to resync rooms and evict
 * locally.
 */
export function unguardedOf(client: Redis, command: PublishCommand): Publish {
  return unguarded.get(client)?.get(command) ?? ((channel, message) => client[command](channel, message) as Promise<number>);
}

/** PUBLISH as Redis answers it (unguardedOf). */
export function publishOf(client: Redis): Publish {
  return unguardedOf(client, 'publish');
}
