import { db } from '../../db';
import { asBool, type Query } from '../../db/sql';
import { isUuid } from './load';

/**
 * Which rolls of a room a viewer may see, as SQL: the history page, the realtime replay and the relay
 * of dragged dice ask the database, not loaded rolls. The rule is canSeeRoll()'s (rolls/policy.ts):
 * not whispered, or the viewer's own, or whispered to the viewer.
 */

/**
 * The SQL side of canSeeRoll() over `rolls r`, the viewer's id being parameter `$n` (a parameter,
 * not inlined: each statement text is prepared once per connection on PostgreSQL, db/sql.ts).
 */
export function visibleTo(n: number): string {
  return `(r.is_whispered = FALSE OR r.user_id = $${n} OR r.id IN (SELECT roll_id FROM roll_whispers WHERE user_id = $${n}))`;
}

/**
 * The SQL side of canSeeValue() over `roll_values v` of `rolls r`, the viewer's id being parameter
 * `$n`: a hidden die's value is its roller's alone. (The roll itself must be visible: visibleTo.)
 * The statistics (src/stats/) count only what these two let the viewer see.
 */
export function valueVisibleTo(n: number): string {
  return `(v.is_hidden = FALSE OR r.user_id = $${n})`;
}

/** A viewer id as a parameter: an integer, or a programming error. */
function viewerParam(viewerId: number): number {
  const viewer = Number(viewerId);
  if (!Number.isSafeInteger(viewer)) throw new Error('viewerId must be an integer');
  return viewer;
}

/**
 * One page of a room's history as `viewerId` may see it, newest first: ids of rolls older than
 * `beforeId` (when given) that are not whispered, or are the viewer's own, or are whispered to the
 * viewer, and, when `externalId` is given, whose external_id it is. The filter is in SQL, so a page is
 * full even when whispers for others are skipped.
 * Answers up to `limit + 1` ids: the extra one says there is a next page.
 */
export async function visibleRollIdsInRoom(
  roomId: number,
  viewerId: number,
  beforeId: number | null,
  limit: number,
  externalId: string | null = null,
): Promise<number[]> {
  const params: unknown[] = [roomId, limit + 1, viewerParam(viewerId)];
  const before = beforeId !== null ? ` AND r.id < $${params.push(beforeId)}` : '';
  const labelled = externalId !== null ? ` AND r.external_id = $${params.push(externalId)}` : '';
  const rows = await db().sql.query<{ id: unknown }>(
    `SELECT r.id FROM rolls r WHERE r.room_id = $1${before}${labelled} AND ${visibleTo(3)} ORDER BY r.id DESC LIMIT $2`,
    params,
  );
  return rows.map((r) => Number(r.id));
}

/**
 * The id of roll `uuid` in room `roomId`, for a cursor given by `viewerId` (history `before`, realtime
 * `since`): null also when the roll is one the viewer may not see, so that such a cursor behaves as an
 * unknown one and confirms nothing about a whisper for someone else.
 */
export async function visibleRollIdInRoom(uuid: string, roomId: number, viewerId: number): Promise<number | null> {
  if (!isUuid(uuid)) return null;
  const [row] = await db().sql.query<{ id: unknown }>(`SELECT r.id FROM rolls r WHERE r.uuid = $1 AND r.room_id = $2 AND ${visibleTo(3)}`, [
    uuid.toLowerCase(),
    roomId,
    viewerParam(viewerId),
  ]);
  return row ? Number(row.id) : null;
}

/** A die being dragged, with what rolls/policy.ts moveAudience() needs of it and its roll. */
export interface DraggedDie {
  isHidden: boolean;
  roll: { uuid: string; userId: number; roomId: number | null; isWhispered: boolean; whisperUserIds: number[] };
}

/** The roll value `valueUuid` and its roll, or null (the relay of dragged dice, realtime/fanout/draggedDice.ts). */
export async function findDraggedDie(valueUuid: string, query: Query = db().sql.query): Promise<DraggedDie | null> {
  const [row] = await query<Record<string, unknown>>(
    `SELECT v.is_hidden AS "isHidden", r.id AS "rollId", r.uuid AS "uuid", r.user_id AS "userId", r.room_id AS "roomId", r.is_whispered AS "isWhispered"
       FROM roll_values v JOIN rolls r ON r.id = v.roll_id WHERE v.uuid = $1`,
    [valueUuid],
  );
  if (!row) return null;
  const isWhispered = asBool(row.isWhispered);
  const whispers = isWhispered ? await query<{ userId: unknown }>('SELECT user_id AS "userId" FROM roll_whispers WHERE roll_id = $1', [row.rollId]) : [];
  return {
    isHidden: asBool(row.isHidden),
    roll: {
      uuid: row.uuid as string,
      userId: Number(row.userId),
      roomId: row.roomId === null || row.roomId === undefined ? null : Number(row.roomId),
      isWhispered,
      whisperUserIds: whispers.map((w) => Number(w.userId)),
    },
  };
}
