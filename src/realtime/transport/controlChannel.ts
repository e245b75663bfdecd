import { Cluster, Redis } from 'ioredis';
import type { Invalidation } from '../../lib/invalidation';
import { masterOf, type RedisTarget } from '../../lib/redis';
import { isIdList, isRecord, isStringList } from '../shapeChecks';

/**
 * The control channel: what one process tells every instance about its sockets, beside the
 * Socket.IO adapter's channels (those address sockets by namespace and channel; these act on all
 * sockets of an instance). `<REDIS_PREFIX>realtime:control`, JSON:
 * - `revoke_keys`: drop the sockets opened with these API keys (the CLI's key:revoke sends it);
 * - `resync`: an instance could not publish some events of these namespaces (all when null);
 *   sockets connected before `before` (epoch ms) may have missed them and are resynced;
 * - `revalidate`: re-check every socket against the database now;
 * - `invalidate`: drop what the in-process caches hold of these keys, users, rooms, dice boxes
 *   (lib/invalidation.ts; realtime/transport/cacheInvalidations.ts applies it).
 */
export type ControlMessage =
  | { type: 'revoke_keys'; keyIds: number[] }
  | ({ type: 'invalidate' } & Invalidation)
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
  if (!isRecord(value)) return null;
  const m = value;
  if (m.type === 'revoke_keys' && isIdList(m.keyIds, MAX_IDS)) return { type: 'revoke_keys', keyIds: m.keyIds };
  if (m.type === 'revalidate') return { type: 'revalidate' };
  if (m.type === 'invalidate') return parseInvalidation(m);
  if (m.type === 'resync' && typeof m.before === 'number' && (m.namespaces === null || isStringList(m.namespaces, MAX_IDS, 200))) {
    return { type: 'resync', namespaces: m.namespaces, before: m.before };
  }
  return null;
}

/** Lists are bounded (a message is read by every instance); anything malformed is dropped whole. */
const MAX_IDS = 10_000;

function parseInvalidation(m: Record<string, unknown>): ControlMessage | null {
  const out: { type: 'invalidate' } & Invalidation = { type: 'invalidate' };
  for (const field of ['keys', 'users', 'rooms', 'diceBoxes'] as const) {
    const v = m[field];
    if (v === undefined) continue;
    if (!isIdList(v, MAX_IDS)) return null;
    out[field] = v;
  }
  for (const flag of ['allDiceBoxes', 'all'] as const) {
    const v = m[flag];
    if (v === undefined) continue;
    if (typeof v !== 'boolean') return null;
    out[flag] = v;
  }
  return out;
}

/**
 * Publish control messages, in order, from a process that has no Redis connection of its own (the
 * CLI): connect, publish, quit, failing within a few seconds rather than retrying. Answers false when
 * Redis (or, on a cluster, every seed node) could not be reached: the instances' periodic
 * re-validation then catches what this would have told. On a cluster PUBLISH reaches every node's
 * subscribers; all of them go through one node (that of the channel's slot), so they keep their order.
 */
export async function publishControlOnce(target: RedisTarget | string, redisPrefix: string, ...messages: ControlMessage[]): Promise<boolean> {
  const where: RedisTarget = typeof target === 'string' ? { url: target } : target;
  const once = { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, connectTimeout: 3000 } as const;
  const client =
    'url' in where
      ? new Redis(where.url, { ...once, retryStrategy: () => null })
      : new Cluster(
          where.clusterNodes.map((n) => ({ host: n.host, port: n.port })),
          {
            lazyConnect: true,
            enableOfflineQueue: false,
            clusterRetryStrategy: () => null,
            redisOptions: { maxRetriesPerRequest: 0, connectTimeout: 3000 },
          },
        );
  client.on('error', () => undefined);
  try {
    await client.connect();
    const channel = controlChannel(redisPrefix);
    const node = masterOf(client, channel);
    for (const message of messages) await node.publish(channel, JSON.stringify(message));
    return true;
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}
