import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../logger';

/**
 * Who is connected to which room, counted per user across all their sockets (tabs) and, with Redis,
 * across all instances: a participant connects once and disconnects when its last socket goes.
 */
export interface PresenceStore {
  /** One more socket of `userId` in the room; true when it is the user's first anywhere. */
  join(slug: string, userId: number): Promise<boolean>;
  /** One socket fewer; true when it was the user's last anywhere. */
  leave(slug: string, userId: number): Promise<boolean>;
  /** Users with at least one socket in the room, on any instance. */
  users(slug: string): Promise<number[]>;
  /**
   * Start housekeeping. `onGone` hears of users whose last socket went without a `leave` (their
   * instance died). Answers a stop function that also withdraws this instance's own counts.
   */
  start(onGone: (slug: string, userId: number) => void): () => Promise<void>;
}

/** The in-process shape (no Redis): one instance, so process memory is the truth. */
export class MemoryPresenceStore implements PresenceStore {
  private rooms = new Map<string, Map<number, number>>();

  async join(slug: string, userId: number) {
    let users = this.rooms.get(slug);
    if (!users) this.rooms.set(slug, (users = new Map()));
    const n = (users.get(userId) ?? 0) + 1;
    users.set(userId, n);
    return n === 1;
  }

  async leave(slug: string, userId: number) {
    const users = this.rooms.get(slug);
    const n = (users?.get(userId) ?? 0) - 1;
    if (!users || n < 0) return false;
    if (n === 0) {
      users.delete(userId);
      if (users.size === 0) this.rooms.delete(slug);
      return true;
    }
    users.set(userId, n);
    return false;
  }

  async users(slug: string) {
    return [...(this.rooms.get(slug)?.keys() ?? [])];
  }

  start() {
    return async () => {
      this.rooms.clear();
    };
  }
}

// Per room a hash userId -> sockets (all instances); per instance a hash "slug userId" -> sockets
// (what this instance contributed), so the counts of an instance that died can be taken back.
const JOIN = `
redis.call('SADD', KEYS[3], ARGV[3])
redis.call('HINCRBY', KEYS[2], ARGV[2], 1)
return redis.call('HINCRBY', KEYS[1], ARGV[1], 1)`;

// A leave whose count this instance no longer holds (it was reaped meanwhile) changes nothing.
const LEAVE = `
local c = tonumber(redis.call('HGET', KEYS[2], ARGV[2]) or '0')
if c <= 0 then return -1 end
if c == 1 then redis.call('HDEL', KEYS[2], ARGV[2]) else redis.call('HINCRBY', KEYS[2], ARGV[2], -1) end
local n = redis.call('HINCRBY', KEYS[1], ARGV[1], -1)
if n <= 0 then redis.call('HDEL', KEYS[1], ARGV[1]) return 0 end
return n`;

// Take back everything an instance contributed; answers the "slug userId" pairs that went to zero.
// The keys it touches are derived inside the script: fine on one Redis, not on Redis Cluster.
const REAP = `
local inst = ARGV[2] .. 'instance:' .. ARGV[1]
local entries = redis.call('HGETALL', inst)
local gone = {}
for i = 1, #entries, 2 do
  local field = entries[i]
  local count = tonumber(entries[i + 1])
  local sp = string.find(field, ' ', 1, true)
  local room = ARGV[2] .. 'room:' .. string.sub(field, 1, sp - 1)
  local user = string.sub(field, sp + 1)
  local n = redis.call('HINCRBY', room, user, -count)
  if n <= 0 then
    redis.call('HDEL', room, user)
    table.insert(gone, field)
  end
end
redis.call('DEL', inst)
redis.call('SREM', ARGV[2] .. 'instances', ARGV[1])
return gone`;

// Refresh this instance's heartbeat; answers 0 when it had been reaped (its counts are gone).
const HEARTBEAT = `
local known = redis.call('SISMEMBER', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], '1', 'PX', ARGV[2])
return known`;

export interface RedisPresenceOptions {
  /** Start of every key (REDIS_PREFIX + "presence:" in the server); default "dice:presence:". */
  prefix?: string;
  /** How often an instance proves it is alive and looks for dead ones. */
  heartbeatMs?: number;
  /** An instance silent this long is dead: its sockets are counted out. */
  ttlMs?: number;
}

/** The production shape: counts live in Redis; a crashed instance's counts are reaped by the others. */
export class RedisPresenceStore implements PresenceStore {
  readonly instanceId = randomUUID();
  private readonly prefix: string;
  private readonly heartbeatMs: number;
  private readonly ttlMs: number;
  /** This instance's own contributions, to put them back if it was reaped while alive. */
  private readonly mine = new Map<string, number>();

  constructor(
    private readonly redis: Redis,
    private readonly logger: Logger,
    options: RedisPresenceOptions = {},
  ) {
    this.prefix = options.prefix ?? 'dice:presence:';
    this.heartbeatMs = options.heartbeatMs ?? 10_000;
    this.ttlMs = options.ttlMs ?? 30_000;
  }

  private keys(slug: string) {
    return [`${this.prefix}room:${slug}`, `${this.prefix}instance:${this.instanceId}`, `${this.prefix}instances`];
  }

  async join(slug: string, userId: number) {
    const field = `${slug} ${userId}`;
    this.mine.set(field, (this.mine.get(field) ?? 0) + 1);
    const n = (await this.redis.eval(JOIN, 3, ...this.keys(slug), userId, field, this.instanceId)) as number;
    return n === 1;
  }

  async leave(slug: string, userId: number) {
    const field = `${slug} ${userId}`;
    const mine = (this.mine.get(field) ?? 0) - 1;
    if (mine <= 0) this.mine.delete(field);
    else this.mine.set(field, mine);
    const n = (await this.redis.eval(LEAVE, 2, ...this.keys(slug).slice(0, 2), userId, field)) as number;
    return n === 0;
  }

  async users(slug: string) {
    const ids = await this.redis.hkeys(`${this.prefix}room:${slug}`);
    return ids.map(Number);
  }

  /** Take back an instance's counts; answers who is gone because of it. */
  async reap(instanceId: string): Promise<Array<{ slug: string; userId: number }>> {
    const gone = (await this.redis.eval(REAP, 0, instanceId, this.prefix)) as string[];
    return gone.map((field) => {
      const [slug, user] = field.split(' ');
      return { slug: slug!, userId: Number(user) };
    });
  }

  /** One housekeeping round: heartbeat, restore own counts if reaped, reap the dead. */
  async tick(onGone: (slug: string, userId: number) => void) {
    const known = (await this.redis.eval(HEARTBEAT, 2, `${this.prefix}instances`, `${this.prefix}alive:${this.instanceId}`, this.instanceId, this.ttlMs)) as number;
    if (known === 0 && this.mine.size > 0) {
      // We were taken for dead (Redis unreachable for a while): count our sockets in again.
      const entries = [...this.mine];
      this.mine.clear();
      for (const [field, count] of entries) {
        const [slug, user] = field.split(' ');
        for (let i = 0; i < count; i++) await this.join(slug!, Number(user));
      }
      this.logger.info({ instance: this.instanceId, entries: entries.length }, 'presence restored after this instance was reaped');
    }
    const instances = await this.redis.smembers(`${this.prefix}instances`);
    for (const id of instances) {
      if (id === this.instanceId) continue;
      if (await this.redis.exists(`${this.prefix}alive:${id}`)) continue;
      const gone = await this.reap(id);
      this.logger.info({ instance: id, gone: gone.length }, 'reaped the presence of a dead instance');
      for (const g of gone) onGone(g.slug, g.userId);
    }
  }

  start(onGone: (slug: string, userId: number) => void) {
    const round = () =>
      this.tick(onGone).catch((err: Error) => this.logger.warn({ err: err.message }, 'presence housekeeping failed'));
    void round();
    const timer = setInterval(round, this.heartbeatMs);
    timer.unref();
    // Back from an outage (Redis restarted empty, perhaps): restore our counts at once, not at the next beat.
    this.redis.on('ready', round);
    return async () => {
      clearInterval(timer);
      this.redis.off('ready', round);
      try {
        const gone = await this.reap(this.instanceId);
        for (const g of gone) onGone(g.slug, g.userId);
        await this.redis.del(`${this.prefix}alive:${this.instanceId}`);
      } catch (err) {
        this.logger.warn({ err: (err as Error).message }, 'could not withdraw presence on shutdown');
      }
      this.mine.clear();
    };
  }
}
