import type { ChildProcess } from 'node:child_process';
import { Cluster as RedisCluster, Redis } from 'ioredis';
import { masterOf } from '../../src/lib/redis';
import { Api, newGuest } from './http';
import { withDeadline } from './deadline';
import { createTestDatabase, TEST_REDIS_CLUSTER_NODES, TEST_REDIS_URL, type TestDatabase } from './env';
import { spawnInstance } from './process';
import { freePort, startRedis } from './redisServer';

/** The Pusher gateway's signing secret every test instance shares (REDIS_URL requires one). */
export const TEST_PUSHER_SECRET = 'test-pusher-secret-0123456789';

/** One server process (PORT=0, test/helpers/entry.ts) of a cluster. */
export interface ClusterInstance {
  url: string;
  api: Api;
  child: ChildProcess;
  /** What the process wrote so far (JSON log lines on stdout, anything on stderr). */
  output(): string;
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface TestUser {
  key: string;
  api: Api;
  user: { uuid: string; username: string; name: string };
}

export interface Cluster {
  instances: ClusterInstance[];
  database: TestDatabase;
  /** REDIS_URL, or the REDIS_CLUSTER_NODES the instances run on in the cluster pass. */
  redisUrl: string;
  /** A guest created through instance `i` (its key works on every instance). */
  newUser: (i?: number) => Promise<TestUser>;
  /** Start one more instance on the same database and Redis. */
  add(env?: Record<string, string>): Promise<ClusterInstance>;
  stop(): Promise<void>;
}

/** Start the server with `env` (test/helpers/process.ts) and give it an API client. */
export async function spawnServer(env: Record<string, string>, timeoutMs = 30_000): Promise<ClusterInstance> {
  const instance = await spawnInstance(env, timeoutMs);
  return { ...instance, api: new Api(instance.url) };
}

/** How the instances find Redis: the test Redis Cluster when the pass runs on one, else TEST_REDIS_URL. */
export function redisEnv(): { REDIS_URL: string } | { REDIS_CLUSTER_NODES: string } {
  if (TEST_REDIS_CLUSTER_NODES) return { REDIS_CLUSTER_NODES: TEST_REDIS_CLUSTER_NODES };
  if (!TEST_REDIS_URL) throw new Error('cluster tests need TEST_REDIS_URL or TEST_REDIS_CLUSTER_NODES (and TEST_DB=postgres)');
  return { REDIS_URL: TEST_REDIS_URL };
}

/**
 * `n` instances sharing one fresh PostgreSQL database and Redis (TEST_REDIS_URL), or the test Redis
 * Cluster (TEST_REDIS_CLUSTER_NODES): the production shape. The first instance starts alone (it runs
 * the migrations), the others together.
 */
export async function startCluster(n: number, env: Record<string, string> = {}): Promise<Cluster> {
  const redis = redisEnv();
  const database = await createTestDatabase();
  if (!database.databaseUrl) throw new Error('cluster tests need TEST_DB=postgres: instances must share one database');
  const base = {
    DATABASE_URL: database.databaseUrl,
    ...redis,
    PUSHER_APP_SECRET: TEST_PUSHER_SECRET,
    DATA_DIR: database.dataDir,
    // The "listening" line is an info line: instances log at info or more.
    LOG_LEVEL: process.env.TEST_LOG_LEVEL === 'debug' ? 'debug' : 'info',
    GUESTS_PER_HOUR: '100000',
    RATE_LIMIT_PER_MINUTE: '1000000',
    SHUTDOWN_TIMEOUT_MS: '2000',
    ...env,
  };
  const instances: ClusterInstance[] = [];
  const add = async (extra: Record<string, string> = {}) => {
    const instance = await spawnServer({ ...base, ...extra });
    instances.push(instance);
    return instance;
  };
  try {
    await add();
    await Promise.all(Array.from({ length: n - 1 }, () => add()));
  } catch (err) {
    await Promise.all(instances.map((i) => i.stop('SIGKILL')));
    await database.drop();
    throw err;
  }
  return {
    instances,
    database,
    redisUrl: 'REDIS_URL' in redis ? redis.REDIS_URL : redis.REDIS_CLUSTER_NODES,
    add,
    newUser: (i = 0) => newGuest(instances[i]!.api),
    async stop() {
      await Promise.all(instances.map((i) => i.stop()));
      await database.drop();
    },
  };
}

/** ava wiring: `const cluster = useCluster(test, 2)` then `cluster.current` inside tests. */
export function useCluster(
  test: { before: (fn: () => Promise<void>) => void; after: { always: (fn: () => Promise<void>) => void } },
  n: number,
  env: Record<string, string> = {},
) {
  const holder = {} as { current: Cluster };
  test.before(async () => {
    holder.current = await startCluster(n, env);
  });
  test.after.always(async () => {
    await holder.current?.stop();
  });
  return holder;
}

/**
 * A plain client on the test Redis (an ioredis Cluster in the cluster pass), for looking at keys.
 * Key commands reach the node of their key either way; for what each node answers on its own (KEYS,
 * PUBSUB), use redisKeys() and pubsubChannels().
 */
export function redisClient(): Redis | RedisCluster {
  if (TEST_REDIS_CLUSTER_NODES) return new RedisCluster(clusterNodesOf(TEST_REDIS_CLUSTER_NODES), { redisOptions: { maxRetriesPerRequest: 1 } });
  if (!TEST_REDIS_URL) throw new Error('TEST_REDIS_URL is not set');
  return new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
}

export function clusterNodesOf(list: string): Array<{ host: string; port: number }> {
  return list.split(',').map((item) => {
    const at = item.lastIndexOf(':');
    return { host: item.slice(0, at), port: Number(item.slice(at + 1)) };
  });
}

/** The masters of a cluster client (once it is connected), or the client itself. */
async function nodesOf(client: Redis | RedisCluster): Promise<Redis[]> {
  if (!(client instanceof RedisCluster)) return [client];
  if (client.status !== 'ready') await withDeadline(new Promise((resolve) => client.once('ready', resolve)), 15_000, 'the Redis Cluster client to be ready');
  return client.nodes('master');
}

/**
 * How many connections SSUBSCRIBE `channel`, asked of the node that serves its slot (on a cluster,
 * each master knows only its own shard channels' subscribers).
 */
export async function shardSubscribers(client: Redis | RedisCluster, channel: string): Promise<number> {
  await nodesOf(client);
  const answer = (await masterOf(client, channel).call('PUBSUB', 'SHARDNUMSUB', channel)) as [string, number];
  return Number(answer[1]);
}

/** KEYS `pattern` on every node (a cluster spreads keys over its masters). */
export async function redisKeys(client: Redis | RedisCluster, pattern: string): Promise<string[]> {
  return (await Promise.all((await nodesOf(client)).map((node) => node.keys(pattern)))).flat().sort();
}

/** PUBSUB CHANNELS `pattern` on every node: each node lists only the subscriptions made on it. */
export async function pubsubChannels(client: Redis | RedisCluster, pattern: string): Promise<string[]> {
  return (await Promise.all((await nodesOf(client)).map((node) => node.pubsub('CHANNELS', pattern) as Promise<string[]>))).flat().sort();
}

/**
 * The pub/sub channels matching `pattern` that some client subscribes to: classic (SUBSCRIBE) and
 * shard channels (SSUBSCRIBE) alike, sorted. Pattern subscriptions are not listed by name by Redis.
 */
export async function subscribedChannels(client: Redis | RedisCluster, pattern: string): Promise<string[]> {
  const perNode = await Promise.all(
    (await nodesOf(client)).map(async (node) => {
      const [plain, sharded] = await Promise.all([node.call('PUBSUB', 'CHANNELS', pattern), node.call('PUBSUB', 'SHARDCHANNELS', pattern)]);
      return [...(plain as string[]), ...(sharded as string[])];
    }),
  );
  // A classic channel is listed by every node of a cluster (PUBLISH is cluster-wide): once each.
  return [...new Set(perNode.flat())].sort();
}
/**
 * For tests that stop and restart Redis under running instances: a redis-server of the test's own
 * on a free port (the shared one stays up for the others), a database, and the environment the
 * instances share, with the guest and rate limits out of the way (`extra` adds or overrides).
 */
export async function ownRedisSetup(extra: Record<string, string> = {}) {
  const port = await freePort();
  const redis = await startRedis(port);
  const database = await createTestDatabase();
  const env: Record<string, string> = {
    DATABASE_URL: database.databaseUrl!,
    REDIS_URL: `redis://127.0.0.1:${port}`,
    PUSHER_APP_SECRET: TEST_PUSHER_SECRET,
    DATA_DIR: database.dataDir,
    GUESTS_PER_HOUR: '100000',
    RATE_LIMIT_PER_MINUTE: '1000000',
    SHUTDOWN_TIMEOUT_MS: '2000',
    ...extra,
  };
  return { port, redis, database, env };
}
