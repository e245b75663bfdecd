import { toUser, userColumns } from '../../users/store';
import type { Query } from '../../db/sql';
import { participantColumns, roomColumns, toParticipant, toRoom, type RoomRecord } from './records';

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

/**
 * One room with its owner and every participant (with their users), for the in-process room cache
 * (rooms/rollRoomCache.ts): read once, then each roll takes the participants it involves from it.
 * `where` is a condition on `rooms r` over `params`. The member ids are the participants'.
 *
 * Two statements: the room with its owner, then its participants with their users. In one joined
 * statement every participant's row repeated the room's and the owner's 17 columns (5 timestamps),
 * and parsing them was most of a reload: a room of 1,000 participants took 8-17 ms of the event loop
 * on each instance every CACHE_TTL_MS, which made the slowest deliveries of bench:fanout
 * (docs/performance.md). A change between the two reads is covered by the cache: any invalidation
 * while a fill is read voids it (lib/cache.ts `ticket`).
 */
export async function readWholeRollRoom(query: Query, where: string, params: readonly unknown[]): Promise<RoomRecord | null> {
  const [first] = await query(
    `SELECT ${roomColumns('r')}, ${userColumns('o', 'o_')}
       FROM rooms r
       JOIN users o ON o.id = r.user_id
      WHERE ${where}
      ORDER BY r.id
      LIMIT 1`,
    params,
  );
  if (!first) return null;
  const room: RoomRecord = { ...toRoom(first), user: toUser(first, 'o_'), participants: [] };
  const rows = await query(
    `SELECT ${participantColumns('p', 'p_')}, ${userColumns('pu', 'pu_')}
       FROM participants p
       LEFT JOIN users pu ON pu.id = p.user_id
      WHERE p.room_id = $1
      ORDER BY p.position, p.id`,
    [room.id],
  );
  for (const row of rows) room.participants!.push({ ...toParticipant(row, 'p_'), user: toUser(row, 'pu_') });
  room.memberUserIds = new Set(room.participants!.map((p) => p.userId));
  return room;
}
