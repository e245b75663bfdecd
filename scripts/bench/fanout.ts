/**
 * bench:fanout: 1,000 Socket.IO clients in one room, split over two instances joined by Redis, rolls
 * posted at a steady rate. Measures delivery latency (from the roll's created_at, stamped just before
 * its transaction commits, to the client; and, as a lower bound, from the roller's 201) and counts
 * lost and duplicated events. Beside it, in the same run, the same fan-out of a bare Socket.IO emit
 * through the Redis adapter, same payload.
 *
 * The two alternate: FANOUT_ROUNDS (5) rounds of a block of BENCH_SECONDS x FANOUT_RATE rolls and
 * a block of as many bare emits, each client holding a socket to the service and one to the bare
 * servers; each side's deliveries are pooled over its blocks.
 *
 * Then the Pusher rows: the same participants, spread over the same two instances, as
 * Pusher-protocol clients of the gateway (`/app/{key}`, each authorised at POST /broadcasting/auth
 * with its user's key and subscribed to `presence-room.{slug}`), the same rounds against the same
 * bare servers, timed to `App\Events\RollCreateEvent`. The load is raw `ws` clients speaking the
 * protocol's frames, with FANOUT_PUSHER_JS (1) real pusher-js clients among them (lib/pusher.ts).
 *
 *   npm run bench:fanout
 *   env: FANOUT_CLIENTS (1000), FANOUT_RATE (20 rolls/s), BENCH_SECONDS (10 s a block), FANOUT_ROUNDS (5), BENCH_DATABASE_URL, BENCH_REDIS_URL,
 *        FANOUT_EXTRA_IDLE_MS (0): longer idle before the first round, FANOUT_API_INSTANCE=1: rolls posted to a third instance without sockets,
 *        FANOUT_PUSHER_JS (1): how many of the Pusher clients are pusher-js (the rest raw `ws`), FANOUT_PUSHER=0: no Pusher row,
 *        BENCH_SERVER_NODE_ARGS: node flags for the instances and the bare servers alike,
 *        FANOUT_CPU_PROF=1: V8 CPU profiles of instance A while the participants join, while the sockets
 *        connect and during the first block of rolls, and of bare server A during the first bare block, into profiles/ (summarize: npx tsx scripts/bench/lib/profile.ts FILE)
 *
 * The service's instances, the bare servers and the benchmark database's backends run pinned to one
 * core; the clients to the other: this process (the roller) and one audience process per audience
 * (lib/audience.ts: the service's sockets, the bare servers' sockets, the Pusher clients), so that
 * each side's blocks are read by a process holding only its own 1,000 sockets.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createBenchDatabase, REDIS_URL } from './lib/database';
import { benchEnv, newGuest } from './lib/fixtures';
import { SECONDS, TRACE_SLOW_MS } from './lib/load';
import { loadLine, planCores, pinSelf, root, SERVER_NODE_ARGS, SERVICE_NODE_ARGS, sleep, spawnTs, type ChildHandle } from './lib/processes';
import { Audience } from './lib/audienceProcess';
import { QUIET_MS, settle as settleUpTo, steady } from './lib/delivery';
import { watchStalls } from './lib/child';
import { emitBlock, rollBlock, type Block, type Fanout } from './lib/fanoutBlocks';
import { report, type PusherRows } from './lib/fanoutReport';
import { inBatches } from './lib/sockets';
import { LATE_SKIP_MS } from '../../src/realtime/connection/holdLiveEvents';
import { fmt } from './lib/table';

const CLIENTS = Number(process.env.FANOUT_CLIENTS || 1000);
const RATE = Number(process.env.FANOUT_RATE || 20);
/** rolls per block, and as many bare emits */
const ROLLS = Math.max(1, Math.round(RATE * SECONDS));
/**
 * Rounds of a service block and a bare block (FANOUT_ROUNDS, 5). One block of 200 rolls put its p99
 * on its third-slowest roll, so one busy moment of this 2-core machine decided a run (0.63x-2.95x
 * for one build); five rounds pool 1,000 rolls on each side, the p99 is about the tenth
 * slowest, and alternating blocks leave the machine's drift to neither side.
 */
const ROUNDS = Math.max(1, Number(process.env.FANOUT_ROUNDS || 5));
const MAX_SETTLE_MS = Number(process.env.FANOUT_MAX_SETTLE_MS || 120_000);
const CPU_PROF = Boolean(process.env.FANOUT_CPU_PROF);
const PUSHER = process.env.FANOUT_PUSHER !== '0';
/** FANOUT_EXTRA_IDLE_MS (0): the room sits idle this much longer before the first round (how a quiet spell weighs on the first block). */
const EXTRA_IDLE_MS = Number(process.env.FANOUT_EXTRA_IDLE_MS || 0);
/**
 * FANOUT_API_INSTANCE=1: the rolls are posted to a third instance that holds no socket (same core,
 * same database and Redis), so that the two instances holding the sockets only write frames, as the
 * bare servers do. A deployment can split its instances so (docs/scaling.md); this measures what the
 * API's own work in the same process costs the fan-out.
 */
const API_INSTANCE = process.env.FANOUT_API_INSTANCE === '1';
/**
 * Rolls (and bare emits) sent on the same schedule before the measured ones, not counted
 * (FANOUT_WARMUP_ROLLS, default one second's worth): once before the rounds (an instance's first
 * rolls compile and cache the roll path: JIT, caches, prepared statements), and at the head of every
 * block (its servers sat idle through the other side's block; fanoutBlocks.ts, `warmup`). The
 * measured p99 is a steady state's.
 */
const WARMUP_ROLLS = Number(process.env.FANOUT_WARMUP_ROLLS ?? RATE);
const PUSHER_JS = Math.min(CLIENTS, Number(process.env.FANOUT_PUSHER_JS ?? 1));
const settle = (count: () => Promise<number>) => settleUpTo(count, MAX_SETTLE_MS);
const ownStalls = watchStalls(TRACE_SLOW_MS);

/** Profile `child` while `work` runs (FANOUT_CPU_PROF); answers what `work` answers. */
async function profiled<T>(child: ChildHandle, name: string, work: () => Promise<T>): Promise<T> {
  if (!CPU_PROF || !name) return work();
  fs.mkdirSync(path.join(root, 'profiles'), { recursive: true });
  const file = path.join(root, 'profiles', `fanout-${name}-${Date.now()}.cpuprofile`);
  await child.ask({ cmd: 'profile-start' });
  try {
    return await work();
  } finally {
    await child.ask({ cmd: 'profile-stop', file });
    console.log(`CPU profile (${name}): ${path.relative(root, file)}`);
  }
}

const cores = planCores();
pinSelf(cores.load);
console.log(
  `bench:fanout — node ${process.version}, 2 instances on core ${cores.server || '(unpinned)'}, ${CLIENTS} clients + roller on core ${cores.load || '(unpinned)'}, ${ROUNDS} rounds of ${ROLLS} rolls and ${ROLLS} bare emits at ${RATE}/s, the instances' node flags: ${[...SERVICE_NODE_ARGS, ...SERVER_NODE_ARGS].join(' ') || '(none)'}, the bare servers': ${SERVER_NODE_ARGS.join(' ') || '(none)'}, ${loadLine()} before the run`,
);

const database = await createBenchDatabase();
const children: ChildHandle[] = [];
const cleanup = async () => {
  if (process.env.BENCH_DEBUG) console.trace('cleanup');
  await Promise.allSettled(children.map((c) => c.stop()));
  await database.drop();
};
process.on('SIGINT', () => void cleanup().then(() => process.exit(130)));
process.on('exit', (code) => {
  if (code !== 0) console.log(`bench:fanout exiting with code ${code}`);
});
process.on('unhandledRejection', (err) => {
  console.log('bench:fanout: unhandled rejection', err);
});
const startAudience = async (label: string) => {
  const audience = await Audience.start(label, cores.load);
  children.push(audience.handle);
  return audience;
};
const connected = (what: string, c: { ms: number; retried: number }) =>
  console.log(`${what} in ${(c.ms / 1000).toFixed(1)} s (${c.retried} retried after a reset)`);

try {
  // --- the service: two instances, one room, CLIENTS participants with a socket each ------------
  const env = benchEnv({ DATABASE_URL: database.url, REDIS_URL });
  const a = spawnTs('scripts/bench/lib/serve.ts', { cores: cores.server, env, nodeArgs: SERVER_NODE_ARGS });
  children.push(a);
  const urlA = ((await a.ready) as { url: string }).url;
  const b = spawnTs('scripts/bench/lib/serve.ts', { cores: cores.server, env, nodeArgs: SERVER_NODE_ARGS });
  children.push(b);
  const urlB = ((await b.ready) as { url: string }).url;

  let api: ChildHandle | null = null;
  if (API_INSTANCE) {
    api = spawnTs('scripts/bench/lib/serve.ts', { cores: cores.server, env, nodeArgs: SERVER_NODE_ARGS });
    children.push(api);
  }
  const urlApi = api ? ((await api.ready) as { url: string }).url : null;
  const postUrls = urlApi ? [urlApi] : [urlA, urlB];
  if (urlApi) console.log(`the rolls are posted to a third instance, which holds no socket (FANOUT_API_INSTANCE)`);

  const roller = await newGuest(urlA);
  const room = (await roller.api.post('/room', { name: 'fan-out', is_public: true })).body.data;
  const slug = room.slug as string;
  const t0 = Date.now();
  const participants = await profiled(a, 'join', () =>
    inBatches(Array.from({ length: CLIENTS }), 16, async (_, i) => {
      const g = await newGuest(i % 2 ? urlB : urlA);
      const joined = await g.api.post(`/room/${slug}/participant`, {});
      if (joined.status !== 200) throw new Error(`join ${i} failed: ${joined.status} ${joined.text}`);
      return g.key;
    }),
  );
  console.log(`${CLIENTS} participants joined in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const sockets = await startAudience('service');
  connected(`${CLIENTS} sockets connected`, await profiled(a, 'connect', () => sockets.connect('socket.io', [urlA, urlB], slug, participants)));
  // Let the announcements of the connections drain (a ParticipantConnectEvent per newcomer to every
  // socket, the list of who is online to each newcomer: about a million messages for 1,000 sockets)
  // before the rolls: the fan-out is measured, not the backlog of the connect phase.
  const drainMs = await settle(() => sockets.count(false));
  const lastConnectAt = Date.now() - drainMs;
  console.log(
    `connect announcements drained ${((drainMs - QUIET_MS) / 1000).toFixed(1)} s after the last socket connected (${await sockets.count(false)} events)`,
  );

  const fanout: Fanout = {
    a,
    b,
    postUrls,
    api,
    roller,
    body: {
      dice: [
        { type: 'd6', theme: 'standard' },
        { type: 'd20', theme: 'standard' },
      ],
      room: slug,
    },
    database,
    serverCores: cores.server,
    rate: RATE,
    bare: [],
    warmup: WARMUP_ROLLS,
    maxSettleMs: MAX_SETTLE_MS,
    ownStalls,
  };
  const pinned = await database.pinBackends(cores.server);
  if (pinned)
    console.log(`${pinned} PostgreSQL backends of the benchmark's database moved to core ${cores.server}, with the instances (again before each block)`);
  if (WARMUP_ROLLS > 0) {
    await steady(WARMUP_ROLLS, RATE, (i) => roller.api.as(roller.key).post(`${postUrls[i % postUrls.length]}/api/1.0/roll`, fanout.body));
    const warmed = await settle(() => sockets.count(false));
    console.log(
      `warm-up: ${WARMUP_ROLLS} rolls at ${RATE}/s, not measured; their deliveries drained ${((warmed - QUIET_MS) / 1000).toFixed(1)} s after the last post`,
    );
  }
  const sample = await sockets.sample();

  // --- the baseline beside it: bare Socket.IO + Redis adapter, same participants, same payload ----
  const bareA = spawnTs('scripts/bench/lib/bareFanoutServer.ts', { cores: cores.server, env: { REDIS_URL }, nodeArgs: SERVER_NODE_ARGS });
  const bareB = spawnTs('scripts/bench/lib/bareFanoutServer.ts', { cores: cores.server, env: { REDIS_URL }, nodeArgs: SERVER_NODE_ARGS });
  children.push(bareA, bareB);
  fanout.bare.push(bareA, bareB);
  const [bareUrlA, bareUrlB] = await Promise.all([bareA.ready, bareB.ready].map(async (r) => ((await r) as { url: string }).url));
  const bareSockets = await startAudience('bare');
  connected(
    `bare: ${CLIENTS} sockets connected (an audience process of their own)`,
    await bareSockets.connect('socket.io', [bareUrlA!, bareUrlB!], slug, participants),
  );
  const template = (sample ?? { uuid: '' }) as Record<string, unknown>;
  const emit = (i: number, uuid: string) => (i % 2 ? bareB : bareA).child.send({ cmd: 'emit', namespace: `/room/${slug}`, payload: { ...template, uuid } });
  if (WARMUP_ROLLS > 0) {
    await steady(WARMUP_ROLLS, RATE, async (i) => emit(i, `bare-warmup-${i}`));
    await settle(() => bareSockets.count(false));
  }
  // The rounds measure a room in its steady state: each socket's welcome hooks its connection for
  // LATE_SKIP_MS after the welcome (src/realtime/connection/holdLiveEvents.ts), about 1 ms of CPU per roll while on.
  const hooksOffIn = lastConnectAt + LATE_SKIP_MS + 1000 + EXTRA_IDLE_MS - Date.now();
  if (hooksOffIn > 0) {
    console.log(
      `waiting ${(hooksOffIn / 1000).toFixed(1)} s for the welcomes' late windows to end (LATE_SKIP_MS after the last socket connected${EXTRA_IDLE_MS ? `, and FANOUT_EXTRA_IDLE_MS more` : ''})`,
    );
    await sleep(hooksOffIn);
  }
  /** ROUNDS rounds of a block of `kind` and a bare block, in turn first (ABBA: drift charges neither side). */
  const rounds = async (kind: string, block: (name: string, round: number) => Promise<Block>) => {
    const service: Block[] = [];
    const bare: Block[] = [];
    // FANOUT_CPU_PROF: bare server A is profiled during the first bare block, as instance A during the first block of rolls.
    const bareBlock = (name: string) => profiled(bareA, name === 'bare-rolls-1' ? 'bare-rolls' : '', () => emitBlock(fanout, name, bareSockets, ROLLS, emit));
    for (let r = 1; r <= ROUNDS; r++) {
      console.log(`round ${r} of ${ROUNDS} (${kind}):`);
      if (r % 2) {
        service.push(await block(`${kind}-${r}`, r));
        bare.push(await bareBlock(`bare-${kind}-${r}`));
      } else {
        bare.push(await bareBlock(`bare-${kind}-${r}`));
        service.push(await block(`${kind}-${r}`, r));
      }
    }
    return { service, bare };
  };
  const eventsBefore = await sockets.count(false);
  // FANOUT_CPU_PROF: instance A is profiled during the first block of rolls.
  const socketIo = await rounds('rolls', (name, r) => {
    const block = () => rollBlock(fanout, name, sockets, ROLLS);
    return r === 1 ? profiled(a, 'rolls', block) : block();
  });
  // Every event the service's sockets got during the rounds, of any name, against one RollCreateEvent per send and socket.
  console.log(
    `the service's sockets received ${(await sockets.count(false)) - eventsBefore} events of every kind during the rounds, for ${ROUNDS * (WARMUP_ROLLS + ROLLS) * CLIENTS} RollCreateEvent deliveries (warm-ups included)`,
  );
  const memA = await a.ask<{ rss: number }>({ cmd: 'memory' });
  await sockets.close();

  // --- the Pusher rows: the same participants through the gateway, same instances, same rate -------
  let pusherRows: PusherRows | null = null;
  if (PUSHER) {
    // The Socket.IO sockets' departures (presence leaves, announcements) are over before these connect.
    await sleep(3000);
    const pushers = await startAudience('pusher');
    const c = await profiled(a, 'pusher-connect', () => pushers.connect('pusher', [urlA, urlB], slug, participants, PUSHER_JS));
    connected(`pusher: ${CLIENTS} clients (${c.pusherJs} pusher-js, ${CLIENTS - c.pusherJs} raw ws) authorised and subscribed to presence-room.${slug}`, c);
    const drained = await settle(() => pushers.count(false));
    console.log(
      `pusher: member_added frames drained ${((drained - QUIET_MS) / 1000).toFixed(1)} s after the last subscription (${await pushers.count(false)} frames)`,
    );
    const { service, bare } = await rounds('pusher-rolls', (name) => rollBlock(fanout, name, pushers, ROLLS));
    pusherRows = { service, bare, pusherJs: c.pusherJs };
    await pushers.close();
  }

  report({ clients: CLIENTS, rolls: ROLLS, rounds: ROUNDS, rate: RATE }, socketIo, pusherRows, sample);
  console.log(`${loadLine()} after the run`);
  console.log(`instance A rss with ${CLIENTS / 2} sockets: ${fmt(memA.rss / 1048576)} MiB`);
} catch (err) {
  console.error('bench:fanout failed:', err);
  process.exitCode = 1;
} finally {
  // Bounded: a child that will not stop or a database that will not drop must not hang the benchmark.
  await Promise.race([cleanup(), new Promise((r) => setTimeout(r, 30_000))]);
}
// Client sockets and keep-alive agents may linger: the benchmark is over.
process.exit(process.exitCode ?? 0);
