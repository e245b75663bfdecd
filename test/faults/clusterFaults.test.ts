import test, { type ExecutionContext } from 'ava';
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import calculateSlot from 'cluster-key-slot';
import { Redis } from 'ioredis';
import { Client as pgClient } from 'pg';
import { connectRoom, lastSeq, type RoomSocket } from '../../src/client/realtime';
import { roomNamespace } from '../../src/realtime/names';
import { sequenceKeys } from '../../src/realtime/transport/sequenceLogRedis';
import { withDeadline } from '../helpers/deadline';
import { createTestDatabase } from '../helpers/env';
import { spawnServer, TEST_PUSHER_SECRET, type ClusterInstance } from '../helpers/cluster';
import { sleep, teardownSteps } from './support';

// Faults of the engines under a live room, on a Redis Cluster of 3 masters with a replica each and two
// instances: the room's master failing over (CLUSTER FAILOVER) or killed (SIGKILL, its replica taking
// over), its replica killed, an instance killed right after answering a roll. Rolls keep coming
// through the fault (nothing waits for the subscriptions to come back); every socket is the project's
// own client (src/client/realtime.ts: it reconnects with since_seq when told ReplayRequiredEvent),
// and each must end up with every roll answered 201, once: 0 lost, 0 duplicated.
//
// One cluster and two instances for all four (each test leaves the cluster whole: a killed node is
// started again and synced before the next). FAULT_SOCKETS scales the sockets per room (default 6).
const run = promisify(execFile);
const script = path.resolve('scripts/redis-cluster.sh');
const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'dice-faults-')), 'cluster');
const clusterEnv = { ...process.env, REDIS_CLUSTER_REPLICAS: '1', REDIS_CLUSTER_NODE_TIMEOUT: '2000' };
const SOCKETS = Number(process.env.FAULT_SOCKETS ?? 6);
const teardown = teardownSteps(test);
const instances: ClusterInstance[] = [];
let nodes: Array<{ host: string; port: number }> = [];
let env: Record<string, string> = {};

test.before(async () => {
  teardown.push(() => run(script, ['stop', dir]));
  const { stdout } = await run(script, ['start', dir], { env: clusterEnv });
  const list = stdout.trim();
  nodes = list.split(',').map((n) => ({ host: n.split(':')[0]!, port: Number(n.split(':')[1]) }));
  const database = await createTestDatabase();
  teardown.push(() => database.drop());
  teardown.push(() => Promise.allSettled(instances.map((i) => i.stop('SIGKILL'))));
  env = {
    DATABASE_URL: database.databaseUrl!,
    REDIS_CLUSTER_NODES: list,
    PUSHER_APP_SECRET: TEST_PUSHER_SECRET,
    DATA_DIR: database.dataDir,
    GUESTS_PER_HOUR: '100000',
    RATE_LIMIT_PER_MINUTE: '1000000',
    SHUTDOWN_TIMEOUT_MS: '2000',
    // A roll whose instance died before publishing it is published by another after this grace.
    OUTBOX_GRACE_MS: '1000',
    OUTBOX_SWEEP_MS: '500',
  };
  instances.push(await spawnServer(env));
  instances.push(await spawnServer(env));
});

// FAULT_LOG_DIR: where each instance's log goes after each test, for reading a failure.
test.afterEach.always(() => {
  if (!process.env.FAULT_LOG_DIR) return;
  instances.forEach((instance, i) => writeFileSync(path.join(process.env.FAULT_LOG_DIR!, `instance-${i}-${instance.child.pid}.log`), instance.output()));
  // The Redis nodes' own logs (a failover's steps), before the cluster's directory goes with it.
  for (const node of nodes) cpSync(path.join(dir, `redis-${node.port}.log`), path.join(process.env.FAULT_LOG_DIR!, `redis-${node.port}.log`), { force: true });
});

/** One command to one node of the cluster, on a connection of its own. */
async function ask(port: number, ...command: [string, ...string[]]): Promise<unknown> {
  const r = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1000, retryStrategy: () => null });
  r.on('error', () => undefined);
  try {
    await r.connect();
    return await r.call(...command);
  } finally {
    r.disconnect();
  }
}

const role = async (port: number) => ((await ask(port, 'ROLE').catch(() => ['down'])) as [string])[0];

/** The master serving `slot` and its replica, once the replica is synced (CLUSTER SLOTS of a live node). */
async function shardOf(slot: number): Promise<{ master: number; replica: number }> {
  for (let i = 0; i < 150; i++) {
    for (const node of nodes) {
      const slots = (await ask(node.port, 'CLUSTER', 'SLOTS').catch(() => null)) as Array<[number, number, ...Array<[string, number, string]>]> | null;
      if (!slots) continue;
      const [, , master, replica] = slots.find(([from, to]) => from <= slot && slot <= to) ?? [];
      if (master && replica) {
        const info = (await ask(replica[1], 'INFO', 'replication').catch(() => '')) as string;
        if (/master_link_status:up/.test(info)) return { master: master[1], replica: replica[1] };
      }
      break;
    }
    await sleep(200);
  }
  throw new Error(`slot ${slot} has no synced replica after 30 s`);
}

/** Every node agrees the cluster serves every slot. */
async function clusterOk() {
  for (let i = 0; i < 150; i++) {
    const infos = await Promise.all(nodes.map((n) => ask(n.port, 'CLUSTER', 'INFO').catch(() => '')));
    if (infos.every((info) => /cluster_state:ok/.test(String(info)))) return;
    await sleep(200);
  }
  throw new Error('the cluster is not ok after 30 s');
}

function killNode(port: number) {
  process.kill(Number(readFileSync(path.join(dir, `redis-${port}.pid`), 'utf8')), 'SIGKILL');
}

/** Start a killed node again (it rejoins with its identity, as a replica) and wait for the cluster to be whole. */
async function restartNode(port: number, slot: number) {
  await run(script, ['restart', dir, String(port)], { env: clusterEnv });
  await clusterOk();
  await shardOf(slot);
}

/**
 * A participant of the room watching it through one socket at a time, the project's client: when an
 * instance dies, a new socket on the other with the seq and roll it last saw (as a load balancer
 * sending it elsewhere). Records when each roll first arrived, and every arrival.
 */
class Watcher {
  readonly sockets: RoomSocket[] = [];
  readonly arrivals: string[] = [];
  readonly firstAt = new Map<string, number>();
  /** The seq of every room event received, in arrival order (across its sockets). */
  readonly seqs: number[] = [];
  replayRequired = 0;
  /** The seq of its first welcome: the room's log from there holds every roll made since. */
  startSeq: number | null = null;
  private lastUuid: string | null = null;

  constructor(
    readonly key: string,
    readonly slug: string,
  ) {}

  async open(instance: ClusterInstance): Promise<void> {
    const previous = this.sockets.at(-1);
    previous?.close();
    const socket = connectRoom(instance.url, this.key, this.slug, {
      since: this.lastUuid,
      sinceSeq: previous ? lastSeq(previous) : null,
      socket: { reconnectionDelay: 100, reconnectionDelayMax: 500, transports: ['websocket'] },
    });
    this.sockets.push(socket);
    socket.on('RollCreateEvent', (payload: { data: { uuid: string } }) => {
      const { uuid } = payload.data;
      this.arrivals.push(uuid);
      this.lastUuid = uuid;
      if (!this.firstAt.has(uuid)) this.firstAt.set(uuid, Date.now());
    });
    socket.on('ReplayRequiredEvent', () => this.replayRequired++);
    socket.onAny((event: string, payload?: { seq?: unknown }) => {
      if (event.startsWith('Roll') && typeof payload?.seq === 'number') this.seqs.push(payload.seq);
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no RoomUpdateEvent within 15 s')), 15_000);
      socket.once('RoomUpdateEvent', (payload: { seq?: number }) => {
        clearTimeout(timer);
        this.startSeq ??= payload.seq ?? null;
        resolve();
      });
    });
  }

  close() {
    for (const s of this.sockets) s.close();
  }
}

interface Answered {
  uuid: string;
  at: number;
}

/** `promise`, or a rejection after `ms` (a request the service never answers is a failure, not a hung test). */
function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms))),
  ]);
}

/** Rolls posted in a loop through `via()` until stopped: those answered 201, when. */
function rollLoop(key: string, slug: string, via: () => ClusterInstance) {
  const answered: Answered[] = [];
  const failures: string[] = [];
  let running = true;
  const done = (async () => {
    while (running) {
      const res = await within(
        10_000,
        via()
          .api.as(key)
          .post('/roll', { dice: [{ type: 'd6', theme: 'standard' }], room: slug }),
      ).catch((err: Error) => ({ status: 0, text: err.message, body: null }));
      if (res.status === 201) answered.push({ uuid: res.body.data.uuid, at: Date.now() });
      else failures.push(`${res.status} ${String(res.text).slice(0, 120)}`);
      await sleep(60);
    }
  })();
  return {
    answered,
    failures,
    async stop() {
      running = false;
      await done;
    },
  };
}

/** A room, its participants, and a watcher for each, spread over both instances. */
async function liveRoom(name: string) {
  const [A, B] = instances as [ClusterInstance, ClusterInstance];
  const owner = (await A.api.post('/user')).body.data as string;
  const slug = (await A.api.as(owner).post('/room', { name })).body.data.slug as string;
  const watchers: Watcher[] = [];
  for (let i = 0; i < SOCKETS; i++) {
    const key = i === 0 ? owner : ((await A.api.post('/user')).body.data as string);
    if (i > 0) await B.api.as(key).post(`/room/${slug}/participant`, {});
    watchers.push(new Watcher(key, slug));
  }
  await Promise.all(watchers.map((w, i) => w.open(instances[i % 2]!)));
  return { owner, slug, watchers, slot: calculateSlot(`dice#/room/${slug}#`) };
}

/**
 * Wait until every watcher has every roll answered (or 20 s), then count per watcher what was lost
 * and what came twice, and log the figures: the slowest delivery after its 201 and how many came
 * later than a second (live or by replay).
 */
async function settle(t: ExecutionContext, watchers: Watcher[], answered: Answered[], faultAt: number) {
  const wanted = answered.map((a) => a.uuid);
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline && !watchers.every((w) => wanted.every((u) => w.firstAt.has(u)))) await sleep(100);
  await sleep(300); // anything arriving twice, arrives now
  let late = 0;
  let slowest = 0;
  let lastAt = 0;
  for (const [i, w] of watchers.entries()) {
    const lost = wanted.filter((u) => !w.firstAt.has(u));
    const twice = w.arrivals.length - new Set(w.arrivals).size;
    t.deepEqual(lost, [], `watcher ${i}: ${lost.length} of ${wanted.length} rolls answered 201 never arrived`);
    t.is(twice, 0, `watcher ${i}: rolls that arrived twice`);
    t.true(
      w.seqs.every((seq, k) => k === 0 || seq > w.seqs[k - 1]!),
      `watcher ${i}: room events in the room's order (seq increasing)`,
    );
    for (const a of answered) {
      const at = w.firstAt.get(a.uuid);
      if (at === undefined) continue;
      slowest = Math.max(slowest, at - a.at);
      if (at - a.at > 1000) late++;
      lastAt = Math.max(lastAt, at);
    }
  }
  // The room's log holds every one of them: a socket replaying by since_seq alone (no since, so
  // nothing from the database) from before the first roll gets them all.
  const [first] = watchers;
  const live = instances.find((i) => i.child.exitCode === null && i.child.signalCode === null)!;
  const fromLog = connectRoom(live.url, first!.key, first!.slug, { sinceSeq: first!.startSeq, socket: { reconnection: false, transports: ['websocket'] } });
  const logged = new Set<string>();
  // What the socket heard besides rolls, named in the failure: a failure says which step failed.
  const heard: string[] = [];
  fromLog.on('RollCreateEvent', (payload: { data: { uuid: string } }) => logged.add(payload.data.uuid));
  fromLog.on('connect_error', (err: Error) => heard.push(`connect_error ${err.message}`));
  fromLog.on('disconnect', (reason: string) => heard.push(`disconnect ${reason}`));
  fromLog.on('ReplayRequiredEvent', () => heard.push('ReplayRequiredEvent'));
  fromLog.on('RoomUpdateEvent', (payload: { seq?: number }) => heard.push(`RoomUpdateEvent seq ${payload.seq}`));
  for (let i = 0; i < 100 && !wanted.every((u) => logged.has(u)); i++) await sleep(100);
  fromLog.close();
  const missing = wanted.filter((u) => !logged.has(u));
  // When the log lacks rolls, what the Redis nodes said about failovers and syncs (the log keys'
  // fate is decided there: a manual failover should lose nothing).
  if (missing.length) {
    t.log(redisFailoverLines().join('\n'));
    t.log(await roomLogState(first!.slug, first!.startSeq));
    t.log(instanceWarnings().join('\n') || 'no instance logged a warning about Redis or the room log');
  }
  t.deepEqual(
    missing,
    [],
    `every roll answered 201 is in the room's log (replayed from seq ${first!.startSeq}; the socket heard: ${heard.join(', ') || 'nothing else'})`,
  );
  const replays = watchers.reduce((n, w) => n + w.replayRequired, 0);
  t.log(
    `${answered.length} rolls answered 201 x ${watchers.length} sockets: slowest delivery ${slowest} ms after its 201, ${late} deliveries later than 1 s; ${replays} ReplayRequiredEvent; last delivery ${lastAt - faultAt} ms after the fault`,
  );
}

/**
 * The room's counter and log as the master of their slot holds them now: whether the keys were lost
 * (no counter, or one made after the first welcome), the floor moved, or the log is whole and the
 * replay's read failed on the instance.
 */
async function roomLogState(slug: string, startSeq: number | null): Promise<string> {
  // The adapter's key: REDIS_PREFIX (default `dice:`) without its colon (src/server.ts).
  const keys = sequenceKeys('dice', roomNamespace(slug));
  const { master } = await shardOf(calculateSlot(keys.seq)).catch(() => ({ master: nodes[0]!.port }));
  const counter = await ask(master, 'HGETALL', keys.seq).catch((err: Error) => err.message);
  const scores = (await ask(master, 'ZRANGE', keys.log, '0', '-1', 'WITHSCORES').catch(() => [])) as string[];
  const seqs = scores.filter((_, i) => i % 2 === 1);
  return `room log on ${master}: counter ${JSON.stringify(counter)}; ${seqs.length} entries, seq ${seqs[0] ?? '-'} to ${seqs.at(-1) ?? '-'}; first welcome's seq ${startSeq}`;
}

/** What the instances logged about Redis, the room's seq and its log (warnings and errors). */
function instanceWarnings(): string[] {
  return instances.flatMap((instance, i) =>
    instance
      .output()
      .split('\n')
      .filter((line) => /"level":(40|50)|redis|room log|seq/i.test(line) && !/"level":30/.test(line))
      .slice(-30)
      .map((line) => `instance ${i}: ${line.slice(0, 300)}`),
  );
}

/** The Redis nodes' log lines about failovers, elections, failure reports and syncs. */
function redisFailoverLines(): string[] {
  return nodes.flatMap((node) => {
    let text: string;
    try {
      text = readFileSync(path.join(dir, `redis-${node.port}.log`), 'utf8');
    } catch {
      return [`${node.port}: no log`];
    }
    return text
      .split('\n')
      .filter((line) => /failover|election|FAIL|sync|offset/i.test(line) && !/overcommit/.test(line))
      .map((line) => `${node.port}: ${line.slice(0, 200)}`);
  });
}

function logFailures(t: ExecutionContext, failures: string[]) {
  if (failures.length) t.log(`${failures.length} rolls not answered 201 (not counted): ${[...new Set(failures)].slice(0, 3).join(' | ')}`);
}

test.serial("the room's master fails over (CLUSTER FAILOVER) while rolls flow: every socket gets every roll answered 201, once", async (t) => {
  const started = Date.now();
  const { owner, slug, watchers, slot } = await liveRoom('Failover');
  t.teardown(() => watchers.forEach((w) => w.close()));
  const { master, replica } = await shardOf(slot);
  let n = 0;
  const loop = rollLoop(owner, slug, () => instances[n++ % 2]!);
  await sleep(800);
  const faultAt = Date.now();
  t.is(await ask(replica, 'CLUSTER', 'FAILOVER'), 'OK');
  for (let i = 0; i < 100 && ((await role(replica)) !== 'master' || (await role(master)) !== 'slave'); i++) await sleep(50);
  t.is(await role(replica), 'master', 'the replica took over');
  await sleep(2500);
  await loop.stop();
  logFailures(t, loop.failures);
  await settle(t, watchers, loop.answered, faultAt);
  t.log(`test ran ${Date.now() - started} ms`);
});

test.serial("the room's master is killed (SIGKILL) while rolls flow: its replica takes over, every socket gets every roll answered 201, once", async (t) => {
  const started = Date.now();
  const { owner, slug, watchers, slot } = await liveRoom('Master killed');
  t.teardown(() => watchers.forEach((w) => w.close()));
  const { master, replica } = await shardOf(slot);
  let n = 0;
  const loop = rollLoop(owner, slug, () => instances[n++ % 2]!);
  await sleep(800);
  const faultAt = Date.now();
  killNode(master);
  for (let i = 0; i < 200 && (await role(replica)) !== 'master'; i++) await sleep(50);
  t.is(await role(replica), 'master', 'the replica took over');
  t.log(`replica promoted ${Date.now() - faultAt} ms after the kill`);
  await sleep(2500);
  await loop.stop();
  logFailures(t, loop.failures);
  await settle(t, watchers, loop.answered, faultAt);
  // The dead master is out of every client's map: readiness judges the cluster, which serves every
  // slot again, so every probe of both instances says ready (one probe in three failed when it
  // asked a random node, the dead one among them).
  const probes = await Promise.all(instances.flatMap((i) => Array.from({ length: 10 }, () => fetch(`${i.url}/readyz`).then((r) => r.status))));
  t.deepEqual(
    probes.filter((status) => status !== 200),
    [],
    'every /readyz probe after the failover answers 200',
  );
  await restartNode(master, slot);
  t.log(`test ran ${Date.now() - started} ms`);
});

test.serial("the room's replica is killed (SIGKILL) while rolls flow: every socket gets every roll answered 201, once", async (t) => {
  const started = Date.now();
  const { owner, slug, watchers, slot } = await liveRoom('Replica killed');
  t.teardown(() => watchers.forEach((w) => w.close()));
  const { replica } = await shardOf(slot);
  let n = 0;
  const loop = rollLoop(owner, slug, () => instances[n++ % 2]!);
  await sleep(800);
  const faultAt = Date.now();
  killNode(replica);
  await sleep(3000);
  await loop.stop();
  t.deepEqual(loop.failures, [], 'every roll answered 201 (the master stays)');
  await settle(t, watchers, loop.answered, faultAt);
  await restartNode(replica, slot);
  t.log(`test ran ${Date.now() - started} ms`);
});

test.serial('an instance killed (SIGKILL) right after answering a roll 201: the roll reaches every socket, once', async (t) => {
  const started = Date.now();
  const { owner, slug, watchers } = await liveRoom('Instance killed');
  t.teardown(() => watchers.forEach((w) => w.close()));
  const [A, B] = instances as [ClusterInstance, ClusterInstance];
  const loop = rollLoop(owner, slug, () => B);
  await sleep(500);
  // Several at once through A, killed as soon as the first is answered: those answered must arrive.
  const victims = await withDeadline(
    new Promise<Answered[]>((resolve) => {
      const answered: Answered[] = [];
      for (let i = 0; i < 4; i++) {
        void A.api
          .as(owner)
          .post('/roll', { dice: [{ type: 'd20', theme: 'standard' }], room: slug })
          .then(
            (res) => {
              if (res.status !== 201) return;
              answered.push({ uuid: res.body.data.uuid, at: Date.now() });
              A.child.kill('SIGKILL');
              resolve(answered);
            },
            () => undefined,
          );
      }
    }),
    15_000,
    'one of the rolls posted through A to be answered 201',
  );
  const faultAt = Date.now();
  await A.exited;
  // A's sockets go to B (a load balancer would), with what they last saw.
  await Promise.all(watchers.filter((_, i) => i % 2 === 0).map((w) => w.open(B)));
  await sleep(2500);
  await loop.stop();
  logFailures(t, loop.failures);
  await settle(
    t,
    watchers,
    [...loop.answered, ...victims].sort((a, b) => a.at - b.at),
    faultAt,
  );
  // Every announcement made, by B for A's rolls too: the outbox is empty once they are out.
  const pg = new pgClient({ connectionString: env.DATABASE_URL });
  await pg.connect();
  try {
    let left = -1;
    for (let i = 0; i < 50 && left !== 0; i++) {
      left = Number((await pg.query('SELECT count(*) AS n FROM outbox')).rows[0].n);
      if (left) await sleep(200);
    }
    t.is(left, 0, 'the outbox is empty once every roll is published');
  } finally {
    await pg.end();
  }
  t.log(`test ran ${Date.now() - started} ms`);
  // The file's last test: A stays dead (a test after it would start another instance first).
});
