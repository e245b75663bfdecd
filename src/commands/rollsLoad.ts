import { literal, Op, type Transaction, type WhereOptions } from 'sequelize';
import { Participant, Roll, RollValue, RollWhisper, Room, User } from '../models';
import { roomAssociations } from './roomsAccess';

/**
 * Loading rolls the way presentRoll() and canSeeRoll() need them: user, room (deleted rooms too) with its
 * owner and participants, values in order, whispers with their participants. A fixed number of queries
 * whatever the number of rolls (one per relation, batched by id): the realtime fan-out and the history
 * page call this with many ids.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A string that can be a uuid column value (anything else would be a database error on PostgreSQL). */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

export interface LoadOptions {
  transaction?: Transaction;
}

/** The rolls with these ids, fully loaded, in the order of `ids` (ids with no roll are skipped). */
export async function loadRolls(ids: readonly number[], options: LoadOptions = {}): Promise<Roll[]> {
  const unique = [...new Set(ids)];
  if (!unique.length) return [];
  const rolls = await loadWhere({ id: unique }, options);
  const byId = new Map(rolls.map((r) => [r.id, r]));
  const out: Roll[] = [];
  const seen = new Set<number>();
  for (const id of ids) {
    const roll = byId.get(id);
    if (roll && !seen.has(id)) {
      seen.add(id);
      out.push(roll);
    }
  }
  return out;
}

/** The roll with this uuid, fully loaded, or null (also for strings that are not uuids). */
export async function loadRollByUuid(uuid: string, options: LoadOptions = {}): Promise<Roll | null> {
  if (!isUuid(uuid)) return null;
  const [roll] = await loadWhere({ uuid: uuid.toLowerCase() }, options);
  return roll ?? null;
}

/** The rolls with these uuids, fully loaded, keyed by lower-case uuid (unknown or malformed uuids are absent). */
export async function loadRollsByUuid(uuids: readonly string[], options: LoadOptions = {}): Promise<Map<string, Roll>> {
  const wanted = [...new Set(uuids.filter(isUuid).map((u) => u.toLowerCase()))];
  if (!wanted.length) return new Map();
  const rolls = await loadWhere({ uuid: wanted }, options);
  return new Map(rolls.map((r) => [r.uuid.toLowerCase(), r]));
}

async function loadWhere(where: WhereOptions<Roll>, { transaction }: LoadOptions): Promise<Roll[]> {
  const rolls = await Roll.findAll({ where, include: [{ model: User, as: 'user' }], transaction });
  if (!rolls.length) return rolls;
  await attachRelations(rolls, transaction);
  return rolls;
}

/** Room, values and whispers of rolls already read: three queries. */
async function attachRelations(rolls: Roll[], transaction?: Transaction): Promise<void> {
  const ids = rolls.map((r) => r.id);
  const roomIds = [...new Set(rolls.map((r) => r.roomId).filter((id): id is number => id != null))];
  const loadRooms = () => loadRollRooms(roomIds, transaction);
  const loadValues = () => RollValue.findAll({ where: { rollId: ids }, order: [['rollId', 'ASC'], ['position', 'ASC']], transaction });
  const loadWhispers = () =>
    RollWhisper.findAll({
      where: { rollId: ids },
      include: [{ model: Participant, as: 'participant', include: [{ model: User, as: 'user' }] }],
      transaction,
    });
  // Outside a transaction the three run side by side on pooled connections; inside one they share its
  // connection, which takes one query at a time.
  const [rooms, values, whispers] = transaction
    ? [await loadRooms(), await loadValues(), await loadWhispers()]
    : await Promise.all([loadRooms(), loadValues(), loadWhispers()]);
  const roomById = rooms;
  const valuesOf = group(values, (v) => v.rollId);
  const whispersOf = group(whispers, (w) => w.rollId);
  for (const roll of rolls) {
    roll.room = roll.roomId != null ? (roomById.get(roll.roomId) ?? null) : null;
    roll.values = valuesOf.get(roll.id) ?? [];
    roll.whispers = whispersOf.get(roll.id) ?? [];
  }
}

/** The rooms of rolls (deleted ones too) with owner and participants, as loadRolls() embeds them, by id. */
export async function loadRollRooms(roomIds: readonly number[], transaction?: Transaction): Promise<Map<number, Room>> {
  const unique = [...new Set(roomIds)];
  if (!unique.length) return new Map();
  const rooms = await Room.findAll({ where: { id: unique }, include: roomAssociations(), paranoid: false, transaction });
  return new Map(rooms.map((r) => [r.id, r]));
}

function group<T>(items: T[], key: (item: T) => number): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}

/**
 * One page of a room's history as `viewerId` may see it, newest first: ids of rolls older than
 * `beforeId` (when given) that are not whispered, or are the viewer's own, or are whispered to the
 * viewer. The filter is in SQL, so a page is full even when whispers for others are skipped.
 * Answers up to `limit + 1` ids: the extra one says there is a next page.
 */
export async function visibleRollIdsInRoom(roomId: number, viewerId: number, beforeId: number | null, limit: number): Promise<number[]> {
  const rows = await Roll.findAll({
    attributes: ['id'],
    where: {
      roomId,
      ...(beforeId !== null ? { id: { [Op.lt]: beforeId } } : {}),
      [Op.or]: visibleTo(viewerId),
    },
    order: [['id', 'DESC']],
    limit: limit + 1,
  });
  return rows.map((r) => r.id);
}

/** The SQL side of canSeeRoll() for the rolls of one room: not whispered, the viewer's own, or whispered to it. */
function visibleTo(viewerId: number): WhereOptions<Roll>[] {
  const viewer = Number(viewerId);
  if (!Number.isSafeInteger(viewer)) throw new Error('viewerId must be an integer');
  return [
    { isWhispered: false },
    { userId: viewer },
    // viewer is a safe integer (checked above): inlining it keeps the subquery a plain literal
    { id: { [Op.in]: literal(`(SELECT roll_id FROM roll_whispers WHERE user_id = ${viewer})`) } },
  ];
}

/** The id of the roll `uuid` in room `roomId`, or null: a history cursor. */
export async function rollIdInRoom(uuid: string, roomId: number): Promise<number | null> {
  if (!isUuid(uuid)) return null;
  const row = await Roll.findOne({ attributes: ['id'], where: { uuid: uuid.toLowerCase(), roomId } });
  return row?.id ?? null;
}

/**
 * rollIdInRoom() for a cursor given by `viewerId` (history `before`, realtime `since`): null also when
 * the roll is one the viewer may not see, so that such a cursor behaves as an unknown one and confirms
 * nothing about a whisper for someone else.
 */
export async function visibleRollIdInRoom(uuid: string, roomId: number, viewerId: number): Promise<number | null> {
  if (!isUuid(uuid)) return null;
  const row = await Roll.findOne({ attributes: ['id'], where: { uuid: uuid.toLowerCase(), roomId, [Op.or]: visibleTo(viewerId) } });
  return row?.id ?? null;
}
