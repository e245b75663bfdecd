import { db } from '../../db';
import { toUser, userColumns } from '../../db/records';
import { participantColumns, roomColumns, toParticipant, toRoom, type RoomRecord } from './records';
import { NotFoundError } from '../../errors';
import { SLUG_PATTERN } from '../codes';

/**
 * Rooms read for presenting, as plain records (db/records.ts): the room, its owner, and every
 * participant with its user, in seat order. What the answers to joins and room changes, the
 * `RoomUpdateEvent`s and the welcome of each socket present; none of them changes the room.
 *
 * Plain SQL, not Sequelize models: a room of 1,000 participants is 2,000 rows, and building a model
 * instance for each cost more CPU than reading them (docs/performance.md, bench:fanout, "Joining and
 * connecting"). Commands that change a room keep loading models (roomsAccess.ts).
 */

export interface ReadRoomOptions {
  /** Also find a soft-deleted room (its deletion is announced with it). Default: live rooms only. */
  includeDeleted?: boolean;
}

const ROOM = `SELECT ${roomColumns('r')}, ${userColumns('o', 'o_')} FROM rooms r JOIN users o ON o.id = r.user_id`;
const SEATS = `SELECT ${participantColumns('p')}, ${userColumns('u', 'u_')} FROM participants p JOIN users u ON u.id = p.user_id`;

async function readRoom(by: 'slug' | 'id', key: string | number, options: ReadRoomOptions): Promise<RoomRecord | null> {
  const live = options.includeDeleted ? '' : ' AND r.deleted_at IS NULL';
  const query = db().sql.query;
  // Side by side on two pooled connections: one round trip.
  const [rooms, seats] = await Promise.all([
    query(`${ROOM} WHERE r.${by} = $1${live}`, [key]),
    query(`${SEATS} WHERE p.room_id = (SELECT r.id FROM rooms r WHERE r.${by} = $1${live}) ORDER BY p.position, p.id`, [key]),
  ]);
  const row = rooms[0];
  if (!row) return null;
  return { ...toRoom(row), user: toUser(row, 'o_'), participants: seats.map((s) => ({ ...toParticipant(s), user: toUser(s, 'u_') })) };
}

/** The room with this slug, as presenters take it, or null. */
export function readRoomBySlug(slug: string, options: ReadRoomOptions = {}): Promise<RoomRecord | null> {
  if (typeof slug !== 'string' || !SLUG_PATTERN.test(slug)) return Promise.resolve(null);
  return readRoom('slug', slug, options);
}

/** The room with this id, freshly read after a change (what its answer presents), or a 404. */
export async function rereadRoom(roomId: number, options: ReadRoomOptions = {}): Promise<RoomRecord> {
  const room = await readRoom('id', roomId, options);
  if (!room) throw new NotFoundError('The room no longer exists.');
  return room;
}
