import { perApp } from '../lib/appContext';
import { BoundedCache } from '../lib/cache';
import { cacheTtlMs, onInvalidation } from '../lib/invalidation';
import type { Query } from '../db/sql';
import { readParticipants, readRollRoomSeats, type RollRoomSeats } from './store/forRolls';
import type { ParticipantRecord, RoomRecord } from './store/records';

/**
 * Rooms as the roll paths need them (`POST /roll`: a live room by slug; `GET /roll/{uuid}`: a roll's
 * room by id, deleted ones too), kept in process: the room, its owner and its seats (every participant
 * id with its user id), read whole on every (re)load; the participants a roll involves (its roller,
 * whisper recipients) are read when a roll first needs them and kept with the room until it goes.
 *
 * What decides who may roll in a room and who sees its rolls (the room's row and its seats) is here,
 * so every change to a room's row or participants invalidates it, pushed to every instance before the
 * change answers (rooms use cases, `announce`); a change to a user drops the rooms it owns or sits in.
 * A participant read later belongs to the cached room it was read for: when that room is dropped, so
 * is every participant read for it. Bounded by seats held (a room weighs 1 + its seats), and by
 * CACHE_TTL_MS.
 */
const MAX_SEATS_HELD = 50_000;

export interface CachedRoom extends RollRoomSeats {
  /** user id -> participant id (a user sits in a room at most once: unique index) */
  seatOfUser: ReadonlyMap<number, number>;
  /** participants read so far, by id */
  participants: Map<number, ParticipantRecord>;
  /** reads of participants in progress, by participant id (concurrent rolls by one roller share one read) */
  reading: Map<number, Promise<unknown>>;
}

const weigh = (room: CachedRoom) => 1 + room.seats.size;
const liveBySlug = perApp(() => new BoundedCache<string, CachedRoom>({ maxWeight: MAX_SEATS_HELD, weigh, ttlMs: cacheTtlMs }));
const byId = perApp(() => new BoundedCache<number, CachedRoom>({ maxWeight: MAX_SEATS_HELD, weigh, ttlMs: cacheTtlMs }));

onInvalidation((inv) => {
  if (inv.all) {
    liveBySlug().clear();
    byId().clear();
    return;
  }
  if (inv.rooms?.length) {
    const rooms = new Set(inv.rooms);
    for (const cache of [liveBySlug(), byId()]) cache.deleteWhere((cached) => rooms.has(cached.room.id));
  }
  if (inv.users?.length) {
    const users = inv.users;
    const embeds = (cached: CachedRoom) => users.some((u) => u === cached.room.userId || cached.seatOfUser.has(u));
    for (const cache of [liveBySlug(), byId()]) cache.deleteWhere(embeds);
  }
});

async function load(query: Query, where: string, params: readonly unknown[]): Promise<CachedRoom | null> {
  const read = await readRollRoomSeats(query, where, params);
  if (!read) return null;
  const seatOfUser = new Map<number, number>();
  for (const [participantId, userId] of read.seats) seatOfUser.set(userId, participantId);
  // The room as rolls embed it: `memberUserIds` is every seat's user (forRoll adds the participants).
  const room: RoomRecord = { ...read.room, memberUserIds: new Set(seatOfUser.keys()) };
  return { room, seats: read.seats, seatOfUser, participants: new Map(), reading: new Map() };
}

/** The live (not deleted) room with this slug, as cached (give it to forRoll), or null. */
export function cachedLiveRoom(query: Query, slug: string): Promise<CachedRoom | null> {
  return liveBySlug().getOrLoad(slug, () => load(query, 'r.slug = $1 AND r.deleted_at IS NULL', [slug]));
}

/** The room with this id (deleted or not), as cached (give it to forRoll), or null. */
export function cachedRoom(query: Query, id: number): Promise<CachedRoom | null> {
  return byId().getOrLoad(id, () => load(query, 'r.id = $1', [id]));
}

/**
 * The room as a roll embeds it (store/forRolls.ts readRollRooms): every member's user id, and in full
 * only the participants the roll involves: `userId`'s seat (its roller) and the seats of `whisperIds`
 * that are in the room (others are not: POST /roll answers 422 for them), in seat order. A new object:
 * the cached room is shared and never changed. A seat whose participant is gone by the time it is read
 * (removed, its push still on its way) is left out, as a fresh read would leave it.
 */
export async function forRoll(query: Query, cached: CachedRoom, userId: number, whisperIds: readonly number[]): Promise<RoomRecord> {
  const wanted = new Set<number>();
  const seat = cached.seatOfUser.get(userId);
  if (seat !== undefined) wanted.add(seat);
  for (const id of whisperIds) if (cached.seats.has(id)) wanted.add(id);
  if (!wanted.size) return { ...cached.room, participants: [] };
  const unread = [...wanted].filter((id) => !cached.participants.has(id) && !cached.reading.has(id));
  if (unread.length) {
    const read = readParticipants(query, cached.room.id, unread).then((participants) => {
      for (const p of participants) cached.participants.set(p.id, p);
    });
    for (const id of unread) cached.reading.set(id, read);
    const done = () => unread.forEach((id) => cached.reading.delete(id));
    read.then(done, done);
  }
  await Promise.all([...wanted].flatMap((id) => cached.reading.get(id) ?? []));
  const involved = [...wanted].flatMap((id) => cached.participants.get(id) ?? []);
  involved.sort((a, b) => a.position - b.position || a.id - b.id);
  return { ...cached.room, participants: involved };
}
