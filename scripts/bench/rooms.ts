/**
 * bench:rooms: does an event's Redis cost grow with the number of live rooms? Two
 * instances (PostgreSQL + a redis-server of the benchmark's own, so that INFO commandstats counts
 * only them), first 10 and then BENCH_ROOMS live rooms with one socket each, spread over the two
 * instances, then back to 10; in each, rolls at a steady rate into one room, posted through instance
 * A, heard by that room's only socket, on instance B. Per phase: Redis CPU per roll (INFO cpu,
 * net of an idle window just before) and command time per roll and per publish (INFO commandstats,
 * CONFIG RESETSTAT first), delivery p50/p99 from the POST to that socket, lost and duplicated;
 * memory per idle live room on each instance (against the 10-room phase, and in rss also from a
 * third of the rooms on the way up) and in Redis. Each adapter of BENCH_ADAPTERS
 * (REDIS_PUBSUB values, default "classic,sharded") runs the same phases in the same run, on fresh
 * instances, and the report gives the ratios of the many-rooms phase to the two 10-room phases
 * around it, against the targets (within 1.3x; 0 lost, 0 duplicated).
 *
 *   npm run bench:rooms
 *   env: BENCH_ROOMS (3000), BENCH_RATE (20 rolls/s), BENCH_SECONDS (15 s of rolls per phase),
 *        BENCH_ADAPTERS (classic,sharded), BENCH_IDLE_SECONDS (3), BENCH_DATABASE_URL,
 *        BENCH_ROOMS_REDIS_URL (use that Redis instead of starting one; its commandstats then count
 *        everything else that uses it too)
 *
 * Instances on one core, this process (every socket, the roller) on the other; Redis and PostgreSQL
 * unpinned. The rooms are real: N guests (POST /user) each create one (POST /room) through the API,
 * and each owner's socket joins its room's namespace through the real handshake.
 */
import { createBenchDatabase } from './lib/database';
import { benchEnv, newGuest } from './lib/fixtures';
import { loadLine, pinSelf, planCores, sleep, spawnTs, tolerateSocketResets, type ChildHandle } from './lib/processes';
import { startBenchRedis, subscriptions, waitQuiet, type Subscriptions } from './lib/redisStats';
import { printRoomsReport, type AdapterRun } from './lib/roomsReport';
import { measurePhase, settledMemory, type Memory, type PhaseResult } from './lib/roomsPhase';
import { connectRetries, connectRoom, inBatches, type Listener } from './lib/sockets';

const ROOMS = Number(process.env.BENCH_ROOMS || 3000);
const SMALL = 10;
const RATE = Number(process.env.BENCH_RATE || 20);
const SECONDS = Number(process.env.BENCH_SECONDS || 15);
const ROLLS = Math.max(1, Math.round(RATE * SECONDS));
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS || 3);
const ADAPTERS = (process.env.BENCH_ADAPTERS || 'classic,sharded')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const MAX_SETTLE_MS = 30_000;
if (!(ROOMS > SMALL)) throw new Error(`BENCH_ROOMS must be more than ${SMALL} (got ${process.env.BENCH_ROOMS})`);

const cores = planCores();
pinSelf(cores.load);
tolerateSocketResets();
const started = Date.now();
console.log(
  `bench:rooms — node ${process.version}, 2 instances on core ${cores.server || '(unpinned)'}, sockets + roller on core ${cores.load || '(unpinned)'}; ${SMALL} then ${ROOMS} then ${SMALL} live rooms; ${ROLLS} rolls at ${RATE}/s per phase; adapters ${ADAPTERS.join(', ')}; ${loadLine()} at the start`,
);

const redis = await startBenchRedis(process.env.BENCH_ROOMS_REDIS_URL);
const redisMajor = Number(redis.version.split('.')[0]);
const database = await createBenchDatabase();
const children: ChildHandle[] = [];
let sockets: Listener[] = [];
const closeSockets = (list: Listener[]) => list.forEach((s) => s?.socket.close());
const cleanup = async () => {
  closeSockets(sockets);
  sockets = [];
  await Promise.allSettled(children.map((c) => c.stop()));
  children.length = 0;
  await database.drop();
  await redis.stop();
};
process.on('SIGINT', () => void cleanup().then(() => process.exit(130)));

/** Two instances of the service on the bench's database and Redis, with `extra` in their environment. */
async function startInstances(extra: Record<string, string>, pinned = true): Promise<Array<{ child: ChildHandle; url: string }>> {
  const env = benchEnv({ DATABASE_URL: database.url, REDIS_URL: redis.url, ROOMS_PER_USER: '1000000', ROOMS_JOINED_PER_USER: '1000000', ...extra });
  const out = [];
  // One after the other: the first runs the migrations.
  for (let i = 0; i < 2; i++) {
    const child = spawnTs('scripts/bench/lib/serve.ts', { cores: pinned ? cores.server : '', env, nodeArgs: ['--expose-gc'] });
    children.push(child);
    out.push({ child, url: ((await child.ready) as { url: string }).url });
  }
  return out;
}

async function stopAll() {
  await Promise.allSettled(children.map((c) => c.stop()));
  children.length = 0;
}

/** Wait (up to `ms`) until Redis holds what `done` wants; answers what it holds then. */
async function waitSubscriptions(done: (s: Subscriptions) => boolean, ms = 30_000): Promise<Subscriptions> {
  const until = Date.now() + ms;
  let s = await subscriptions(redis.client, redisMajor);
  while (!done(s) && Date.now() < until) {
    await sleep(250);
    s = await subscriptions(redis.client, redisMajor);
  }
  return s;
}
const held = (s: Subscriptions) => s.patterns + s.channels + s.shardChannels;

try {
  // --- the rooms: one guest each, each room created by its owner, through the API --------------
  // Not measured: the instance creating the rooms may use both cores.
  const [setup] = await startInstances({}, false);
  const t0 = Date.now();
  const owners = await inBatches(Array.from({ length: ROOMS }), 32, async (_, i) => {
    const g = await newGuest(setup!.url);
    const created = await g.api.post('/room', { name: `live ${i}`, is_public: true });
    if (created.status !== 201) throw new Error(`room ${i}: ${created.status} ${created.text}`);
    return { key: g.key, slug: created.body.data.slug as string };
  });
  await stopAll();
  console.log(`${ROOMS} guests and their rooms created through the API in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

  const runs: AdapterRun[] = [];
  for (const adapter of ADAPTERS) {
    const [a, b] = await startInstances({ REDIS_PUBSUB: adapter });
    const base = await subscriptions(redis.client, redisMajor);
    // Room i's socket goes to B when i is even: room 0, the one rolled into, is heard on B only.
    const urlOf = (i: number) => (i % 2 === 0 ? b!.url : a!.url);
    const connect = async (from: number, to: number) => {
      const t = Date.now();
      const retried = connectRetries.count;
      const range = Array.from({ length: to - from }, (_, k) => from + k);
      const got = await inBatches(range, 50, (i) => connectRoom(urlOf(i), owners[i]!.slug, owners[i]!.key, { timeoutMs: 60_000 }));
      got.forEach((s, k) => (sockets[from + k] = s));
      console.log(
        `${adapter}: rooms ${from}..${to - 1} live (one socket each) in ${((Date.now() - t) / 1000).toFixed(1)} s (${connectRetries.count - retried} retried)`,
      );
    };
    const phase = async (rooms: number) => {
      const r = await measurePhase({
        adapter,
        rooms,
        redis: redis.client,
        redisMajor,
        instances: [a!.child, b!.child],
        rollUrl: a!.url,
        rollerKey: owners[0]!.key,
        slug: owners[0]!.slug,
        listener: sockets[0]!,
        rolls: ROLLS,
        rate: RATE,
        idleSeconds: IDLE_SECONDS,
        maxSettleMs: MAX_SETTLE_MS,
      });
      console.log(
        `${adapter}, ${rooms} rooms (${r.fabric}: ${r.subs.patterns} patterns, ${r.subs.channels} channels, ${r.subs.shardChannels} shard channels): ${r.posted} rolls, ${r.busy.publish.calls} publishes, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, lost ${r.lost}, duplicated ${r.duplicated}, ${r.failures.length} failed posts; ${r.load} (started once Redis had been quiet, ${(r.quietAfterMs / 1000).toFixed(1)} s after the rooms changed)`,
      );
      const idle = [...r.idle.commands]
        .sort((x, y) => y[1].usec - x[1].usec)
        .slice(0, 4)
        .map(([n, c]) => `${n} ${c.calls}`)
        .join(', ');
      console.log(`  idle window: ${(r.idle.cpuUs / 1000 / r.idle.seconds).toFixed(2)} ms of Redis CPU per s; commands: ${idle || 'none'}`);
      return r;
    };

    const phases: PhaseResult[] = [];
    await connect(0, SMALL);
    const small = await waitSubscriptions((s) => held(s) > held(base), 5000);
    phases.push(await phase(SMALL));
    // RSS per room between a third of the rooms and all of them: both readings after a burst of
    // connections, so the allocator's growth is alike on both sides (against the 10-room phase, rss
    // per room moved from 10 to 33 KiB between runs; heap did not).
    const mid = Math.round(ROOMS / 3) > SMALL ? Math.round(ROOMS / 3) : null;
    let midMemory: [Memory, Memory] | null = null;
    if (mid) {
      await connect(SMALL, mid);
      await waitQuiet(redis.client);
      midMemory = (await Promise.all([a!.child, b!.child].map(settledMemory))) as [Memory, Memory];
    }
    await connect(mid ?? SMALL, ROOMS);
    phases.push(await phase(ROOMS));
    // Back to 10: the other rooms' last sockets go, and with them their namespaces and subscriptions.
    closeSockets(sockets.splice(SMALL));
    const back = await waitSubscriptions((s) => held(s) <= held(small));
    phases.push(await phase(SMALL));
    closeSockets(sockets);
    sockets = [];
    const empty = await waitSubscriptions((s) => held(s) <= held(base));
    runs.push({ adapter, phases, base, back, empty, midMemory });
    await stopAll();
  }

  printRoomsReport(runs, { rolls: ROLLS, rate: RATE, rooms: ROOMS, small: SMALL, redisVersion: redis.version });
  console.log(`\n${loadLine()} at the end; the run took ${((Date.now() - started) / 1000).toFixed(0)} s`);
} catch (err) {
  console.error('bench:rooms failed:', err);
  for (const c of children) console.error(c.output().slice(-2000));
  process.exitCode = 1;
} finally {
  await Promise.race([cleanup(), new Promise((r) => setTimeout(r, 30_000))]);
}
process.exit(process.exitCode ?? 0);
