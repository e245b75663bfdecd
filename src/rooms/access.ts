import type { Transaction } from 'sequelize';
import { ForbiddenError, NotFoundError } from '../errors';
import { Participant, Room, User } from '../db/models';
import { SLUG_PATTERN } from './codes';

/**
 * Loading rooms the way presenters and policies need them, and the one access check that the
 * Socket.IO namespaces use. Other issues (rolls, realtime) call these; keep their contracts stable.
 */

export interface LoadRoomOptions {
  /** Also find soft-deleted rooms (rolls embed them). Default: deleted rooms are not found. */
  includeDeleted?: boolean;
  transaction?: Transaction;
}

/**
 * Attach `participants` (each with its `user`) to loaded rooms: two flat queries instead of a
 * nested join, because hydrating nested includes costs more than the queries (a 200-seat room
 * loads about twice as fast this way).
 */
export async function attachParticipants(rooms: Room[], transaction?: Transaction): Promise<void> {
  if (!rooms.length) return;
  const participants = await Participant.findAll({ where: { roomId: rooms.map((r) => r.id) }, order: [['position', 'ASC'], ['id', 'ASC']], transaction });
  const userIds = [...new Set(participants.map((p) => p.userId))];
  const users = userIds.length ? await User.findAll({ where: { id: userIds }, transaction }) : [];
  const usersById = new Map(users.map((u) => [u.id, u]));
  const byRoom = new Map<number, Participant[]>(rooms.map((r) => [r.id, []]));
  for (const p of participants) {
    p.user = usersById.get(p.userId);
    byRoom.get(p.roomId)?.push(p);
  }
  for (const room of rooms) room.participants = byRoom.get(room.id) ?? [];
}

async function loadRoom(where: { slug: string } | { id: number }, options: LoadRoomOptions): Promise<Room | null> {
  const room = await Room.findOne({ where, include: [{ model: User, as: 'user' }], paranoid: !options.includeDeleted, transaction: options.transaction });
  if (room) await attachParticipants([room], options.transaction);
  return room;
}

/** The room with its owner and participants (each with its user), or null. Deleted rooms only on request. */
export async function loadRoomBySlug(slug: string, options: LoadRoomOptions = {}): Promise<Room | null> {
  if (typeof slug !== 'string' || !SLUG_PATTERN.test(slug)) return null;
  return loadRoom({ slug }, options);
}

/** loadRoomBySlug, or a 404 `not_found`. */
export async function requireRoomBySlug(slug: string, options: LoadRoomOptions = {}): Promise<Room> {
  const room = await loadRoomBySlug(slug, options);
  if (!room) throw new NotFoundError(`There is no room "${String(slug).slice(0, 64)}".`);
  return room;
}

/** The id of the live room with this slug, without loading it (cheap), or a 404. */
export async function requireRoomId(slug: string, transaction?: Transaction): Promise<number> {
  const room = SLUG_PATTERN.test(slug) ? await Room.findOne({ where: { slug }, attributes: ['id'], transaction }) : null;
  if (!room) throw new NotFoundError(`There is no room "${String(slug).slice(0, 64)}".`);
  return room.id;
}

/** The participant of `userId` in the room, with its user, or null. */
export function findParticipant(roomId: number, userId: number, transaction?: Transaction): Promise<Participant | null> {
  return Participant.findOne({ where: { roomId, userId }, include: [{ model: User, as: 'user' }], transaction });
}

/**
 * Socket.IO namespace auth (`/room/{slug}`, handshake `{token, passcode}`): the room's id and slug when
 * `userId` may be connected to it, else an AppError whose `code` becomes the connect_error message:
 * - `not_found`: no such room, or it was deleted;
 * - `forbidden`: the user is not a participant. Joining (POST /room/{slug}/participant) is where
 *   the passcode is checked, for public and private rooms alike; a participant connects without
 *   it (as GET /room/{slug} answers a participant without it), and a non-participant is refused
 *   even with the right passcode.
 * Two indexed lookups, not the room with every participant: in a room of 1,000 that was 2,000 rows per
 * handshake, and a burst of 1,000 handshakes spent most of its time there (bench:fanout).
 */
export async function authorizeRoomConnection(slug: string, userId: number): Promise<{ id: number; slug: string }> {
  const room = SLUG_PATTERN.test(slug) ? await Room.findOne({ where: { slug }, attributes: ['id', 'slug'] }) : null;
  if (!room) throw new NotFoundError(`There is no room "${String(slug).slice(0, 64)}".`);
  const seat = await Participant.findOne({ where: { roomId: room.id, userId }, attributes: ['id'] });
  if (!seat) throw new ForbiddenError(`Join the room first (POST /api/1.0/room/${room.slug}/participant), then connect.`);
  return { id: room.id, slug: room.slug };
}
