import { BoundedCache } from '../lib/cache';
import { cacheTtlMs, onInvalidation } from '../lib/invalidation';
import type { Query } from '../db/sql';
import { readWholeRollRoom } from './store/forRolls';
import type { RoomRecord } from './store/records';

/**
 * Rooms as the roll paths need them (`POST /roll`: a live room by slug; `GET /roll/{uuid}`: a roll's
 * room by id, deleted ones too), kept in process: the room, its owner, every participant with its
 * user. Each roll then takes from it only what it embeds (`forRoll`). What decides who may roll in a
 * room and who sees its rolls is here, so every change to a room's row or participants invalidates
 * it, pushed to every instance before the change answers (rooms use cases, `announce`); a change to a
 * user drops the rooms it appears in. Bounded by participants held (a room weighs 1 + its
 * participants), and by CACHE_TTL_MS.
 */
const MAX_PARTICIPANTS_HELD = 50_000;
const weigh = (room: RoomRecord) => 1 + (room.participants?.length ?? 0);
const liveBySlug = new BoundedCache<string, RoomRecord>({ maxWeight: MAX_PARTICIPANTS_HELD, weigh, ttlMs: cacheTtlMs });
const byId = new BoundedCache<number, RoomRecord>({ maxWeight: MAX_PARTICIPANTS_HELD, weigh, ttlMs: cacheTtlMs });

onInvalidation((inv) => {
  if (inv.all) {
    liveBySlug.clear();
    byId.clear();
    return;
  }
  if (inv.rooms?.length) {
    const rooms = new Set(inv.rooms);
    for (const cache of [liveBySlug, byId]) cache.deleteWhere((room) => rooms.has(room.id));
  }
  if (inv.users?.length) {
    const users = new Set(inv.users);
    const embeds = (room: RoomRecord) => users.has(room.userId) || (room.participants ?? []).some((p) => users.has(p.userId));
    for (const cache of [liveBySlug, byId]) cache.deleteWhere(embeds);
  }
});

/** The live (not deleted) room with this slug, whole, or null. */
export function wholeLiveRoomBySlug(query: Query, slug: string): Promise<RoomRecord | null> {
  return liveBySlug.getOrLoad(slug, () => readWholeRollRoom(query, 'r.slug = $1 AND r.deleted_at IS NULL', [slug]));
}

/** The room with this id (deleted or not), whole, or null. */
export function wholeRoomById(query: Query, id: number): Promise<RoomRecord | null> {
  return byId.getOrLoad(id, () => readWholeRollRoom(query, 'r.id = $1', [id]));
}

/**
 * The room as a roll embeds it (store/forRolls.ts readRollRooms): every member's user id, and in
 * full only the participants the roll involves: those of `userIds` (its roller) and `participantIds`
 * (whisper recipients), in seat order. A new object: the cached room is shared and never changed.
 */
export function forRoll(room: RoomRecord, userIds: readonly number[], participantIds: readonly number[]): RoomRecord {
  const involved = (room.participants ?? []).filter((p) => userIds.includes(p.userId) || participantIds.includes(p.id));
  return { ...room, participants: involved, memberUserIds: room.memberUserIds };
}
