import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../../lib/redis';
import type { Logger } from '../../logger';

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
    if (!users) this.rooms.set(slug, (users = new Map<number, number>()));
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

// Key layout (cluster-safe: every script below touches keys of one hash slot, named by the part in
// braces; docs/realtime.md "Key layout"):
// - `{P room:SLUG}`: hash userId -> sockets in the room, all instances together;
// - `{P room:SLUG}:instance:ID`: hash userId -> sockets instance ID contributed to that room, so the
//   counts of an instance that died can be taken back, room by room;
// - `{P instances}`: set of live instance ids; `{P instances}:alive:ID`: an instance's heartbeat;
//   `{P instances}:rooms:ID`: set of the slugs instance ID contributes to (what to reap).
// P is the prefix (REDIS_PREFIX + "presence:").

const JOIN = `
redis.call('HINCRBY', KEYS[2], ARGV[1], 1)
return redis.call('HINCRBY', KEYS[1], ARGV[1], 1)`;

// A leave whose count this instance no longer holds (it was reaped meanwhile) changes nothing.
const LEAVE = `
local c = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
if c <= 0 then return -1 end
if c == 1 then redis.call('HDEL', KEYS[2], ARGV[1]) else redis.call('HINCRBY', KEYS[2], ARGV[1], -1) end
local n = redis.call('HINCRBY', KEYS[1], ARGV[1], -1)
if n <= 0 then redis.call('HDEL', KEYS[1], ARGV[1]) return 0 end
return n`;

// Take back what one instance contributed to one room; answers the user ids that went to zero.
// Deleting the contribution makes it idempotent: two survivors reaping at once count it out once.
const REAP_ROOM = `
local entries = redis.call('HGETALL', KEYS[2])
local gone = {}
for i = 1, #entries, 2 do
  local user = entries[i]
  local n = redis.call('HINCRBY', KEYS[1], user, -tonumber(entries[i + 1]))
  if n <= 0 then
    redis.call('HDEL', KEYS[1], user)
    table.insert(gone, user)
  end
end
redis.call('DEL', KEYS[2])
return gone`;

// Refresh this instance's heartbeat; answers 0 when it had been reaped (its counts are gone).
const HEARTBEAT = `
local known = redis.call('SISMEMBER', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], '1', 'PX', ARGV[2])
return known`;

// Once every room of an instance is reaped: forget the instance and its room index.
const FORGET = `
redis.call('SREM', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[2])
return 0`;

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
  /** This instance's own contributions ("slug userId" -> sockets), to put them back if it was reaped while alive. */
  private readonly mine = new Map<string, number>();
  /** This instance's sockets per room: a room leaves the instance's index with its last. */
  private readonly mineByRoom = new Map<string, number>();
  /** Rooms this instance's index is known to hold (added once Redis took the SADD, so a failed one is tried again). */
  private readonly indexed = new Set<string>();

  constructor(
    private readonly redis: RedisClient,
    private readonly logger: Logger,
    options: RedisPresenceOptions = {},
  ) {
    this.prefix = options.prefix ?? 'dice:presence:';
    this.heartbeatMs = options.heartbeatMs ?? 10_000;
    this.ttlMs = options.ttlMs ?? 30_000;
  }

  /** A room's count of users, and what instance `instanceId` contributed to it: one slot. */
  roomKeys(slug: string, instanceId: string = this.instanceId): [string, string] {
    const room = `{${this.prefix}room:${slug}}`;
    return [room, `${room}:instance:${instanceId}`];
  }

  /** The instances set, an instance's heartbeat and its room index: one slot. */
  private instanceKeys(instanceId: string = this.instanceId) {
    const instances = `{${this.prefix}instances}`;
    return { instances, alive: `${instances}:alive:${instanceId}`, rooms: `${instances}:rooms:${instanceId}` };
  }

  async join(slug: string, userId: number) {
    const field = `${slug} ${userId}`;
    this.mine.set(field, (this.mine.get(field) ?? 0) + 1);
    this.mineByRoom.set(slug, (this.mineByRoom.get(slug) ?? 0) + 1);
    // Indexed before counted, and waited for (on a cluster the two live on different nodes): a
    // failure between them leaves an index entry with nothing to reap, never a count nobody reaps.
    if (!this.indexed.has(slug)) {
      await this.redis.sadd(this.instanceKeys().rooms, slug);
      this.indexed.add(slug);
    }
    const n = (await this.redis.eval(JOIN, 2, ...this.roomKeys(slug), userId)) as number;
    return n === 1;
  }

  async leave(slug: string, userId: number) {
    const field = `${slug} ${userId}`;
    const mine = (this.mine.get(field) ?? 0) - 1;
    if (mine <= 0) this.mine.delete(field);
    else this.mine.set(field, mine);
    const inRoom = (this.mineByRoom.get(slug) ?? 0) - 1;
    if (inRoom <= 0) this.mineByRoom.delete(slug);
    else this.mineByRoom.set(slug, inRoom);
    const n = (await this.redis.eval(LEAVE, 2, ...this.roomKeys(slug), userId)) as number;
    // Unindexed after the count, and only if no socket of this instance came into the room meanwhile
    // (a join from here on finds the room unindexed, and its SADD reaches the node after this SREM).
    if (!this.mineByRoom.has(slug) && this.indexed.delete(slug)) await this.redis.srem(this.instanceKeys().rooms, slug);
    return n === 0;
  }

  async users(slug: string) {
    const ids = await this.redis.hkeys(this.roomKeys(slug)[0]);
    return ids.map(Number);
  }

  /** Take back an instance's counts, room by room (one slot per script); answers who is gone because of it. */
  async reap(instanceId: string): Promise<Array<{ slug: string; userId: number }>> {
    const keys = this.instanceKeys(instanceId);
    const slugs = await this.redis.smembers(keys.rooms);
    const gone: Array<{ slug: string; userId: number }> = [];
    for (const slug of slugs) {
      const users = (await this.redis.eval(REAP_ROOM, 2, ...this.roomKeys(slug, instanceId))) as string[];
      for (const user of users) gone.push({ slug, userId: Number(user) });
    }
    // Last: a reap cut short (Redis away) is taken up again at the next round, from the index.
    await this.redis.eval(FORGET, 2, keys.instances, keys.rooms, instanceId);
    return gone;
  }

  /** One housekeeping round: heartbeat, restore own counts if reaped, reap the dead. */
  async tick(onGone: (slug: string, userId: number) => void) {
    const keys = this.instanceKeys();
    const known = (await this.redis.eval(HEARTBEAT, 2, keys.instances, keys.alive, this.instanceId, this.ttlMs)) as number;
    if (known === 0 && this.mine.size > 0) {
      // We were taken for dead (Redis unreachable for a while): count our sockets in again.
      const entries = [...this.mine];
      this.mine.clear();
      this.mineByRoom.clear();
      this.indexed.clear();
      for (const [field, count] of entries) {
        const [slug, user] = field.split(' ');
        for (let i = 0; i < count; i++) await this.join(slug!, Number(user));
      }
      this.logger.info({ instance: this.instanceId, entries: entries.length }, 'presence restored after this instance was reaped');
    }
    const instances = await this.redis.smembers(keys.instances);
    for (const id of instances) {
      if (id === this.instanceId) continue;
      if (await this.redis.exists(this.instanceKeys(id).alive)) continue;
      const gone = await this.reap(id);
      this.logger.info({ instance: id, gone: gone.length }, 'reaped the presence of a dead instance');
      for (const g of gone) onGone(g.slug, g.userId);
    }
  }

  start(onGone: (slug: string, userId: number) => void) {
    const round = (): void => {
      this.tick(onGone).catch((err: Error) => this.logger.warn({ err: err.message }, 'presence housekeeping failed'));
    };
    round();
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
        await this.redis.del(this.instanceKeys().alive);
      } catch (err) {
        this.logger.warn({ err: (err as Error).message }, 'could not withdraw presence on shutdown');
      }
      this.mine.clear();
      this.mineByRoom.clear();
      this.indexed.clear();
    };
  }
}
