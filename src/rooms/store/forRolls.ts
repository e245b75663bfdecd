import { toUser, userColumns } from '../../users/store';
import { placeholders, type Query } from '../../db/sql';
import { participantColumns, roomColumns, toParticipant, toRoom, type ParticipantRecord, type RoomRecord } from './records';

/**
 * Rooms as the roll paths read them (src/rolls/store/load.ts): inside the roll's own statements (`query`
 * may be a transaction's), with every member's id but only the participants the rolls involve.
 */

/** Which rooms and which of their participants readRollRooms() reads, as SQL over `params`. */
export interface RollRoomsWhere {
  /** a condition on `rooms r` */
  rooms: string;
  /** a condition on `participants p`: those shown in full (the rolls' rollers and whisper recipients) */
  involved: string;
  /** the parameters of `rooms` ($1...), then those `involved` adds */
  params: readonly unknown[];
  /** how many of `params` are `rooms`' (a statement must be given exactly the parameters it names) */
  roomParams: number;
  /**
   * `rooms` names at most one room (a slug, a roll's room): its member list then rides along in the
   * one statement (MEMBER_LIST), repeated on each of its few rows, instead of a second query.
   */
  oneRoom?: boolean;
}

/**
 * Every member's user id of room `r`, as one text column ('12,40,41'): `string_agg` is both
 * PostgreSQL's and (since 3.44) SQLite's. Per row of the statement: used only where the rows are few.
 */
const MEMBER_LIST = `(SELECT string_agg(CAST(m.user_id AS TEXT), ',') FROM participants m WHERE m.room_id = r.id) AS "memberList"`;

/**
 * Rooms as rolls embed them (deleted ones too): the room and its owner, every member's user id (who may
 * see the rolls: `memberUserIds`), and in full only the participants the rolls involve. A roll in a room
 * of 1,000 thus reads 1,000 small ids, not 1,000 participants with their users. One statement for one
 * room (the roll paths: POST /roll, GET /roll/{uuid}); for many rooms two, side by side outside a
 * transaction (the member ids as rows: one list per room, not one per row).
 */
export async function readRollRooms(query: Query, where: RollRoomsWhere, sequential = false): Promise<RoomRecord[]> {
  const reads = [
    // The room and its owner, with the involved participants (few) joined in.
    () =>
      query(
        `SELECT ${roomColumns('r')}, ${userColumns('o', 'o_')}, ${participantColumns('p', 'p_')}, ${userColumns('pu', 'pu_')}${where.oneRoom ? `, ${MEMBER_LIST}` : ''}
           FROM rooms r
           JOIN users o ON o.id = r.user_id
           LEFT JOIN participants p ON p.room_id = r.id AND (${where.involved})
           LEFT JOIN users pu ON pu.id = p.user_id
          WHERE ${where.rooms}
          ORDER BY r.id, p.position, p.id`,
        where.params,
      ),
    () =>
      where.oneRoom
        ? Promise.resolve([])
        : query<{ roomId: unknown; userId: unknown }>(
            `SELECT p.room_id AS "roomId", p.user_id AS "userId" FROM participants p WHERE p.room_id IN (SELECT r.id FROM rooms r WHERE ${where.rooms})`,
            where.params.slice(0, where.roomParams),
          ),
  ] as const;
  const [rows, memberRows] = sequential ? [await reads[0](), await reads[1]()] : await Promise.all([reads[0](), reads[1]()]);
  const rooms = new Map<number, RoomRecord & { memberUserIds: Set<number> }>();
  for (const row of rows) {
    const id = Number(row.id);
    let room = rooms.get(id);
    if (!room) {
      rooms.set(id, (room = { ...toRoom(row), user: toUser(row, 'o_'), participants: [], memberUserIds: new Set<number>() }));
      if (typeof row.memberList === 'string') for (const userId of row.memberList.split(',')) room.memberUserIds.add(Number(userId));
    }
    if (row.p_id !== null && row.p_id !== undefined) room.participants!.push({ ...toParticipant(row, 'p_'), user: toUser(row, 'pu_') });
  }
  for (const m of memberRows) rooms.get(Number(m.roomId))?.memberUserIds.add(Number(m.userId));
  return [...rooms.values()];
}

/** A room as the in-process room cache keeps it (rooms/rollRoomCache.ts): the room, its owner, and its seats. */
export interface RollRoomSeats {
  /** the room with its owner (no participants: they are read when a roll involves them) */
  room: RoomRecord;
  /** every participant: participant id -> user id (the room's member list: who may roll, who sees the rolls) */
  seats: ReadonlyMap<number, number>;
}

/**
 * Every seat of room `r`, as one text column ('7:12,8:40'; participant id:user id): one row whatever
 * the room's size. `string_agg` is both PostgreSQL's and (since 3.44) SQLite's.
 */
const SEAT_LIST = `(SELECT string_agg(CAST(m.id AS TEXT) || ':' || CAST(m.user_id AS TEXT), ',') FROM participants m WHERE m.room_id = r.id) AS "seatList"`;

/**
 * One room with its owner and its seats (who sits where), for the in-process room cache: one statement,
 * one row. The participants themselves (name, color, position, user) are read only for the rolls that
 * involve them (readParticipants), and kept with the cached room.
 *
 * Reading every participant with its user on each reload was most of the cost: for a room of 1,000 it
 * took 5-17 ms of the event loop on each instance every CACHE_TTL_MS, and made bench:fanout's slowest
 * deliveries (docs/api.md, "Caches and bounded staleness"). The seats are what decides who may roll in the room
 * and who sees its rolls, so they are read whole with the room, on every reload.
 */
export async function readRollRoomSeats(query: Query, where: string, params: readonly unknown[]): Promise<RollRoomSeats | null> {
  const [row] = await query(
    `SELECT ${roomColumns('r')}, ${userColumns('o', 'o_')}, ${SEAT_LIST}
       FROM rooms r
       JOIN users o ON o.id = r.user_id
      WHERE ${where}
      ORDER BY r.id
      LIMIT 1`,
    params,
  );
  if (!row) return null;
  const seats = new Map<number, number>();
  if (typeof row.seatList === 'string' && row.seatList !== '') {
    for (const seat of row.seatList.split(',')) {
      const colon = seat.indexOf(':');
      seats.set(Number(seat.slice(0, colon)), Number(seat.slice(colon + 1)));
    }
  }
  return { room: { ...toRoom(row), user: toUser(row, 'o_') }, seats };
}

/** These participants of room `roomId` with their users (those that still exist), in no particular order. */
export async function readParticipants(query: Query, roomId: number, ids: readonly number[]): Promise<ParticipantRecord[]> {
  if (!ids.length) return [];
  const rows = await query(
    `SELECT ${participantColumns('p', 'p_')}, ${userColumns('pu', 'pu_')}
       FROM participants p
       LEFT JOIN users pu ON pu.id = p.user_id
      WHERE p.room_id = $1 AND p.id IN (${placeholders(ids.length, 2)})`,
    [roomId, ...ids],
  );
  return rows.map((row) => ({ ...toParticipant(row, 'p_'), user: toUser(row, 'pu_') }));
}
