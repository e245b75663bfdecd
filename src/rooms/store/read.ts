import { db, models } from '../../db';
import { chunks } from '../../db/inList';
import { toUser, userColumns } from '../../users/store';
import { placeholders } from '../../db/sql';
import { participantColumns, roomColumns, toParticipant, toRoom, type ParticipantRecord, type RoomRecord } from './records';
import { SLUG_PATTERN } from '../codes';

/**
 * Rooms read outside a change, as plain records (records.ts): the room, its owner, and every
 * participant with its user, in seat order. What the answers, the `RoomUpdateEvent`s, the welcome of
 * each socket and the policies take. The one loader family of rooms: the roll paths' reads are in
 * forRolls.ts, and reads under a change's lock in write.ts.
 *
 * Plain SQL, not Sequelize models: a room of 1,000 participants is 2,000 rows, and building a model
 * instance for each cost more CPU than reading them (docs/performance.md, bench:fanout, "Joining and
 * connecting").
 */

export interface ReadRoomOptions {
  /** Also find a soft-deleted room (its deletion is announced with it). Default: live rooms only. */
  includeDeleted?: boolean;
}

const ROOM = `SELECT ${roomColumns('r')}, ${userColumns('o', 'o_')} FROM rooms r JOIN users o ON o.id = r.user_id`;
const SEATS = `SELECT ${participantColumns('p')}, ${userColumns('u', 'u_')} FROM participants p JOIN users u ON u.id = p.user_id`;

const seatOf = (row: Record<string, unknown>): ParticipantRecord => ({ ...toParticipant(row), user: toUser(row, 'u_') });
/** A slug that can name a room: anything else is no room, without asking the database. */
const isSlug = (slug: unknown): slug is string => typeof slug === 'string' && SLUG_PATTERN.test(slug);

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
  return { ...toRoom(row), user: toUser(row, 'o_'), participants: seats.map(seatOf) };
}

/** The room with this slug, as presenters take it, or null. */
export function readRoomBySlug(slug: string, options: ReadRoomOptions = {}): Promise<RoomRecord | null> {
  if (!isSlug(slug)) return Promise.resolve(null);
  return readRoom('slug', slug, options);
}

/** The room with this id, as presenters take it (freshly read after a change), or null. */
export function readRoomById(roomId: number, options: ReadRoomOptions = {}): Promise<RoomRecord | null> {
  return readRoom('id', roomId, options);
}

/** The id and slug of the room with this slug, without its participants (cheap), or null. */
export async function findRoomRef(slug: string, options: ReadRoomOptions = {}): Promise<{ id: number; slug: string } | null> {
  if (!isSlug(slug)) return null;
  const live = options.includeDeleted ? '' : ' AND deleted_at IS NULL';
  const [row] = await db().sql.query<{ id: unknown; slug: string }>(`SELECT id, slug FROM rooms WHERE slug = $1${live}`, [slug]);
  return row ? { id: Number(row.id), slug: row.slug } : null;
}

/** Is `userId` a participant of room `roomId`? One indexed lookup (the socket handshake asks it often). */
export async function hasSeat(roomId: number, userId: number): Promise<boolean> {
  const rows = await db().sql.query('SELECT id FROM participants WHERE room_id = $1 AND user_id = $2', [roomId, userId]);
  return rows.length > 0;
}

/** The participant of `userId` in the room, with its user, or null. */
export async function findParticipant(roomId: number, userId: number): Promise<ParticipantRecord | null> {
  const [row] = await db().sql.query(`${SEATS} WHERE p.room_id = $1 AND p.user_id = $2`, [roomId, userId]);
  return row ? seatOf(row) : null;
}

/** Rooms `userId` created or joined, newest first, one page of them with owner and participants. */
export async function listRoomsOf(userId: number, page: number, perPage: number): Promise<{ rows: RoomRecord[]; total: number }> {
  const query = db().sql.query;
  const mine = 'r.deleted_at IS NULL AND (r.user_id = $1 OR r.id IN (SELECT room_id FROM participants WHERE user_id = $1))';
  const [[count], idRows] = await Promise.all([
    query<{ total: unknown }>(`SELECT COUNT(*) AS "total" FROM rooms r WHERE ${mine}`, [userId]),
    query<{ id: unknown }>(`SELECT r.id FROM rooms r WHERE ${mine} ORDER BY r.created_at DESC, r.id DESC LIMIT $2 OFFSET $3`, [
      userId,
      perPage,
      (page - 1) * perPage,
    ]),
  ]);
  const total = Number(count?.total ?? 0);
  const ids = idRows.map((r) => Number(r.id));
  if (!ids.length) return { rows: [], total };
  const list = placeholders(ids.length);
  const [rooms, seats] = await Promise.all([
    query(`${ROOM} WHERE r.id IN (${list})`, ids),
    query(`${SEATS} WHERE p.room_id IN (${list}) ORDER BY p.position, p.id`, ids),
  ]);
  const byId = new Map(rooms.map((row) => [Number(row.id), { ...toRoom(row), user: toUser(row, 'o_'), participants: [] as ParticipantRecord[] }]));
  for (const seat of seats) byId.get(Number(seat.roomId))?.participants.push(seatOf(seat));
  return { rows: ids.map((id) => byId.get(id)).filter((r): r is NonNullable<typeof r> => Boolean(r)), total };
}

/** A room's background image as the public route serves it. */
export interface BackgroundRecord {
  contentType: string;
  size: number;
  sha256: string;
  data: Buffer;
}

/** A live room's background when `sha256` is its current one (old URLs stop working once replaced). */
export async function findRoomBackground(slug: string, sha256: string): Promise<BackgroundRecord | null> {
  const room = await findRoomRef(slug);
  if (!room) return null;
  const image = await models().RoomBackground.findOne({ where: { roomId: room.id, sha256 } });
  return image ? { contentType: image.contentType, size: image.size, sha256: image.sha256, data: image.data } : null;
}

/**
 * Which (room, user) pairs are participants of a live room, as "roomId userId": one query per 400
 * rooms, asking only for the users given (the realtime layer's sockets), not every participant of a big room.
 */
export async function liveSeats(pairs: ReadonlyArray<{ roomId: number; userId: number }>): Promise<Set<string>> {
  const seats = new Set<string>();
  const rooms = [...new Set(pairs.map((p) => p.roomId))];
  for (const part of chunks(rooms)) {
    const inPart = new Set(part);
    const users = [...new Set(pairs.filter((p) => inPart.has(p.roomId)).map((p) => p.userId))];
    for (const userPart of chunks(users)) {
      const sql = `SELECT p.room_id AS "roomId", p.user_id AS "userId" FROM participants p JOIN rooms r ON r.id = p.room_id
        WHERE r.deleted_at IS NULL AND p.room_id IN (${placeholders(part.length)}) AND p.user_id IN (${placeholders(userPart.length, part.length + 1)})`;
      const rows = await db().sql.query<{ roomId: unknown; userId: unknown }>(sql, [...part, ...userPart]);
      for (const row of rows) seats.add(`${Number(row.roomId)} ${Number(row.userId)}`);
    }
  }
  return seats;
}
