import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import calculateSlot from 'cluster-key-slot';
import type { Config, RedisNode } from '../config';
import type { Logger } from '../logger';

/**
 * One Redis server or one Redis Cluster: ioredis gives both the same commands, and every key the
 * service uses is cluster-safe (what one command, script or transaction touches lives in one slot:
 * docs/realtime.md "Running on Redis Cluster"), so code takes either.
 */
export type RedisClient = Redis | Cluster;

/** Where Redis is: REDIS_URL (one server) or REDIS_CLUSTER_NODES (a cluster's seed nodes). */
export type RedisTarget = { url: string } | { clusterNodes: readonly RedisNode[] };

/** The Redis the configuration names, or null (the embedded shape). */
export function redisTargetOf(config: Pick<Config, 'redisUrl' | 'redisClusterNodes'>): RedisTarget | null {
  if (config.redisClusterNodes) return { clusterNodes: config.redisClusterNodes };
  if (config.redisUrl) return { url: config.redisUrl };
  return null;
}

/** The variable that named it, for error messages. */
export function describeTarget(target: RedisTarget): string {
  return 'url' in target ? 'REDIS_URL' : `REDIS_CLUSTER_NODES (${target.clusterNodes.map((n) => `${n.host}:${n.port}`).join(',')})`;
}

export function isCluster(client: RedisClient): client is Cluster {
  return (client as Cluster).isCluster === true;
}

export interface RedisClientOptions {
  /**
   * Never hold a command for later: while Redis is away it fails at once, and one in flight when the
   * connection drops fails too instead of being sent again on reconnection. For the publishing
   * client: an event is then either delivered in its place or known lost (and its room resynced,
   * src/realtime/index.ts), never delivered seconds late out of order, which would make a client's
   * `since` skip the events lost before it.
   */
  failFast?: boolean;
  /**
   * On a cluster, SSUBSCRIBE through one subscriber connection per master (ioredis
   * `shardedSubscribers`), so that each shard channel is subscribed on the node owning its slot.
   * Without it ioredis sends SSUBSCRIBE to one random node, which answers MOVED for most channels.
   * Ignored on one Redis server (one connection subscribes to everything there).
   */
  shardedSubscriber?: boolean;
}

/** Connection settings shared by a server's client and a cluster's per-node clients. */
function connectionOptions(name: string, options: RedisClientOptions): RedisOptions {
  return {
    maxRetriesPerRequest: 1,
    autoResendUnfulfilledCommands: !options.failFast,
    connectTimeout: 3000,
    connectionName: `dice-${name}`,
  };
}

/**
 * How often every cluster client re-reads the slot map (docs/realtime.md, "Running on Redis Cluster"):
 * the subscriber, which sends no keyed command and so never hears MOVED; and the others, which keep a
 * dead master in their node list (commands for its slots waiting on it) until they re-read the map.
 */
export const SUBSCRIBER_SLOTS_REFRESH_MS = 1000;

/**
 * An ioredis client (a `Redis`, or a `Cluster` for REDIS_CLUSTER_NODES) that fails fast while Redis
 * is away (commands error after one retry instead of queueing without bound), reconnects by itself,
 * and logs an outage once. Not connected yet: call `connect()` (connectRedisClients does).
 */
export function createRedis(target: RedisTarget | string, logger: Logger, name: string, options: RedisClientOptions = {}): RedisClient {
  const where: RedisTarget = typeof target === 'string' ? { url: target } : target;
  const retry = (times: number) => Math.min(times * 200, 2000);
  let client: RedisClient;
  if ('url' in where) {
    client = new Redis(where.url, {
      ...connectionOptions(name, options),
      lazyConnect: true,
      enableOfflineQueue: !options.failFast,
      retryStrategy: retry,
    });
  } else {
    const clusterOptions: ClusterOptions = {
      lazyConnect: true,
      // The cluster's own queue (commands sent before the slots are known, or while refreshing them).
      enableOfflineQueue: !options.failFast,
      clusterRetryStrategy: retry,
      // A node that restarts on the same address keeps its slots: reconnect to it rather than wait for a MOVED.
      clusterNodeRetryStrategy: retry,
      shardedSubscribers: Boolean(options.shardedSubscriber),
      // The subscriber sends no keyed command, so no MOVED ever tells it that a slot changed hands:
      // after a master fails over to its replica, Redis drops the shard subscriptions on the old
      // master and only a refresh of the slot map makes ioredis SSUBSCRIBE them again on the new one
      // (test/faults/clusterFaults.test.ts). One CLUSTER SLOTS a second bounds that silence.
      // The other clients: a master killed and replaced by its replica stayed in their node list as long
      // as it was away (168 s seen), every command for its slots waiting on it first.
      slotsRefreshInterval: SUBSCRIBER_SLOTS_REFRESH_MS,
      // Per-node clients keep their queue (they connect lazily, on a node's first command); failing
      // fast there means no retry: a command queued for a node that went away fails at its first
      // reconnection attempt instead of being sent late.
      redisOptions: { ...connectionOptions(name, options), ...(options.failFast ? { maxRetriesPerRequest: 0 } : {}) },
    };
    client = new Cluster(
      where.clusterNodes.map((n) => ({ host: n.host, port: n.port })),
      clusterOptions,
    );
  }
  // A node's connection failing: re-read the slot map now rather than at the next interval (ioredis
  // runs one refresh at a time: a burst of errors costs one).
  if (isCluster(client)) client.on('node error', () => client.refreshSlotsCache());
  let down = false;
  client.on('error', (err: Error) => {
    if (!down) logger.warn({ redis: name, err: err.message }, 'redis connection error');
    down = true;
  });
  client.on('ready', () => {
    if (down) logger.info({ redis: name }, 'redis connection restored');
    down = false;
  });
  return client;
}

/**
 * The service's three connections: commands (presence, rate limits), publishing, subscribing. The
 * subscriber takes SUBSCRIBE, PSUBSCRIBE and SSUBSCRIBE alike, on one server or a cluster.
 */
export interface RedisClients {
  redis: RedisClient;
  pub: RedisClient;
  sub: RedisClient;
}

/**
 * Create and connect the three clients the configuration asks for (null without Redis). Throws a
 * sentence naming the variable when Redis (or every seed node of the cluster) cannot be reached.
 */
export async function connectRedisClients(config: Pick<Config, 'redisUrl' | 'redisClusterNodes'>, logger: Logger): Promise<RedisClients | null> {
  const target = redisTargetOf(config);
  if (!target) return null;
  const clients: RedisClients = {
    redis: createRedis(target, logger, 'main'),
    pub: createRedis(target, logger, 'pub', { failFast: true }),
    // On a cluster, able to SSUBSCRIBE too (one connection per master, for the sharded adapter),
    // beside SUBSCRIBE/PSUBSCRIBE (the classic adapter, the control channel): both work on one client.
    sub: createRedis(target, logger, 'sub', { shardedSubscriber: true }),
  };
  try {
    await Promise.all(Object.values(clients).map((c: RedisClient) => connectWithin(c, 10_000)));
    // One server named by REDIS_URL that is a cluster node would answer MOVED for most keys.
    // (Some managed Redis services refuse INFO: then nothing is known, and nothing refused.)
    if ('url' in target && /cluster_enabled:1/.test(await clients.redis.info('cluster').catch(() => ''))) {
      throw new WrongShape("Redis at REDIS_URL is a node of a Redis Cluster (cluster_enabled:1): name the cluster's nodes in REDIS_CLUSTER_NODES instead.");
    }
  } catch (err) {
    for (const c of Object.values(clients) as RedisClient[]) c.disconnect();
    if (err instanceof WrongShape) throw err;
    const standalone = 'url' in target ? null : await standaloneNode(target);
    if (standalone)
      throw new Error(
        `REDIS_CLUSTER_NODES names ${standalone}, a Redis server that is not in cluster mode (cluster_enabled:0): set REDIS_URL for one Redis server.`,
        { cause: err },
      );
    throw new Error(`Cannot reach ${'url' in target ? 'Redis' : 'the Redis Cluster'} at ${describeTarget(target)} (${(err as Error).message}).`, {
      cause: err,
    });
  }
  return clients;
}

/** A start-up refusal whose sentence says it all. */
class WrongShape extends Error {}

/**
 * The first seed node that answers as a plain Redis server (no cluster mode), if any: ioredis only
 * says "None of startup nodes is available" for those.
 */
async function standaloneNode(target: { clusterNodes: readonly RedisNode[] }): Promise<string | null> {
  for (const node of target.clusterNodes) {
    const probe = new Redis({
      host: node.host,
      port: node.port,
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      connectTimeout: 2000,
      retryStrategy: () => null,
    });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      if (/cluster_enabled:0/.test(await probe.info('cluster'))) return `${node.host}:${node.port}`;
    } catch {
      // Unreachable: the general sentence says so.
    } finally {
      probe.disconnect();
    }
  }
  return null;
}

/**
 * connect(), bounded: a cluster whose seed nodes answer but whose slots are not all served (or that
 * keeps retrying its seed nodes) would otherwise keep start-up waiting for ever.
 */
async function connectWithin(client: RedisClient, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no ready connection within ${ms / 1000} s`)), ms);
  });
  try {
    await Promise.race([client.connect(), timeout]);
    // A cluster is connected once it knows its slots; one CLUSTER INFO proves the cluster serves them.
    if (isCluster(client)) {
      const info = String(await Promise.race([client.cluster('INFO'), timeout]));
      if (!/cluster_state:ok/.test(info))
        throw new Error(`the cluster is not serving every slot (${/cluster_state:\w+/.exec(info)?.[0] ?? 'no cluster_state'})`);
    }
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A subscriber connection for the sharded adapter (SSUBSCRIBE): on a cluster, one with ioredis'
 * sharded subscribers (a connection per master, each shard channel subscribed where its slot lives);
 * on one server, a plain client. Connected when answered.
 */
export async function connectShardedSubscriber(target: RedisTarget, logger: Logger, name = 'ssub'): Promise<RedisClient> {
  const client = createRedis(target, logger, name, { shardedSubscriber: true });
  await connectWithin(client, 10_000);
  return client;
}

/**
 * What decides where a channel's publishes go: Socket.IO adapter channels are `key#namespace#` or
 * `key#namespace#room#`, and one event of a room goes out on several of them (one per viewer class),
 * so they route by their namespace part; any other channel by its whole name.
 */
function routeOf(channel: string): string {
  return /^[^#]*#[^#]*#/.exec(channel)?.[0] ?? channel;
}

/**
 * The client that carries the publishes of `channel`: on a cluster, the master owning the slot of its
 * namespace (routeOf). PUBLISH names no key, so ioredis would send each one to a random node; two
 * instances publishing to one room through two nodes could then be heard in two orders (each node
 * forwards to the others on a link of its own). Sending a room's publishes to one node keeps one
 * order for every subscriber. Falls back to the cluster (any node) while its slots are unknown.
 */
export function clientForChannel(client: RedisClient, channel: string): RedisClient {
  return masterOf(client, routeOf(channel));
}

/**
 * On a cluster, the client of the master owning `key`'s slot (the cluster itself while the slots are
 * unknown); the client itself on one server. For commands ioredis cannot route by themselves, or that
 * must fail at once when that node is away (whenUp).
 */
export function masterOf(client: RedisClient, key: string): RedisClient {
  if (!isCluster(client)) return client;
  const owner = client.slots[calculateSlot(key)]?.[0];
  if (!owner) return client;
  return client.nodes('master').find((node) => `${node.options.host}:${node.options.port}` === owner) ?? client;
}

type Publish = (channel: string, message: string | Buffer) => Promise<number>;
/** The commands that publish: PUBLISH (classic pub/sub) and SPUBLISH (sharded pub/sub, Redis 7). */
export type PublishCommand = 'publish' | 'spublish';
/** The PUBLISH and SPUBLISH of clients whose own methods the adapter guard replaced (server.ts). */
const unguarded = new WeakMap<RedisClient, Map<PublishCommand, Publish>>();

/** Called by the adapter guard before it replaces `client[command]`. */
export function rememberUnguardedPublish(client: RedisClient, publish: Publish, command: PublishCommand = 'publish'): void {
  let commands = unguarded.get(client);
  if (!commands) unguarded.set(client, (commands = new Map<PublishCommand, Publish>()));
  commands.set(command, publish);
}

/**
 * PUBLISH or SPUBLISH as Redis answers it, failures included. The adapter guard makes the shared
 * client's own methods resolve 0 when Redis is away (the adapter does not handle rejections); the
 * realtime broadcaster and the control channel must see those failures to resync rooms and evict
 * locally. On a cluster, each channel's publishes go to one node (clientForChannel; SPUBLISH names
 * its shard channel as a key, PUBLISH names none), and fail at once while that node is away (whenUp).
 */
export function unguardedOf(client: RedisClient, command: PublishCommand): Publish {
  if (isCluster(client)) return (channel, message) => whenUp(clientForChannel(client, channel), (node) => node[command](channel, message) as Promise<number>);
  return unguarded.get(client)?.get(command) ?? ((channel, message) => client[command](channel, message) as Promise<number>);
}

/** PUBLISH as Redis answers it (unguardedOf). */
export function publishOf(client: RedisClient): Publish {
  return unguardedOf(client, 'publish');
}

/**
 * PUBLISHes (or SPUBLISHes) to one channel as one MULTI/EXEC block (no other publish lands between
 * them), sent to the
 * node of that channel on a cluster (clientForChannel). Rejects when Redis does not take it.
 */
export function publishBlock(
  client: RedisClient,
  block: ReadonlyArray<readonly [string, string | Buffer]>,
  command: PublishCommand = 'publish',
): Promise<unknown> {
  const send = (target: RedisClient) => target.multi(block.map(([channel, message]) => [command, channel, message])).exec();
  return isCluster(client) ? whenUp(clientForChannel(client, block[0]![0]), send) : send(client);
}

/** Connection states of a cluster node that lost its connection and has not got it back. */
const LOST = new Set(['reconnecting', 'close', 'end']);

/**
 * Run `send` on a cluster node unless its connection was lost: a node client keeps a queue (it
 * connects lazily), and a publish queued there while the node is away would be sent late, out of its
 * place, if the node came back. Failing at once keeps the pub client's promise (failFast): delivered
 * in order, or known lost. (Measured on the test cluster with a master killed: without this, publishes
 * failed only at the next reconnection attempt, 0.1 to 1.6 s later.)
 */
export function whenUp<T>(target: RedisClient, send: (target: RedisClient) => Promise<T>): Promise<T> {
  if (!isCluster(target) && LOST.has(target.status)) {
    return Promise.reject(new Error(`Redis node ${target.options.host}:${target.options.port} is ${target.status}`));
  }
  return send(target);
}
