import { Cluster, Redis } from 'ioredis';
import type { RedisTarget } from '../lib/redis';

/**
 * The control channel: what one process tells every instance about its sockets, beside the
 * Socket.IO adapter's channels (those address sockets by namespace and channel; these act on all
 * sockets of an instance). `<REDIS_PREFIX>realtime:control`, JSON:
 * - `revoke_keys`: drop the sockets opened with these API keys (the CLI's key:revoke sends it);
 * - `resync`: an instance could not publish some events of these namespaces (all when null);
 *   sockets connected before `before` (epoch ms) may have missed them and are resynced;
 * - `revalidate`: re-check every socket against the database now.
 */
export type ControlMessage =
  | { type: 'revoke_keys'; keyIds: number[] }
  | { type: 'resync'; namespaces: string[] | null; before: number }
  | { type: 'revalidate' };

export function controlChannel(redisPrefix: string): string {
  return `${redisPrefix}realtime:control`;
}

/** A message as received, or null for anything else (never trusted blindly: it crossed Redis). */
export function parseControl(text: string): ControlMessage | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!value || typeof value !== 'object') return null;
  const m = value as Record<string, unknown>;
  const ids = (v: unknown) => Array.isArray(v) && v.every((x) => Number.isSafeInteger(x));
  if (m.type === 'revoke_keys' && ids(m.keyIds)) return { type: 'revoke_keys', keyIds: m.keyIds as number[] };
  if (m.type === 'revalidate') return { type: 'revalidate' };
  if (m.type === 'resync' && typeof m.before === 'number' && (m.namespaces === null || (Array.isArray(m.namespaces) && m.namespaces.every((n) => typeof n === 'string')))) {
    return { type: 'resync', namespaces: m.namespaces as string[] | null, before: m.before };
  }
  return null;
}

/**
 * Publish one control message from a process that has no Redis connection of its own (the CLI):
 * connect, publish, quit, failing within a few seconds rather than retrying. Answers false when Redis
 * (or, on a cluster, every seed node) could not be reached: the instances' periodic re-validation
 * then catches what this would have told. On a cluster PUBLISH reaches every node's subscribers.
 */
export async function publishControlOnce(target: RedisTarget | string, redisPrefix: string, message: ControlMessage): Promise<boolean> {
  const where: RedisTarget = typeof target === 'string' ? { url: target } : target;
  const once = { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, connectTimeout: 3000 } as const;
  const client =
    'url' in where
      ? new Redis(where.url, { ...once, retryStrategy: () => null })
      : new Cluster(where.clusterNodes.map((n) => ({ host: n.host, port: n.port })), {
          lazyConnect: true,
          enableOfflineQueue: false,
          clusterRetryStrategy: () => null,
          redisOptions: { maxRetriesPerRequest: 0, connectTimeout: 3000 },
        });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.publish(controlChannel(redisPrefix), JSON.stringify(message));
    return true;
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}
