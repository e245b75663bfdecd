/**
 * Per-room sequence numbers and the log a reconnecting socket replays from (docs/realtime.md,
 * "Reconnecting without losing rolls"). Every block of emits (the per-viewer emits of one event) gets
 * the next number of its namespace, assigned together with its publish; the blocks a reconnecting
 * client may have missed (roll events) are also written to a log, `seq -> what to replay`, capped at
 * REPLAY_LIMIT entries. The log covers every event after its `floor`: a client whose last seq is below
 * it (the log was trimmed, expired, or lost with Redis) cannot be replayed from it.
 *
 * Two shapes: MemorySequence (one process, no Redis) here, the Redis one in sequenceLogRedis.ts.
 */

/** What the log keeps of a block: enough to replay it, presented afresh for each viewer. */
export type ReplayEntry =
  | { event: 'RollCreateEvent' | 'RollUpdateEvent'; rollId: number }
  /**
   * A cleared table: each roll's uuid and who was told (null: the whole room), and when (`at`, ms since
   * the epoch): a participant who joined later was not in the room then (rolls/policy.ts toldOfClear).
   */
  | { event: 'RollDeleteEvent'; rolls: Array<{ uuid: string; audience: number[] | null }>; at?: number };

export interface LoggedEntry {
  seq: number;
  entry: ReplayEntry;
}

/** The log of one namespace after a client's seq: null when it does not cover that seq. */
export type LogRead = LoggedEntry[] | null;

/** At most this many entries per room: what a reconnecting client can be replayed (as `since` always did). */
export const REPLAY_LIMIT = 500;

/** How long a room's counter and log live after its last event (seconds); refreshed by every event. */
export const SEQUENCE_TTL_SECONDS = 24 * 3600;

/**
 * The clock in microseconds. A seq is never below it when taken (the next seq is the larger of the
 * last one + 1 and the clock), so a counter that lost its last values (a restart, a failover) still
 * goes on above every seq handed out before, unless the clock went back meanwhile.
 */
export function freshCounter(nowMs = Date.now()): number {
  return nowMs * 1000;
}

export interface SequenceReader {
  /**
   * The room's latest seq, starting its counter if it has none (so that a socket welcomed before the
   * room's first event has a place to replay from). Everything published with a seq up to it was
   * published before this answered.
   */
  head(namespace: string): Promise<number>;
  /** The log entries with `after < seq <= upTo`, in order; null when the log does not cover `after`. */
  read(namespace: string, after: number, upTo: number): Promise<LogRead>;
  /** The rolls the log holds an entry of (created or updated) with a seq above `after`, as far back as it goes. */
  loggedRollIds(namespace: string, after: number): Promise<Set<number>>;
}

interface RoomLog {
  seq: number;
  floor: number;
  entries: LoggedEntry[];
}

/** Rooms remembered by a MemorySequence at most; the least recently used go first (their clients fall back). */
const MEMORY_ROOMS = 10_000;

/**
 * One process: counters and logs in memory. A process restart starts counters from the clock again
 * (above every seq handed out before) with empty logs: clients then fall back to `since` (uuid).
 */
export class MemorySequence implements SequenceReader {
  private readonly rooms = new Map<string, RoomLog>();

  constructor(private readonly limit = REPLAY_LIMIT) {}

  private room(namespace: string): RoomLog {
    let room = this.rooms.get(namespace);
    if (room) {
      // Most recently used last: Map keeps insertion order.
      this.rooms.delete(namespace);
    } else {
      const start = Math.max(freshCounter(), this.lastStart + 1);
      this.lastStart = start;
      room = { seq: start, floor: start, entries: [] };
    }
    this.rooms.set(namespace, room);
    if (this.rooms.size > MEMORY_ROOMS) this.rooms.delete(this.rooms.keys().next().value!);
    return room;
  }

  private lastStart = 0;

  /** The next seq of `namespace`, logging `entry` under it. */
  next(namespace: string, entry?: ReplayEntry): number {
    const room = this.room(namespace);
    const seq = (room.seq = Math.max(room.seq + 1, freshCounter()));
    if (entry) {
      room.entries.push({ seq, entry });
      if (room.entries.length > this.limit) room.floor = room.entries.splice(0, room.entries.length - this.limit).at(-1)!.seq;
    }
    return seq;
  }

  async head(namespace: string): Promise<number> {
    return this.room(namespace).seq;
  }

  async read(namespace: string, after: number, upTo: number): Promise<LogRead> {
    const room = this.room(namespace);
    if (after < room.floor || after > room.seq) return null;
    return room.entries.filter((e) => e.seq > after && e.seq <= upTo);
  }

  async loggedRollIds(namespace: string, after: number): Promise<Set<number>> {
    return rollIdsOf(this.room(namespace).entries.filter((e) => e.seq > after));
  }
}

export function rollIdsOf(entries: readonly LoggedEntry[]): Set<number> {
  return new Set(entries.flatMap(({ entry }) => (entry.event === 'RollDeleteEvent' ? [] : [entry.rollId])));
}

/** A log entry as stored (JSON), or null for anything malformed (never trusted blindly: it crossed Redis). */
export function parseEntry(text: string): ReplayEntry | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const e = value as Record<string, unknown> | null;
  if (!e || typeof e !== 'object') return null;
  if ((e.event === 'RollCreateEvent' || e.event === 'RollUpdateEvent') && Number.isSafeInteger(e.rollId)) return { event: e.event, rollId: e.rollId as number };
  if (e.event === 'RollDeleteEvent' && Array.isArray(e.rolls)) {
    const rolls = (e.rolls as Array<Record<string, unknown>>).filter(
      (r) => r && typeof r.uuid === 'string' && (r.audience === null || (Array.isArray(r.audience) && r.audience.every((id) => Number.isSafeInteger(id)))),
    );
    const entry: ReplayEntry = { event: 'RollDeleteEvent', rolls: rolls.map((r) => ({ uuid: r.uuid as string, audience: r.audience as number[] | null })) };
    if (Number.isSafeInteger(e.at)) entry.at = e.at as number;
    return entry;
  }
  return null;
}
