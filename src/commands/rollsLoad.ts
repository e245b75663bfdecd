import { literal, Op, type Transaction, type WhereOptions } from 'sequelize';
import { Participant, Roll, RollValue, RollWhisper, Room, User } from '../models';

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
  const rolls = await Roll.findAll({ where, transaction });
  if (!rolls.length) return rolls;
  await attachRelations(rolls, transaction);
  return rolls;
}

/**
 * Everything else of rolls already read, in flat queries batched by id (rooms, participants, values,
 * whispers side by side, then every user they name at once), wired here: nested includes cost more in
 * Sequelize's join grouping than the extra round trip does (docs/performance.md).
 */
async function attachRelations(rolls: Roll[], transaction?: Transaction): Promise<void> {
  const ids = rolls.map((r) => r.id);
  const roomIds = [...new Set(rolls.map((r) => r.roomId).filter((id): id is number => id != null))];
  const loadValues = () => RollValue.findAll({ where: { rollId: ids }, order: [['rollId', 'ASC'], ['position', 'ASC']], transaction });
  const loadWhispers = () => RollWhisper.findAll({ where: { rollId: ids }, transaction });
  // Outside a transaction the reads run side by side on pooled connections; inside one they share its
  // connection, which takes one query at a time.
  const [[rooms, participants], values, whispers] = transaction
    ? [await readRooms(roomIds, transaction), await loadValues(), await loadWhispers()]
    : await Promise.all([readRooms(roomIds), loadValues(), loadWhispers()]);
  const users = await readUsers([...rolls.map((r) => r.userId), ...rooms.map((r) => r.userId), ...participants.map((p) => p.userId)], transaction);
  const roomById = wireRooms(rooms, participants, users);
  const participantById = new Map(participants.map((p) => [p.id, p]));
  const valuesOf = group(values, (v) => v.rollId);
  const whispersOf = group(whispers, (w) => w.rollId);
  for (const w of whispers) Object.assign(w, { participant: participantById.get(w.participantId) ?? null });
  for (const roll of rolls) {
    roll.user = users.get(roll.userId);
    roll.room = roll.roomId != null ? (roomById.get(roll.roomId) ?? null) : null;
    roll.values = valuesOf.get(roll.id) ?? [];
    roll.whispers = whispersOf.get(roll.id) ?? [];
  }
}

/** The rooms of rolls (deleted ones too) with owner and participants, as loadRolls() embeds them, by id. */
export async function loadRollRooms(roomIds: readonly number[], transaction?: Transaction): Promise<Map<number, Room>> {
  const [rooms, participants] = await readRooms([...new Set(roomIds)], transaction);
  if (!rooms.length) return new Map();
  const users = await readUsers([...rooms.map((r) => r.userId), ...participants.map((p) => p.userId)], transaction);
  return wireRooms(rooms, participants, users);
}

/** Rooms (deleted ones too) and their participants, unwired. */
async function readRooms(roomIds: readonly number[], transaction?: Transaction): Promise<[Room[], Participant[]]> {
  if (!roomIds.length) return [[], []];
  const loadRooms = () => Room.findAll({ where: { id: [...roomIds] }, paranoid: false, transaction });
  const loadParticipants = () => Participant.findAll({ where: { roomId: [...roomIds] }, order: [['position', 'ASC'], ['id', 'ASC']], transaction });
  return transaction ? [await loadRooms(), await loadParticipants()] : Promise.all([loadRooms(), loadParticipants()]);
}

async function readUsers(userIds: readonly number[], transaction?: Transaction): Promise<Map<number, User>> {
  const unique = [...new Set(userIds)];
  const users = unique.length ? await User.findAll({ where: { id: unique }, transaction }) : [];
  return new Map(users.map((u) => [u.id, u]));
}

/** Each room with its owner and participants (each with its user), by id. */
function wireRooms(rooms: Room[], participants: Participant[], users: ReadonlyMap<number, User>): Map<number, Room> {
  const byRoom = group(participants, (p) => p.roomId);
  for (const p of participants) p.user = users.get(p.userId);
  for (const room of rooms) {
    room.user = users.get(room.userId);
    room.participants = byRoom.get(room.id) ?? [];
  }
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
