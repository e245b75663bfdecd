/**
 * bench:idle-rooms (issue 22): what an idle live room costs one instance, on sharded pub/sub
 * (REDIS_PUBSUB=sharded) and on the classic adapter (REDIS_PUBSUB=classic), in the same run.
 *
 * For each fabric, a fresh instance (the real server, scripts/bench/lib/serve.ts, --expose-gc) on a
 * redis-server of this run's own (a free port: CLIENT LIST, PUBSUB and INFO then see this instance
 * only), sharing one PostgreSQL database with ROOMS rooms of one owner each:
 *   1. baseline: ROOMS sockets on `/user` (the same connections, no room namespace);
 *   2. ROOMS live rooms: one socket in each `/room/{slug}`;
 *   3. the sockets gone: every room namespace and its subscriptions must go.
 * Per live room: the instance's heap and rss (after full collections), the pub/sub subscriptions its
 * subscriber connection holds (CLIENT LIST sub/psub/ssub) and Redis's used_memory, each minus the
 * `/user` baseline (the socket itself), with ratios sharded / classic.
 *
 *   npm run bench:idle-rooms
 *   env: ROOMS (1000), BENCH_DATABASE_URL
 */
import { Redis } from 'ioredis';
import { freePort, killRedis, startRedis } from '../../test/helpers/redisServer';
import { createBenchDatabase } from './lib/database';
import { benchEnv, newGuest } from './lib/fixtures';
import { loadLine, planCores, pinSelf, sleep, spawnTs, tolerateSocketResets, type ChildHandle } from './lib/processes';
import { connectRoom, inBatches, type Listener } from './lib/sockets';
import { ratio } from './lib/stats';
import { fmt, printTable } from './lib/table';
import { io } from 'socket.io-client';

const ROOMS = Number(process.env.ROOMS || 1000);
const cores = planCores();
pinSelf(cores.load);
tolerateSocketResets();
console.log(`bench:idle-rooms — node ${process.version}, server on core ${cores.server || '(unpinned)'}, ${ROOMS} rooms of one socket, ${loadLine()}`);

interface Memory {
  rss: number;
  heapUsed: number;
  sockets: number;
  namespaces: number;
}
interface Sample extends Memory {
  /** Subscriptions the instance's subscriber connection holds: channels, patterns, shard channels. */
  sub: number;
  psub: number;
  ssub: number;
  redisMemory: number;
}

const database = await createBenchDatabase();
let children: ChildHandle[] = [];
let sockets: Listener[] = [];
let redisChild: Awaited<ReturnType<typeof startRedis>> | null = null;
const closeSockets = () => {
  for (const s of sockets) s.socket.close();
  sockets = [];
};
const cleanup = async () => {
  closeSockets();
  await Promise.allSettled(children.map((c) => c.stop()));
  children = [];
  if (redisChild) await killRedis(redisChild);
  await database.drop();
};
process.on('SIGINT', () => void cleanup().then(() => process.exit(130)));

/** Memory after GC, twice a second apart, keeping the lower; with what Redis holds for the instance. */
async function sample(child: ChildHandle, redis: Redis): Promise<Sample> {
  await sleep(1500);
  const first = await child.ask<Memory>({ cmd: 'memory' });
  await sleep(1000);
  const second = await child.ask<Memory>({ cmd: 'memory' });
  const memory = second.heapUsed < first.heapUsed ? second : first;
  const clients = String(await redis.call('CLIENT', 'LIST')).split('\n').filter((l) => l.includes('name=dice-sub'));
  const field = (name: string) => clients.reduce((n, line) => n + Number(new RegExp(`\\b${name}=(\\d+)`).exec(line)?.[1] ?? 0), 0);
  const info = await redis.info('memory');
  const redisMemory = Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? 0);
  return { ...memory, sub: field('sub'), psub: field('psub'), ssub: field('ssub'), redisMemory };
}

function connectUser(base: string, token: string): Promise<Listener> {
  const socket = io(`${base}/user`, { auth: { token }, transports: ['websocket'], reconnection: false, forceNew: true, timeout: 30_000 });
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve({ socket, counts: new Map() }));
    socket.once('connect_error', (err: Error) => {
      socket.close();
      reject(err);
    });
  });
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 60_000) {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

interface Run {
  mode: string;
  users: Sample;
  rooms: Sample;
  left: Sample;
}

/** One fabric: a fresh Redis and instance; /user sockets, then one socket per room, then none. */
async function measure(mode: 'sharded' | 'classic', users: Array<{ key: string }>, slugs: string[]): Promise<Run> {
  const port = await freePort();
  redisChild = await startRedis(port);
  const redis = new Redis({ port, host: '127.0.0.1' });
  try {
    const server = spawnTs('scripts/bench/lib/serve.ts', { cores: cores.server, nodeArgs: ['--expose-gc'], env: benchEnv({ DATABASE_URL: database.url, REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_PUBSUB: mode }) });
    children.push(server);
    const url = ((await server.ready) as { url: string }).url;
    // Warm up: code paths and a first namespace paid for before measuring.
    const warm = await connectRoom(url, slugs[0]!, users[0]!.key);
    warm.socket.close();
    const warmUser = await connectUser(url, users[0]!.key);
    warmUser.socket.close();
    await until(async () => (await server.ask<Memory>({ cmd: 'memory' })).namespaces === 0, 'the warm-up room to close');

    sockets = await inBatches(users, 50, (u) => connectUser(url, u.key));
    const onUser = await sample(server, redis);
    closeSockets();
    await until(async () => (await server.ask<Memory>({ cmd: 'memory' })).sockets === 0, 'the /user sockets to go');

    sockets = await inBatches(users, 50, (u, i) => connectRoom(url, slugs[i]!, u.key, { timeoutMs: 60_000 }));
    const inRooms = await sample(server, redis);
    closeSockets();
    await until(async () => (await server.ask<Memory>({ cmd: 'memory' })).namespaces === 0, 'every room namespace to close');
    const left = await sample(server, redis);
    await server.stop();
    children = [];
    return { mode, users: onUser, rooms: inRooms, left };
  } finally {
    redis.disconnect();
    await killRedis(redisChild!);
    redisChild = null;
  }
}

try {
  // Users and rooms once, through a throwaway instance on the shared database (classic: any Redis will do).
  const setupPort = await freePort();
  redisChild = await startRedis(setupPort);
  const setup = spawnTs('scripts/bench/lib/serve.ts', { cores: cores.server, env: benchEnv({ DATABASE_URL: database.url, REDIS_URL: `redis://127.0.0.1:${setupPort}` }) });
  children.push(setup);
  const setupUrl = ((await setup.ready) as { url: string }).url;
  let t0 = Date.now();
  const users = await inBatches(Array.from({ length: ROOMS }), 16, () => newGuest(setupUrl));
  const slugs = await inBatches(users, 8, async (u, r) => {
    const created = await u.api.post('/room', { name: `idle ${r}`, is_public: true });
    if (created.status !== 201) throw new Error(`room: ${created.status} ${created.text}`);
    return created.body.data.slug as string;
  });
  console.log(`${ROOMS} users and rooms in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  await setup.stop();
  children = [];
  await killRedis(redisChild);
  redisChild = null;

  const runs: Run[] = [];
  for (const mode of ['sharded', 'classic'] as const) {
    t0 = Date.now();
    runs.push(await measure(mode, users, slugs));
    console.log(`${mode}: measured in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }

  const kib = (b: number) => fmt(b / 1024, 1);
  const per = (run: Run) => ({
    heap: (run.rooms.heapUsed - run.users.heapUsed) / ROOMS,
    rss: (run.rooms.rss - run.users.rss) / ROOMS,
    subs: (run.rooms.sub + run.rooms.psub + run.rooms.ssub - run.users.sub - run.users.psub - run.users.ssub) / ROOMS,
    redis: (run.rooms.redisMemory - run.users.redisMemory) / ROOMS,
  });
  const [sharded, classic] = runs.map(per) as [ReturnType<typeof per>, ReturnType<typeof per>];
  const subsOf = (s: Sample) => `${s.sub} / ${s.psub} / ${s.ssub}`;
  printTable(`What the instance holds (after GC), ${ROOMS} sockets on /user, then one in each of ${ROOMS} rooms, then none`, ['fabric', 'phase', 'heap (MiB)', 'rss (MiB)', 'room namespaces', 'sub / psub / ssub', 'Redis used_memory (MiB)'], runs.flatMap((run) =>
    (['users', 'rooms', 'left'] as const).map((phase) => [run.mode, { users: `${ROOMS} /user sockets`, rooms: `${ROOMS} live rooms`, left: 'all sockets gone' }[phase], fmt(run[phase].heapUsed / 1048576), fmt(run[phase].rss / 1048576), String(run[phase].namespaces), subsOf(run[phase]), fmt(run[phase].redisMemory / 1048576, 2)]),
  ));
  printTable(`Per idle live room, per instance (a room namespace with one socket, minus the same socket on /user)`, ['fabric', 'heap/room (KiB)', 'rss/room (KiB)', 'Redis subscriptions/room', 'Redis memory/room (KiB)'], [
    ['classic (REDIS_PUBSUB=classic)', kib(classic.heap), kib(classic.rss), fmt(classic.subs, 2), kib(classic.redis)],
    ['sharded (REDIS_PUBSUB=sharded)', kib(sharded.heap), kib(sharded.rss), fmt(sharded.subs, 2), kib(sharded.redis)],
    ['sharded / classic', ratio(sharded.heap, classic.heap), ratio(sharded.rss, classic.rss), ratio(sharded.subs, classic.subs), ratio(sharded.redis, classic.redis)],
  ]);
  for (const run of runs) {
    const leftover = run.left.sub + run.left.psub + run.left.ssub - (run.users.sub + run.users.psub + run.users.ssub);
    console.log(`${run.mode}: after the sockets left, ${run.left.namespaces} room namespaces and ${leftover} subscriptions above the /user baseline remain (heap ${fmt((run.left.heapUsed - run.users.heapUsed) / 1048576)} MiB vs the baseline)`);
  }
  console.log(loadLine());
} finally {
  await Promise.race([cleanup(), new Promise((r) => setTimeout(r, 30_000))]);
}
process.exit(process.exitCode ?? 0);
