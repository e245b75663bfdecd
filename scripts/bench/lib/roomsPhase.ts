/**
 * One measured phase of bench:rooms: with some number of live rooms held by two instances, what
 * Redis spends when nothing happens (idle window), then what it spends while rolls are posted at a
 * steady rate into one room through instance A, and how those rolls reach the one socket of that
 * room, on instance B: latency from the POST, lost, duplicated.
 */
import type { Redis } from 'ioredis';
import { request } from '../../../test/helpers/http';
import { settle, steady } from './delivery';
import { loadLine, sleep, type ChildHandle } from './processes';
import { read, resetAndRead, spent, subscriptions, fabricOf, waitQuiet, type RedisSpend, type Subscriptions } from './redisStats';
import type { Listener } from './sockets';
import { summarize, type Summary } from './stats';

export interface Memory {
  rss: number;
  heapUsed: number;
  sockets: number;
  namespaces: number;
}

export interface PhaseOptions {
  adapter: string;
  rooms: number;
  redis: Redis;
  redisMajor: number;
  instances: [ChildHandle, ChildHandle];
  /** Where the rolls are posted (instance A) and by whom. */
  rollUrl: string;
  rollerKey: string;
  slug: string;
  /** The room's only socket, on instance B. */
  listener: Listener;
  rolls: number;
  rate: number;
  idleSeconds: number;
  maxSettleMs: number;
}

export interface PhaseResult {
  adapter: string;
  rooms: number;
  /** What Redis shows the instances subscribed to (classic: patterns; sharded: shard channels). */
  fabric: string;
  subs: Subscriptions;
  memory: [Memory, Memory];
  redisMemory: number;
  idle: RedisSpend;
  busy: RedisSpend;
  posted: number;
  failures: string[];
  latency: Summary;
  lost: number;
  duplicated: number;
  postedMs: number;
  load: string;
  /** How long the phase waited for the instances' Redis traffic to die down before it started, ms. */
  quietAfterMs: number;
}

/** Memory after full collections, twice a second apart, the lower heap kept (as bench:sockets). */
export async function settledMemory(child: ChildHandle): Promise<Memory> {
  await sleep(1000);
  const first = await child.ask<Memory>({ cmd: 'memory' });
  await sleep(500);
  const second = await child.ask<Memory>({ cmd: 'memory' });
  return second.heapUsed < first.heapUsed ? second : first;
}

export async function measurePhase(o: PhaseOptions): Promise<PhaseResult> {
  const quietAfterMs = await waitQuiet(o.redis);
  const load = loadLine();
  const subs = await subscriptions(o.redis, o.redisMajor);
  const redisMemory = (await read(o.redis)).usedMemory;

  // Idle: what the live rooms cost Redis with no event (heartbeats, revalidation), to net it out.
  const idleStart = await resetAndRead(o.redis);
  await sleep(o.idleSeconds * 1000);
  const idle = spent(idleStart, await read(o.redis));

  const sentAt = new Map<string, number>();
  const arrivals: Array<[string, number]> = [];
  const failures: string[] = [];
  const onRoll = (p: { data: { uuid: string } }) => arrivals.push([p.data.uuid, Date.now()]);
  o.listener.socket.on('RollCreateEvent', onRoll);
  const body = {
    dice: [
      { type: 'd6', theme: 'standard' },
      { type: 'd20', theme: 'standard' },
    ],
    room: o.slug,
  };
  const busyStart = await resetAndRead(o.redis);
  const postStart = Date.now();
  await steady(o.rolls, o.rate, async () => {
    const t = Date.now();
    try {
      const res = await request(`${o.rollUrl}/api/1.0/roll`, 'POST', { key: o.rollerKey, body });
      if (res.status === 201) sentAt.set(res.body.data.uuid, t);
      else failures.push(`${res.status} ${res.text.slice(0, 100)}`);
    } catch (err) {
      failures.push((err as Error).message);
    }
  });
  const postedMs = Date.now() - postStart;
  // Nothing arrived for QUIET_MS (what is missing then is lost; a late duplicate still counts).
  await settle(() => arrivals.length, o.maxSettleMs);
  const busy = spent(busyStart, await read(o.redis));
  o.listener.socket.off('RollCreateEvent', onRoll);
  // After the rolls, so that every phase's reading comes from an instance that has served some (code
  // compiled, pools and caches filled): read right after start-up, the first 10-room phase's rss was
  // sometimes tens of MiB above the 3,000-room phase's.
  const memory = (await Promise.all(o.instances.map(settledMemory))) as [Memory, Memory];

  const seen = new Map<string, number>();
  const latencies: number[] = [];
  for (const [uuid, at] of arrivals) {
    seen.set(uuid, (seen.get(uuid) ?? 0) + 1);
    const t = sentAt.get(uuid);
    if (t !== undefined && seen.get(uuid) === 1) latencies.push(at - t);
  }
  let lost = 0;
  let duplicated = 0;
  for (const uuid of sentAt.keys()) {
    const n = seen.get(uuid) ?? 0;
    if (n === 0) lost++;
    if (n > 1) duplicated += n - 1;
  }
  return {
    adapter: o.adapter,
    rooms: o.rooms,
    fabric: fabricOf(subs),
    subs,
    memory,
    redisMemory,
    idle,
    busy,
    posted: sentAt.size,
    failures,
    latency: summarize(latencies),
    lost,
    duplicated,
    postedMs,
    load,
    quietAfterMs,
  };
}

/** Redis figures of a phase per roll, the idle rate netted out (the window ran longer than the posting). */
export function perRoll(p: PhaseResult) {
  const n = Math.max(1, p.posted);
  const idleRate = (x: number) => (p.idle.seconds > 0 ? (x / p.idle.seconds) * p.busy.seconds : 0);
  return {
    /** Redis CPU (INFO cpu) per roll, microseconds, net of the idle rate. */
    cpuUs: (p.busy.cpuUs - idleRate(p.idle.cpuUs)) / n,
    /** Command time (INFO commandstats, every command; inner ones twice) per roll, net of the idle commands. */
    commandUs: (p.busy.commandUs - idleRate(p.idle.commandUs)) / n,
    /** PUBLISH + SPUBLISH per roll, and the time of one. */
    publishes: p.busy.publish.calls / n,
    usPerPublish: p.busy.publish.calls ? p.busy.publish.usec / p.busy.publish.calls : Number.NaN,
    /** What Redis spends per second on these live rooms with nothing happening, microseconds. */
    idleCpuUsPerS: p.idle.seconds > 0 ? p.idle.cpuUs / p.idle.seconds : Number.NaN,
  };
}
