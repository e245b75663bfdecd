/**
 * bench:idle-rooms: what an idle live room costs one instance, on sharded pub/sub
 * (REDIS_PUBSUB=sharded) and on the classic adapter (REDIS_PUBSUB=classic), in the same run.
 *
 * Three fresh instances (the real server, scripts/bench/lib/serve.ts, --expose-gc), each on a
 * redis-server of its own (a free port: CLIENT LIST, PUBSUB and INFO then see that instance only),
 * sharing one PostgreSQL database with ROOMS rooms of one owner each:
 *   - baseline: ROOMS sockets on `/user` (the same connections, no room namespace);
 *   - classic, then sharded: one socket in each of the ROOMS `/room/{slug}`, then none (every room
 *     namespace and its subscriptions must go).
 * Per live room, against the same instance's idle state: heap and rss (after full collections), the
 * pub/sub subscriptions its subscriber connection holds (CLIENT LIST sub/psub/ssub) and Redis's
 * used_memory; the room's own heap (minus the baseline's socket); ratios sharded / classic. And
 * Redis's CPU per publish of a room event (commandstats), with one room live and with all: what the
 * classic adapter's pattern subscriptions make grow (bench:rooms measures it end to end, two instances).
 *
 *   npm run bench:idle-rooms
 *   env: ROOMS (3000), BENCH_DATABASE_URL, IDLE_ROOMS_SHARDED_FIRST=1 (measure sharded before classic),
 *        IDLE_ROOMS_PROBES (2000 publishes for the CPU per publish)
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
import { wireFor } from '../../src/realtime/transport/wireFormat';

const ROOMS = Number(process.env.ROOMS || 3000);
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
  const clients = String(await redis.call('CLIENT', 'LIST'))
    .split('\n')
    .filter((l) => l.includes('name=dice-sub'));
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
  label: string;
  before: Sample;
  /** With ROOMS sockets connected (in rooms, or on /user for the baseline). */
  loaded: Sample;
  /** After they left (rooms only): what stays behind. */
  left: Sample | null;
  /** Redis CPU per publish of a room event (commandstats), with one room live and with all (room runs). */
  publishUs: { one: number; live: number } | null;
}

const PROBES = Number(process.env.IDLE_ROOMS_PROBES || 2000);

/**
 * Redis CPU per publish (INFO commandstats usec_per_call of PUBLISH or SPUBLISH) of PROBES room events
 * written as the broadcaster writes them (src/realtime/transport/wireFormat.ts) to the room `slug`: the cost that the classic
 * adapter's pattern subscriptions make grow with the live rooms. The one socket of that room receives
 * them (a small event it ignores).
 */
async function publishCost(redis: Redis, mode: 'sharded' | 'classic', slug: string): Promise<number> {
  const wire = wireFor(mode, 'dice');
  const { channel, message } = wire.encodeFor({ namespace: `/room/${slug}`, to: ['members'] }, 'BenchProbeEvent', { data: { probe: 'x'.repeat(200) } });
  await redis.call('CONFIG', 'RESETSTAT');
  for (let sent = 0; sent < PROBES; sent += 100) {
    const pipeline = redis.pipeline();
    for (let i = 0; i < 100; i++) pipeline[wire.command](channel, message);
    await pipeline.exec();
  }
  const stats = await redis.info('commandstats');
  return Number(new RegExp(`^cmdstat_${wire.command}:calls=\\d+,usec=\\d+,usec_per_call=([\\d.]+)`, 'm').exec(stats)?.[1] ?? NaN);
}

/**
 * One fresh Redis and instance: warm up, measure, connect one socket per user (each in its own room,
 * or on `/user` for the baseline), measure, and for rooms close them all and measure what is left.
 * RSS does not shrink when memory is freed, so every figure is taken against this instance's own
 * `before`, never against an earlier phase.
 */
async function measure(label: string, mode: 'sharded' | 'classic', on: 'rooms' | 'user', users: Array<{ key: string }>, slugs: string[]): Promise<Run> {
  const port = await freePort();
  redisChild = await startRedis(port);
  const redis = new Redis({ port, host: '127.0.0.1' });
  try {
    const server = spawnTs('scripts/bench/lib/serve.ts', {
      cores: cores.server,
      nodeArgs: ['--expose-gc'],
      env: benchEnv({ DATABASE_URL: database.url, REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_PUBSUB: mode }),
    });
    children.push(server);
    const url = ((await server.ready) as { url: string }).url;
    // Warm up: code paths, a first room namespace and a /user socket paid for before measuring.
    const warm = await connectRoom(url, slugs[0]!, users[0]!.key);
    warm.socket.close();
    const warmUser = await connectUser(url, users[0]!.key);
    warmUser.socket.close();
    await until(async () => (await server.ask<Memory>({ cmd: 'memory' })).namespaces === 0, 'the warm-up room to close');
    const before = await sample(server, redis);

    // Rooms: room 0 first, alone live, for the CPU per publish with one live room; then the others.
    let oneRoomUs = NaN;
    if (on === 'rooms') {
      sockets = [await connectRoom(url, slugs[0]!, users[0]!.key)];
      await sleep(500);
      oneRoomUs = await publishCost(redis, mode, slugs[0]!);
    }
    const first = sockets.length;
    sockets.push(
      ...(await inBatches(users.slice(first), 50, (u, i) =>
        on === 'rooms' ? connectRoom(url, slugs[i + first]!, u.key, { timeoutMs: 60_000 }) : connectUser(url, u.key),
      )),
    );
    const loaded = await sample(server, redis);
    const liveUs = on === 'rooms' ? await publishCost(redis, mode, slugs[0]!) : NaN;
    closeSockets();
    let left: Sample | null = null;
    if (on === 'rooms') {
      await until(async () => (await server.ask<Memory>({ cmd: 'memory' })).namespaces === 0, 'every room namespace to close');
      left = await sample(server, redis);
    }
    await server.stop();
    children = [];
    return { label, before, loaded, left, publishUs: on === 'rooms' ? { one: oneRoomUs, live: liveUs } : null };
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
  const setup = spawnTs('scripts/bench/lib/serve.ts', {
    cores: cores.server,
    env: benchEnv({ DATABASE_URL: database.url, REDIS_URL: `redis://127.0.0.1:${setupPort}` }),
  });
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
  const plan = [
    ['baseline: a socket on /user, no room', 'sharded', 'user'],
    ['classic (REDIS_PUBSUB=classic)', 'classic', 'rooms'],
    ['sharded (REDIS_PUBSUB=sharded)', 'sharded', 'rooms'],
  ] as const;
  // IDLE_ROOMS_SHARDED_FIRST=1 swaps the two fabrics, to see whether a figure follows the fabric or the order.
  const order = process.env.IDLE_ROOMS_SHARDED_FIRST === '1' ? [0, 2, 1] : [0, 1, 2];
  const byIndex = new Map<number, Run>();
  for (const i of order) {
    const [label, mode, on] = plan[i]!;
    t0 = Date.now();
    byIndex.set(i, await measure(label, mode, on, users, slugs));
    console.log(`${label}: measured in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  const [baseline, classic, sharded] = [0, 1, 2].map((i) => byIndex.get(i)!) as [Run, Run, Run];
  runs.push(baseline, classic, sharded);

  const subsOf = (s: Sample) => s.sub + s.psub + s.ssub;
  const per = (run: Run) => ({
    heap: (run.loaded.heapUsed - run.before.heapUsed) / ROOMS,
    rss: (run.loaded.rss - run.before.rss) / ROOMS,
    subs: (subsOf(run.loaded) - subsOf(run.before)) / ROOMS,
    redis: (run.loaded.redisMemory - run.before.redisMemory) / ROOMS,
  });
  const base = per(baseline);
  const [c, s] = [per(classic), per(sharded)];
  const kib = (b: number) => fmt(b / 1024, 1);
  const mib = (b: number) => fmt(b / 1048576);
  printTable(
    `What the instance holds (after GC): before, with ${ROOMS} sockets, after they left`,
    [
      'run',
      'heap before / with / after (MiB)',
      'rss before / with / after (MiB)',
      'room namespaces with / after',
      'sub / psub / ssub with',
      'after',
      'Redis used_memory before / with (MiB)',
    ],
    runs.map((run) => [
      run.label,
      `${mib(run.before.heapUsed)} / ${mib(run.loaded.heapUsed)} / ${run.left ? mib(run.left.heapUsed) : '-'}`,
      `${mib(run.before.rss)} / ${mib(run.loaded.rss)} / ${run.left ? mib(run.left.rss) : '-'}`,
      `${run.loaded.namespaces} / ${run.left ? run.left.namespaces : '-'}`,
      `${run.loaded.sub} / ${run.loaded.psub} / ${run.loaded.ssub}`,
      run.left ? `${run.left.sub} / ${run.left.psub} / ${run.left.ssub}` : '-',
      `${fmt(run.before.redisMemory / 1048576, 2)} / ${fmt(run.loaded.redisMemory / 1048576, 2)}`,
    ]),
  );
  printTable(
    `Per idle live room (one socket), per instance, ${ROOMS} rooms`,
    ['run', 'heap (KiB)', 'rss (KiB)', 'room alone: heap - baseline (KiB)', 'Redis subscriptions', 'Redis memory (KiB)'],
    [
      [baseline.label, kib(base.heap), kib(base.rss), '-', fmt(base.subs, 2), kib(base.redis)],
      [classic.label, kib(c.heap), kib(c.rss), kib(c.heap - base.heap), fmt(c.subs, 2), kib(c.redis)],
      [sharded.label, kib(s.heap), kib(s.rss), kib(s.heap - base.heap), fmt(s.subs, 2), kib(s.redis)],
      [
        'sharded / classic',
        ratio(s.heap, c.heap),
        ratio(s.rss, c.rss),
        ratio(s.heap - base.heap, c.heap - base.heap),
        ratio(s.subs, c.subs),
        ratio(s.redis, c.redis),
      ],
    ],
  );
  printTable(
    `Redis CPU per publish of a room event (INFO commandstats, ${PROBES} publishes), one instance`,
    ['run', '1 live room (µs)', `${ROOMS} live rooms (µs)`, `${ROOMS} rooms / 1 room`],
    [classic, sharded].map((run) => [run.label, fmt(run.publishUs!.one, 2), fmt(run.publishUs!.live, 2), ratio(run.publishUs!.live, run.publishUs!.one)]),
  );
  console.log(`at ${ROOMS} live rooms, Redis CPU per publish: classic / sharded ${ratio(classic.publishUs!.live, sharded.publishUs!.live)}`);
  for (const run of [classic, sharded]) {
    console.log(
      `${run.label}: after the sockets left, ${run.left!.namespaces} room namespaces and ${subsOf(run.left!) - subsOf(run.before)} subscriptions more than before remain; heap ${fmt((run.left!.heapUsed - run.before.heapUsed) / 1048576, 2)} MiB above before`,
    );
  }
  console.log(loadLine());
} finally {
  await Promise.race([cleanup(), new Promise((r) => setTimeout(r, 30_000))]);
}
process.exit(process.exitCode ?? 0);
