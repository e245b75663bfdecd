/**
 * bench:fanout: 1,000 Socket.IO clients in one room, split over two instances joined by Redis, rolls
 * posted at a steady rate. Measures delivery latency (from the roll's created_at, stamped just before
 * its transaction commits, to the client; and, as a lower bound, from the roller's 201) and counts
 * lost and duplicated events. Beside it, in the same run, the same fan-out of a bare Socket.IO emit
 * through the Redis adapter, same payload.
 *
 * Then the Pusher row (issue 19): the same participants, spread over the same two instances, as
 * Pusher-protocol clients of the gateway (`/app/{key}`, each authorised at POST /broadcasting/auth
 * with its user's key and subscribed to `presence-room.{slug}`), the same number of rolls at the
 * same rate, timed to `App\Events\RollCreateEvent`. The load is raw `ws` clients speaking the
 * protocol's frames, with FANOUT_PUSHER_JS (1) real pusher-js clients among them (lib/pusher.ts).
 *
 *   npm run bench:fanout
 *   env: FANOUT_CLIENTS (1000), FANOUT_RATE (20 rolls/s), BENCH_SECONDS (10), BENCH_DATABASE_URL, BENCH_REDIS_URL,
 *        FANOUT_PUSHER_JS (1): how many of the Pusher clients are pusher-js (the rest raw `ws`), FANOUT_PUSHER=0: no Pusher row,
 *        FANOUT_CPU_PROF=1: V8 CPU profiles of instance A while the participants join, while the sockets
 *        connect and while the rolls are posted, into profiles/ (summarize: npx tsx scripts/bench/lib/profile.ts FILE)
 *
 * Both instances run pinned to one core, this process (every client socket and the roller) to the
 * other: a single client process holding 1,000 sockets is part of what is measured, on both sides.
 */
import fs from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';
import path from 'node:path';
import { createBenchDatabase, REDIS_URL } from './lib/database';
import { benchEnv, newGuest } from './lib/fixtures';
import { SECONDS, TRACE_SLOW_MS } from './lib/load';
import { loadLine, planCores, pinSelf, root, tolerateSocketResets, sleep, spawnTs, type ChildHandle } from './lib/processes';
import { countAll, QUIET_MS, settle as settleUpTo, steady, Tracker, type Delivery } from './lib/delivery';
import { describe, interference, readProcesses } from './lib/interference';
import { describeStall, watchStalls } from './lib/child';
import { connectPusherRoom, type PusherListener } from './lib/pusher';
import { connectRetries, connectRoom, inBatches, type Listener } from './lib/sockets';
import { ratio, summarize, type Summary } from './lib/stats';
import { fmt, printTable } from './lib/table';

const CLIENTS = Number(process.env.FANOUT_CLIENTS || 1000);
const RATE = Number(process.env.FANOUT_RATE || 20);
const ROLLS = Math.max(1, Math.round(RATE * SECONDS));
const MAX_SETTLE_MS = Number(process.env.FANOUT_MAX_SETTLE_MS || 120_000);
const CPU_PROF = Boolean(process.env.FANOUT_CPU_PROF);
const PUSHER = process.env.FANOUT_PUSHER !== '0';
/**
 * Rolls (and bare emits) sent on the same schedule before the measured ones, not counted
 * (FANOUT_WARMUP_ROLLS, default one second's worth): an instance's first rolls compile and cache the
 * roll path (JIT, caches, prepared statements); the measured p99 is a steady state's.
 */
const WARMUP_ROLLS = Number(process.env.FANOUT_WARMUP_ROLLS ?? RATE);
const PUSHER_JS = Math.min(CLIENTS, Number(process.env.FANOUT_PUSHER_JS ?? 1));
const settle = (count: () => number) => settleUpTo(count, MAX_SETTLE_MS);
const ownStalls = watchStalls(TRACE_SLOW_MS);
/**
 * Every measured phase starts with the clients' process fully collected (and its stall watch reset):
 * the garbage a phase leaves (200,000 parsed events) must not be collected during the next one, whose
 * clients would then read their events late.
 */
v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;
const startPhase = () => {
  collectGarbage();
  ownStalls();
};

/** Profile `child` while `work` runs (FANOUT_CPU_PROF); answers what `work` answers. */
async function profiled<T>(child: ChildHandle, name: string, work: () => Promise<T>): Promise<T> {
  if (!CPU_PROF) return work();
  fs.mkdirSync(path.join(root, 'profiles'), { recursive: true });
  const file = path.join(root, 'profiles', `fanout-${name}-${Date.now()}.cpuprofile`);
  await child.ask({ cmd: 'profile-start' });
  try {
    return await work();
  } finally {
    await child.ask({ cmd: 'profile-stop', file });
    console.log(`CPU profile of instance A (${name}): ${path.relative(root, file)}`);
  }
}

const cores = planCores();
pinSelf(cores.load);
tolerateSocketResets();
console.log(`bench:fanout — node ${process.version}, 2 instances on core ${cores.server || '(unpinned)'}, ${CLIENTS} clients + roller on core ${cores.load || '(unpinned)'}, ${ROLLS} rolls at ${RATE}/s, ${loadLine()} before the run`);

const database = await createBenchDatabase();
const children: ChildHandle[] = [];
let sockets: Listener[] = [];
let pushers: PusherListener[] = [];
const cleanup = async () => {
  if (process.env.BENCH_DEBUG) console.trace('cleanup');
  for (const s of sockets) s.socket.close();
  sockets = [];
  for (const p of pushers) p.close();
  pushers = [];
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

try {
  // --- the service: two instances, one room, CLIENTS participants with a socket each ------------
  const env = benchEnv({ DATABASE_URL: database.url, REDIS_URL });
  const a = spawnTs('scripts/bench/lib/serve.ts', { cores: cores.server, env });
  children.push(a);
  const urlA = ((await a.ready) as { url: string }).url;
  const b = spawnTs('scripts/bench/lib/serve.ts', { cores: cores.server, env });
  children.push(b);
  const urlB = ((await b.ready) as { url: string }).url;

  const roller = await newGuest(urlA);
  const room = (await roller.api.post('/room', { name: 'fan-out', is_public: true })).body.data;
  const slug = room.slug as string;
  let t0 = Date.now();
  const audience = await profiled(a, 'join', () => inBatches(Array.from({ length: CLIENTS }), 16, async (_, i) => {
    const g = await newGuest(i % 2 ? urlB : urlA);
    const joined = await g.api.post(`/room/${slug}/participant`, {});
    if (joined.status !== 200) throw new Error(`join ${i} failed: ${joined.status} ${joined.text}`);
    return g;
  }));
  console.log(`${CLIENTS} participants joined in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  t0 = Date.now();
  sockets = await profiled(a, 'connect', () => inBatches(audience, 25, (g, i) => connectRoom(i % 2 ? urlB : urlA, slug, g.key, { timeoutMs: 60_000 })));
  console.log(`${CLIENTS} sockets connected in ${((Date.now() - t0) / 1000).toFixed(1)} s (${connectRetries.count} connections retried after a reset)`);
  // Let the announcements of the connections drain (a ParticipantConnectEvent per newcomer to every
  // socket, the list of who is online to each newcomer: about a million messages for 1,000 sockets)
  // before the rolls: the fan-out is measured, not the backlog of the connect phase.
  const allEvents = () => countAll(sockets);
  const drainMs = await settle(allEvents);
  console.log(`connect announcements drained ${((drainMs - QUIET_MS) / 1000).toFixed(1)} s after the last socket connected (${allEvents()} events)`);

  const body = { dice: [{ type: 'd6', theme: 'standard' }, { type: 'd20', theme: 'standard' }], room: slug };
  /**
   * Post ROLLS rolls at RATE, alternating instances, to an audience already tracked by `tracker`;
   * wait until the deliveries stop, and count them. Answers the tally, when each roll's 201 arrived
   * and the failed posts.
   */
  const rollPhase = async (name: string, tracker: Tracker) => {
    const uuids: string[] = [];
    const answeredAt = new Map<string, number>();
    const createdAt = new Map<string, number>();
    const failures: string[] = [];
    await Promise.all([a.ask({ cmd: 'pauses' }), b.ask({ cmd: 'pauses' })]); // from here: this phase's collections
    // BENCH_TRACE_SLOW_MS: the instances time their own requests (from the first byte to the last).
    if (TRACE_SLOW_MS) await Promise.all([a.ask({ cmd: 'slow-requests' }), b.ask({ cmd: 'slow-requests' })]);
    const pinned = await database.pinBackends(cores.server);
    if (pinned) console.log(`${name}: ${pinned} PostgreSQL backends of the benchmark's database moved to core ${cores.server}, with the instances`);
    startPhase();
    const procsBefore = readProcesses();
    const postStart = Date.now();
    await profiled(a, name, () => steady(ROLLS, RATE, async (i) => {
      try {
        const res = await roller.api.as(roller.key).post(`${i % 2 ? urlB : urlA}/api/1.0/roll`, body);
        if (res.status === 201) {
          uuids.push(res.body.data.uuid);
          answeredAt.set(res.body.data.uuid, Date.now());
          createdAt.set(res.body.data.uuid, Date.parse(res.body.data.created_at));
        }
        else failures.push(`${res.status} ${res.text.slice(0, 100)}`);
      } catch (err) {
        failures.push(`${(err as Error).message} ${String((err as { cause?: unknown }).cause ?? '')}`);
      }
    }));
    const postedMs = Date.now() - postStart;
    const settleMs = await settle(() => tracker.count);
    const outside = interference(procsBefore, readProcesses());
    for (const [label, c] of [['A', a], ['B', b]] as const) {
      if (c.child.exitCode !== null || c.child.signalCode !== null) console.log(`! instance ${label} died (${c.child.exitCode ?? c.child.signalCode}):\n${c.output().slice(-3000)}`);
    }
    // Each instance's collections during the phase (major ones, and minor ones over 4 ms), by when
    // they started: lined up with the slowest rolls' created_at, they tell a collection's stall apart.
    const collections: string[] = [];
    const stalls: string[] = [];
    for (const [label, c] of [['A', a], ['B', b]] as const) {
      const pauses = await c.ask<{ timeline: Array<[number, string, number]>; stalls: Array<[number, number, number, number, number]> }>({ cmd: 'pauses' });
      collections.push(`${label}: ${pauses.timeline.map(([at, kind, ms]) => `${((at - postStart) / 1000).toFixed(2)} s ${kind} ${ms}`).join(', ') || 'none'}`);
      if (TRACE_SLOW_MS) stalls.push(`${label}: ${pauses.stalls.map(describeStall(postStart)).join(', ') || 'none'}`);
    }
    if (TRACE_SLOW_MS) {
      stalls.push(`the clients' process: ${ownStalls().filter(([at]) => at >= postStart).map(describeStall(postStart)).join(', ') || 'none'}`);
      collections.push(`the event loops late by over ${TRACE_SLOW_MS} ms (s into the phase: gap ms, of which the main thread ran, waited for the core, other threads ran) ${stalls.join('; ')}`);
      for (const [label, c] of [['A', a], ['B', b]] as const) {
        const own = await c.ask<{ seen: number; slow: Array<[number, number]> }>({ cmd: 'slow-requests', overMs: TRACE_SLOW_MS });
        collections.push(`${label} answered ${own.slow.length} of its ${own.seen} requests in over ${TRACE_SLOW_MS} ms (s into the phase: ms): ${own.slow.map(([at, ms]) => `${((at - postStart) / 1000).toFixed(2)}: ${ms}`).join(', ')}`);
      }
    }
    const delivery = tracker.tally(uuids, postedMs);
    const m = summarize(delivery.latencies);
    console.log(`${name}: ${m.count} of ${delivery.expected} deliveries, p50 ${fmt(m.p50)} ms, p99 ${fmt(m.p99)} ms, max ${fmt(m.max)} ms, lost ${delivery.lost}, duplicated ${delivery.duplicated}; posting took ${(postedMs / 1000).toFixed(1)} s, ${failures.length} failed posts`);
    return { delivery, answeredAt, createdAt, failures, settleMs, postStart, collections, outside };
  };
  const fromCreatedAt = (p: { data: { created_at: string } }) => Date.parse(p.data.created_at);

  if (WARMUP_ROLLS > 0) {
    await steady(WARMUP_ROLLS, RATE, (i) => roller.api.as(roller.key).post(`${i % 2 ? urlB : urlA}/api/1.0/roll`, body));
    const warmed = await settle(allEvents);
    console.log(`warm-up: ${WARMUP_ROLLS} rolls at ${RATE}/s, not measured; their deliveries drained ${((warmed - QUIET_MS) / 1000).toFixed(1)} s after the last post`);
  }
  // Each delivery's arrival is kept too, to time it also from the roller's 201 (the answer leaves after the commit).
  const serviceTracker = new Tracker();
  sockets.forEach((s, i) => serviceTracker.track((l) => s.socket.on('RollCreateEvent', l), (p) => p.data.uuid, fromCreatedAt, i));
  let sample: unknown = null;
  sockets[0]!.socket.once('RollCreateEvent', (p: { data: unknown }) => (sample = p.data));
  const { delivery: service, answeredAt, createdAt, failures, settleMs: serviceSettle, postStart, collections, outside: serviceOutside } = await rollPhase('rolls', serviceTracker);
  const memA = await a.ask<{ rss: number }>({ cmd: 'memory' });
  for (const s of sockets) s.socket.close();
  sockets = [];

  // --- the Pusher row: the same participants through the gateway, same instances, same rate --------
  let pusherRow: { delivery: Delivery; arrivals: Tracker; answeredAt: Map<string, number>; settleMs: number; pusherJs: number } | null = null;
  if (PUSHER) {
    // The Socket.IO sockets' departures (presence leaves, announcements) are over before these connect.
    await sleep(3000);
    t0 = Date.now();
    const retried = connectRetries.count;
    pushers = await profiled(a, 'pusher-connect', () => inBatches(audience, 25, (g, i) => connectPusherRoom(i % 2 ? urlB : urlA, slug, g.key, { pusherJs: i < PUSHER_JS, timeoutMs: 60_000 })));
    const pusherJs = pushers.filter((p) => p.kind === 'pusher-js').length;
    console.log(`pusher: ${CLIENTS} clients (${pusherJs} pusher-js, ${CLIENTS - pusherJs} raw ws) authorised and subscribed to presence-room.${slug} in ${((Date.now() - t0) / 1000).toFixed(1)} s (${connectRetries.count - retried} retried after a reset)`);
    const drained = await settle(() => countAll(pushers));
    console.log(`pusher: member_added frames drained ${((drained - QUIET_MS) / 1000).toFixed(1)} s after the last subscription (${countAll(pushers)} frames)`);
    const pusherTracker = new Tracker();
    pushers.forEach((p, i) => pusherTracker.track((l) => p.on('App\\Events\\RollCreateEvent', l), (d) => d.data.uuid, fromCreatedAt, i));
    const phase = await rollPhase('pusher-rolls', pusherTracker);
    failures.push(...phase.failures);
    pusherRow = { delivery: phase.delivery, arrivals: pusherTracker, answeredAt: phase.answeredAt, settleMs: phase.settleMs, pusherJs };
    for (const p of pushers) p.close();
    pushers = [];
  }
  await Promise.allSettled([a.stop(), b.stop()]);
  children.length = 0;

  // --- the baseline: bare Socket.IO + Redis adapter, same clients, same payload, same rate -------
  const bareA = spawnTs('scripts/bench/lib/bareFanoutServer.ts', { cores: cores.server, env: { REDIS_URL } });
  const bareB = spawnTs('scripts/bench/lib/bareFanoutServer.ts', { cores: cores.server, env: { REDIS_URL } });
  children.push(bareA, bareB);
  const [bareUrlA, bareUrlB] = await Promise.all([bareA.ready, bareB.ready].map(async (r) => ((await r) as { url: string }).url));
  if (process.env.BENCH_DEBUG) console.log(`service A ${urlA} B ${urlB}; bare A ${bareUrlA} (pid ${bareA.pid}) B ${bareUrlB} (pid ${bareB.pid})`);
  const retriedBefore = connectRetries.count;
  t0 = Date.now();
  sockets = await inBatches(audience, 25, (g, i) => connectRoom(i % 2 ? bareUrlB! : bareUrlA!, slug, g.key, { timeoutMs: 60_000 }));
  console.log(`bare: ${CLIENTS} sockets connected in ${((Date.now() - t0) / 1000).toFixed(1)} s (${connectRetries.count - retriedBefore} retried after a reset)`);
  await sleep(1000);
  const template = (sample ?? { uuid: '' }) as Record<string, unknown>;
  const emit = (i: number, uuid: string) => (i % 2 ? bareB : bareA).child.send({ cmd: 'emit', namespace: `/room/${slug}`, payload: { ...template, uuid } });
  if (WARMUP_ROLLS > 0) {
    await steady(WARMUP_ROLLS, RATE, async (i) => emit(i, `bare-warmup-${i}`));
    await settle(() => countAll(sockets));
  }
  const bareTracker = new Tracker();
  sockets.forEach((s, i) => bareTracker.track((l) => s.socket.on('RollCreateEvent', l), (p) => p.data.uuid, (p) => p.sentAt, i));
  const bareIds: string[] = [];
  startPhase();
  const bareProcs = readProcesses();
  const bareStart = Date.now();
  await steady(ROLLS, RATE, async (i) => {
    const uuid = `bare-${i}`;
    bareIds.push(uuid);
    // Fire and forget: a saturated server must fall behind in what it delivers, not stall the schedule.
    emit(i, uuid);
  });
  const bareMs = Date.now() - bareStart;
  await settle(() => bareTracker.count);
  const bareOutside = interference(bareProcs, readProcesses());
  if (TRACE_SLOW_MS) console.log(`bare phase: the clients' process's event loop late by over ${TRACE_SLOW_MS} ms: ${ownStalls().map(describeStall(bareStart)).join(', ') || 'never'}`);
  const bare = bareTracker.tally(bareIds, bareMs);

  // --- report ----------------------------------------------------------------------------------
  const s: Summary = summarize(service.latencies);
  const z: Summary = summarize(bare.latencies);
  // The commit lies between the roll's created_at (stamped before its insert) and the roller's 201
  // (sent after the commit and the publish): latency from commit lies between these two.
  const afterAnswer = (tracker: Tracker, answered: Map<string, number>) => summarize([...tracker.arrivals()].flatMap(([id, at]) => (answered.has(id) ? [at - answered.get(id)!] : [])));
  const fromAnswer = afterAnswer(serviceTracker, answeredAt);
  const p = pusherRow ? summarize(pusherRow.delivery.latencies) : null;
  const row = (label: string, d: Delivery, m: Summary, r: string) => [label, String(d.expected), String(m.count), fmt(m.p50), fmt(m.p90), fmt(m.p99), fmt(m.max), String(d.lost), String(d.duplicated), r];
  printTable(`Delivery of ${ROLLS} rolls at ${RATE}/s to ${CLIENTS} sockets over 2 instances (latency in ms)`, ['fan-out', 'expected', 'received', 'p50', 'p90', 'p99', 'max', 'lost', 'duplicated', 'p99 vs bare'], [
    row('bare Socket.IO emit via Redis adapter', bare, z, '1.00x'),
    row('service: POST /roll -> RollCreateEvent', service, s, ratio(s.p99, z.p99)),
    ...(pusherRow && p ? [row(`service, Pusher: POST /roll -> App\\Events\\RollCreateEvent (${pusherRow.pusherJs} pusher-js + ${CLIENTS - pusherRow.pusherJs} raw ws)`, pusherRow.delivery, p, ratio(p.p99, z.p99))] : []),
  ]);
  console.log('');
  console.log(`posting took ${(service.wallMs / 1000).toFixed(1)} s for ${ROLLS} rolls (${(ROLLS / (service.wallMs / 1000)).toFixed(1)}/s achieved); ${failures.length} failed posts${failures.length ? `: ${failures.slice(0, 3).join(' | ')}` : ''}`);
  console.log(`the last service events arrived ${(serviceSettle / 1000 - QUIET_MS / 1000).toFixed(1)} s after the last post`);
  console.log(`p50 ratio ${ratio(s.p50, z.p50)}, p99 ratio ${ratio(s.p99, z.p99)} (target: within 1.5x), p99 ${fmt(s.p99)} ms (target < 50 ms): ${s.p99 < 50 && s.p99 <= 1.5 * z.p99 ? 'met' : 'MISSED'}`);
  // Issue 23's target is the ratio, in every clean run: whether this one was clean is measured, not judged.
  const clean = serviceOutside.clean && bareOutside.clean;
  console.log(`outside the benchmark, during the service phase: ${describe(serviceOutside)}; during the bare phase: ${describe(bareOutside)}`);
  console.log(`p99 within 1.5x of the bare emit's: ${s.p99 <= 1.5 * z.p99 ? 'met' : 'MISSED'} (${ratio(s.p99, z.p99)}) in a run that was ${clean ? 'clean' : 'NOT clean'}`);
  console.log(`the same deliveries timed from the roller's 201 instead of created_at (a lower bound of "from commit"; negative: before the answer): p50 ${fmt(fromAnswer.p50)} ms, p99 ${fmt(fromAnswer.p99)} ms (p99 vs bare ${ratio(fromAnswer.p99, z.p99)})`);
  // Per roll: the p99 of 200 rolls x 1,000 deliveries is decided by the slowest two or three rolls.
  // How much of each roll's slowest delivery was already spent when its roller got the 201 (the insert,
  // its commit, the publish and the answer) tells the database's share from the fan-out's.
  const slowestOf = new Map<string, number>();
  for (const [id, at] of serviceTracker.arrivals()) slowestOf.set(id, Math.max(slowestOf.get(id) ?? 0, at));
  const perRoll = [...createdAt].filter(([id]) => answeredAt.has(id) && slowestOf.has(id)).map(([id, c]) => ({ id, toAnswer: answeredAt.get(id)! - c, slowest: slowestOf.get(id)! - c }));
  const toAnswer = summarize(perRoll.map((r) => r.toAnswer));
  console.log(`per roll, created_at -> the roller's 201 (insert, commit, publish, answer): p50 ${fmt(toAnswer.p50)} ms, p99 ${fmt(toAnswer.p99)} ms, max ${fmt(toAnswer.max)} ms over ${perRoll.length} rolls`);
  const worst = perRoll.sort((x, y) => y.slowest - x.slowest).slice(0, 5);
  console.log(`the ${worst.length} rolls with the slowest deliveries (created_at in s into the phase: slowest delivery from created_at; of it, created_at -> 201): ${worst.map((r) => `${((createdAt.get(r.id)! - postStart) / 1000).toFixed(2)} s: ${fmt(r.slowest, 0)} ms (${fmt(r.toAnswer, 0)} ms)`).join(', ')}`);
  console.log(`the instances' collections during the phase (s into it, kind, ms; minor ones only over 4 ms): ${collections.join('; ')}`);
  console.log(`lost ${service.lost}, duplicated ${service.duplicated} (must be 0): ${service.lost === 0 && service.duplicated === 0 ? 'ok' : 'FAILED'}`);
  if (pusherRow && p) {
    const pa = afterAnswer(pusherRow.arrivals, pusherRow.answeredAt);
    console.log(`Pusher (a separate phase after the Socket.IO one, same instances and rolls schedule): p50 ratio ${ratio(p.p50, z.p50)}, p99 ratio ${ratio(p.p99, z.p99)} vs bare; vs the Socket.IO row p50 ${ratio(p.p50, s.p50)}, p99 ${ratio(p.p99, s.p99)}; from the 201: p50 ${fmt(pa.p50)} ms, p99 ${fmt(pa.p99)} ms; the last events arrived ${(pusherRow.settleMs / 1000 - QUIET_MS / 1000).toFixed(1)} s after the last post`);
    console.log(`Pusher lost ${pusherRow.delivery.lost}, duplicated ${pusherRow.delivery.duplicated} (must be 0): ${pusherRow.delivery.lost === 0 && pusherRow.delivery.duplicated === 0 ? 'ok' : 'FAILED'}`);
  }
  const embedded = (sample as { room?: { participants?: unknown[] } } | null)?.room?.participants?.length ?? 0;
  console.log(`one RollCreateEvent payload: ${fmt(Buffer.byteLength(JSON.stringify({ data: sample })) / 1024)} KiB (its room embeds ${embedded} of the ${CLIENTS + 1} participants)`);
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
