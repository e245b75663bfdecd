/**
 * What Redis spends, for bench:rooms: its own redis-server (so INFO commandstats counts only the
 * benchmark's instances, not the tests other people run on the shared one), INFO commandstats and
 * INFO cpu read before and after a phase, and the pub/sub subscriptions it holds.
 */
import type { ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort, killRedis, startRedis } from '../../../test/helpers/redisServer';

export interface BenchRedis {
  url: string;
  client: Redis;
  version: string;
  stop(): Promise<void>;
}

/**
 * A redis-server of the benchmark's own on a free port (no persistence), or the one at `url` when
 * given (then commandstats also count whatever else uses it).
 */
export async function startBenchRedis(url?: string): Promise<BenchRedis> {
  let child: ChildProcess | null = null;
  if (!url) {
    const port = await freePort();
    child = await startRedis(port);
    url = `redis://127.0.0.1:${port}`;
  }
  const client = new Redis(url, { maxRetriesPerRequest: 1, connectionName: 'bench-rooms-stats' });
  const server = parseInfo(await client.info('server'));
  return {
    url,
    client,
    version: server.get('redis_version') ?? '?',
    async stop() {
      client.disconnect();
      if (child) await killRedis(child);
    },
  };
}

/** INFO's `key:value` lines as a map. */
export function parseInfo(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (at > 0 && !line.startsWith('#')) out.set(line.slice(0, at), line.slice(at + 1).trim());
  }
  return out;
}

export interface CommandStat {
  calls: number;
  usec: number;
}

/** `cmdstat_publish:calls=3,usec=12,...` -> publish -> {calls, usec}. */
export function parseCommandStats(text: string): Map<string, CommandStat> {
  const out = new Map<string, CommandStat>();
  for (const [key, value] of parseInfo(text)) {
    if (!key.startsWith('cmdstat_')) continue;
    const fields = new Map(value.split(',').map((kv) => kv.split('=') as [string, string]));
    out.set(key.slice('cmdstat_'.length), { calls: Number(fields.get('calls') ?? 0), usec: Number(fields.get('usec') ?? 0) });
  }
  return out;
}

/** The benchmark's own questions to Redis: left out of what a phase is charged. */
const ADMIN = /^(info|config|pubsub|client|ping|hello|command|select|memory)(\||$)/;

/**
 * Commands that run others inside them: EXEC's usec includes those of the commands it ran, and a
 * script's its redis.call()s, which commandstats also count under their own names (measured on Redis
 * 7.0: MULTI + 200 PUBLISH + EXEC gave publish 38 µs and exec 104 µs). Summing every line counts
 * the inner commands twice; leaving the containers out would drop the scripts' own (Lua) time, which
 * is larger. The total keeps them (an upper bound) and the report lists them apart.
 */
export const CONTAINERS = /^(exec|eval|evalsha|eval_ro|evalsha_ro|fcall|fcall_ro)$/;

export interface RedisReading {
  at: number;
  /** used_cpu_sys + used_cpu_user of redis-server, seconds. */
  cpu: number;
  commands: Map<string, CommandStat>;
  usedMemory: number;
}

/** CONFIG RESETSTAT (a phase starts clean), then a first reading. */
export async function resetAndRead(redis: Redis): Promise<RedisReading> {
  await redis.config('RESETSTAT');
  return read(redis);
}

export async function read(redis: Redis): Promise<RedisReading> {
  const [cpu, commands, memory] = await Promise.all([redis.info('cpu'), redis.info('commandstats'), redis.info('memory')]);
  const c = parseInfo(cpu);
  return {
    at: Date.now(),
    cpu: Number(c.get('used_cpu_sys') ?? 0) + Number(c.get('used_cpu_user') ?? 0),
    commands: parseCommandStats(commands),
    usedMemory: Number(parseInfo(memory).get('used_memory') ?? 0),
  };
}

export interface RedisSpend {
  seconds: number;
  /** Redis CPU (INFO cpu) over the window, microseconds. */
  cpuUs: number;
  /** Per command (admin commands left out), what ran in the window. */
  commands: Map<string, CommandStat>;
  /**
   * usec of every command, containers included: an upper bound, since a command run inside EXEC or a
   * script is counted twice (about 9 µs per roll here: the rate limit script's INCR and PTTL).
   */
  commandUs: number;
  /** usec of EXEC and scripts, their inner commands included (which commandUs already has): listed apart. */
  containerUs: number;
  /** PUBLISH + SPUBLISH. */
  publish: CommandStat;
}

export function spent(before: RedisReading, after: RedisReading): RedisSpend {
  const commands = new Map<string, CommandStat>();
  for (const [name, a] of after.commands) {
    if (ADMIN.test(name)) continue;
    const b = before.commands.get(name) ?? { calls: 0, usec: 0 };
    const d = { calls: a.calls - b.calls, usec: a.usec - b.usec };
    if (d.calls > 0) commands.set(name, d);
  }
  let commandUs = 0;
  let containerUs = 0;
  const publish = { calls: 0, usec: 0 };
  for (const [name, s] of commands) {
    commandUs += s.usec;
    if (CONTAINERS.test(name)) containerUs += s.usec;
    if (name === 'publish' || name === 'spublish') {
      publish.calls += s.calls;
      publish.usec += s.usec;
    }
  }
  return { seconds: (after.at - before.at) / 1000, cpuUs: (after.cpu - before.cpu) * 1e6, commands, commandUs, containerUs, publish };
}

export interface Subscriptions {
  /** PSUBSCRIBE patterns (the classic adapter: a few per namespace per instance). */
  patterns: number;
  /** SUBSCRIBE channels. */
  channels: number;
  /** SSUBSCRIBE shard channels (the sharded adapter). */
  shardChannels: number;
  /** Per connection with any subscription: name, psub, sub, ssub (CLIENT LIST). */
  clients: Array<{ name: string; psub: number; sub: number; ssub: number }>;
}

/** What Redis holds for pub/sub now: patterns, channels and shard channels, and who holds them. */
export async function subscriptions(redis: Redis, major: number): Promise<Subscriptions> {
  const patterns = Number(await redis.call('PUBSUB', 'NUMPAT'));
  const channels = ((await redis.call('PUBSUB', 'CHANNELS')) as string[]).length;
  const shardChannels = major >= 7 ? ((await redis.call('PUBSUB', 'SHARDCHANNELS')) as string[]).length : 0;
  const list = (await redis.call('CLIENT', 'LIST')) as string;
  const clients = list
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const f = new Map(line.split(' ').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)] as [string, string]));
      return { name: f.get('name') ?? '', psub: Number(f.get('psub') ?? 0), sub: Number(f.get('sub') ?? 0), ssub: Number(f.get('ssub') ?? 0) };
    })
    .filter((c) => c.psub + c.sub + c.ssub > 0);
  return { patterns, channels, shardChannels, clients };
}

/** "classic (3,004 patterns)" / "sharded (3,000 shard channels)": what the instances really run. */
export function fabricOf(s: Subscriptions): string {
  if (s.shardChannels > 0 && s.patterns === 0) return 'sharded';
  if (s.patterns > 0 && s.shardChannels === 0) return 'classic';
  if (s.patterns > 0 && s.shardChannels > 0) return 'mixed';
  return 'none';
}

/**
 * Wait until the instances' own traffic has died down: at most `maxCalls` commands (admin ones left
 * out) in each of `windows` windows of `windowMs` in a row, or `timeoutMs`. 3,000 sockets arriving or
 * leaving keep Redis busy (presence scripts, announcements, unsubscriptions) for a while after the
 * last socket is in or out, in bursts when the instances are short of CPU; a phase that starts before
 * then charges that work to its idle window or its rolls. Answers the time waited.
 */
export async function waitQuiet(redis: Redis, { windowMs = 1000, windows = 3, maxCalls = 5, timeoutMs = 90_000 } = {}): Promise<number> {
  const start = Date.now();
  const calls = async () => {
    let n = 0;
    for (const [name, s] of parseCommandStats(await redis.info('commandstats'))) if (!ADMIN.test(name)) n += s.calls;
    return n;
  };
  let last = await calls();
  let quiet = 0;
  while (quiet < windows && Date.now() - start < timeoutMs) {
    await new Promise((r) => setTimeout(r, windowMs));
    const now = await calls();
    quiet = now - last <= maxCalls ? quiet + 1 : 0;
    last = now;
  }
  return Date.now() - start;
}
