import { ForbiddenError, NotFoundError } from '../errors';
import { authorizeRoomAccess } from './policy';
import { findRoomRef, hasSeat, readRoomById, readRoomBySlug, type ReadRoomOptions } from './store/read';
import type { RoomRecord } from './store/records';

/**
 * Finding a room or refusing with the API's errors, and the one access check that the Socket.IO
 * namespaces use. Other features (rolls, realtime) call these; keep their contracts stable.
 */

const noSuchRoom = (slug: string) => new NotFoundError(`There is no room "${String(slug).slice(0, 64)}".`);

/** The room with its owner and participants (each with its user), or a 404 `not_found`. Deleted rooms only on request. */
export async function requireRoomBySlug(slug: string, options: ReadRoomOptions = {}): Promise<RoomRecord> {
  const room = await readRoomBySlug(slug, options);
  if (!room) throw noSuchRoom(slug);
  return room;
}

/** The id of the live room with this slug, without loading it (cheap), or a 404. */
export async function requireRoomId(slug: string): Promise<number> {
  const room = await findRoomRef(slug);
  if (!room) throw noSuchRoom(slug);
  return room.id;
}

/** The room with this id, freshly read after a change (what its answer presents), or a 404. */
export async function rereadRoom(roomId: number, options: ReadRoomOptions = {}): Promise<RoomRecord> {
  const room = await readRoomById(roomId, options);
  if (!room) throw new NotFoundError('The room no longer exists.');
  return room;
}

/** GET /room/{slug}: the room when `user` may see it (a passcode opens a private room to anyone), else 404 or 403. */
export async function viewRoom(slug: string, user: { id: number }, passcode?: string | null): Promise<RoomRecord> {
  const room = await requireRoomBySlug(slug);
  authorizeRoomAccess(room, user, passcode);
  return room;
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
  const room = await findRoomRef(slug);
  if (!room) throw noSuchRoom(slug);
  if (!(await hasSeat(room.id, userId))) throw new ForbiddenError(`Join the room first (POST /api/1.0/room/${room.slug}/participant), then connect.`);
  return room;
}
