import { db } from '../../db';
import { placeholders, type Query } from '../../db/sql';
import { readRollRooms } from '../../rooms/store/forRolls';
import { cachedLiveRoom, cachedRoom, forRoll } from '../../rooms/rollRoomCache';
import { toUser, userColumns } from '../../users/store';
import { attachFairness } from '../../fairness/proofs';
import {
  rollColumns,
  rollValueColumns,
  rollValuesJson,
  toRoll,
  toRollValue,
  toRollValuesFromJson,
  type RollRecord,
  type RollValueRecord,
  type RoomRecord,
  type WhisperRecord,
} from './records';

/**
 * Loading rolls the way presentRoll() and canSeeRoll() need them: user, room (deleted rooms too) with its
 * owner and every participant, values in order, whispers with their participants. Plain SQL and plain
 * records (store/records.ts), a fixed number of queries whatever the number of rolls (batched by id): the
 * realtime fan-out and the history page call this with many ids. Model instances cost more CPU than
 * the queries did (docs/performance.md).
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A string that can be a uuid column value (anything else would be a database error on PostgreSQL). */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

export interface LoadOptions {
  /** an open transaction (store/write.ts inTransaction); default: the pool */
  query?: Query;
}

/** The rolls with these ids, fully loaded, in the order of `ids` (ids with no roll are skipped). */
export async function loadRolls(ids: readonly number[], options: LoadOptions = {}): Promise<RollRecord[]> {
  const unique = [...new Set(ids)];
  if (!unique.length) return [];
  const rolls = await loadWhere(`r.id IN (${placeholders(unique.length)})`, unique, options);
  const byId = new Map(rolls.map((r) => [r.id, r]));
  return unique.flatMap((id) => byId.get(id) ?? []);
}

/**
 * The roll with this uuid, fully loaded, or null (also for strings that are not uuids). GET /roll/{uuid}:
 * the roll and its values are asked for side by side, each by the uuid; its room comes from the
 * in-process room cache (rooms/rollRoomCache.ts), so the answer usually takes one round trip to the
 * database (a whispered roll's whispers, a room not cached, or a roller or recipient that room has not
 * yet read, a second).
 */
export async function loadRollByUuid(uuid: string, options: LoadOptions = {}): Promise<RollRecord | null> {
  if (!isUuid(uuid)) return null;
  const key = [uuid.toLowerCase()];
  if (options.query) {
    const [roll] = await loadWhere('r.uuid = $1', key, options);
    return roll ?? null;
  }
  const { sql, dialect } = db();
  const query = sql.query;
  const rows = await query(
    `SELECT ${rollColumns('r')}, ${userColumns('u', 'u_')}, ${rollValuesJson(dialect, 'r')} AS "valuesJson" FROM rolls r JOIN users u ON u.id = r.user_id WHERE r.uuid = $1`,
    key,
  );
  const row = rows[0];
  if (!row) return null;
  const roll: RollRecord = Object.assign(toRoll(row), { user: toUser(row, 'u_') });
  roll.values = toRollValuesFromJson(row.valuesJson);
  const [room, whispers] = await Promise.all([
    roll.roomId != null ? cachedRoom(query, roll.roomId) : Promise.resolve(null),
    roll.isWhispered ? readWhispers([roll.id], query) : Promise.resolve([]),
    attachFairness([roll]),
  ]);
  roll.room = room
    ? await forRoll(
        query,
        room,
        roll.userId,
        whispers.map((w) => w.participantId),
      )
    : null;
  const seats = new Map((roll.room?.participants ?? []).map((p) => [p.id, p]));
  roll.whispers = whispers.map((w) => ({ ...w, participant: seats.get(w.participantId) ?? null }));
  return roll;
}

/** The rolls with these uuids, fully loaded, keyed by lower-case uuid (unknown or malformed uuids are absent). */
export async function loadRollsByUuid(uuids: readonly string[], options: LoadOptions = {}): Promise<Map<string, RollRecord>> {
  const wanted = [...new Set(uuids.filter(isUuid).map((u) => u.toLowerCase()))];
  if (!wanted.length) return new Map();
  const rolls = await loadWhere(`r.uuid IN (${placeholders(wanted.length)})`, wanted, options);
  return new Map(rolls.map((r) => [r.uuid.toLowerCase(), r]));
}

async function loadWhere(where: string, params: unknown[], options: LoadOptions): Promise<RollRecord[]> {
  const query = options.query ?? db().sql.query;
  const rows = await query(`SELECT ${rollColumns('r')}, ${userColumns('u', 'u_')} FROM rolls r JOIN users u ON u.id = r.user_id WHERE ${where}`, params);
  const rolls = rows.map((row) => Object.assign(toRoll(row), { user: toUser(row, 'u_') }));
  if (rolls.length) await attachRelations(rolls, query, options.query !== undefined);
  return rolls;
}

/**
 * Values, whispers and rooms of rolls already read: side by side on pooled connections, one after
 * the other inside a transaction (its one connection takes one query at a time).
 */
async function attachRelations(rolls: RollRecord[], query: Query, inTransaction: boolean): Promise<void> {
  const ids = rolls.map((r) => r.id);
  const whisperedIds = rolls.filter((r) => r.isWhispered).map((r) => r.id);
  const roomIds = [...new Set(rolls.flatMap((r) => (r.roomId != null ? [r.roomId] : [])))];
  const rollerIds = [...new Set(rolls.map((r) => r.userId))];
  const reads = [
    () => readValues(ids, query),
    () => readWhispers(whisperedIds, query),
    () =>
      roomIds.length
        ? readRollRooms(
            query,
            {
              rooms: `r.id IN (${placeholders(roomIds.length)})`,
              involved: `p.user_id IN (${placeholders(rollerIds.length, roomIds.length + 1)}) OR p.id IN (SELECT participant_id FROM roll_whispers WHERE roll_id IN (${placeholders(whisperedIds.length || 1, roomIds.length + rollerIds.length + 1)}))`,
              params: [...roomIds, ...rollerIds, ...(whisperedIds.length ? whisperedIds : [0])],
              roomParams: roomIds.length,
            },
            inTransaction,
          )
        : Promise.resolve([]),
  ] as const;
  const [values, whispers, rooms] = inTransaction
    ? [await reads[0](), await reads[1](), await reads[2]()]
    : await Promise.all([reads[0](), reads[1](), reads[2]()]);
  const valuesOf = group(values, (v) => v.rollId);
  const whispersOf = group(whispers, (w) => w.rollId);
  const roomById = new Map(rooms.map((r) => [r.id, r]));
  for (const roll of rolls) {
    roll.room = roll.roomId != null ? (roomById.get(roll.roomId) ?? null) : null;
    roll.values = valuesOf.get(roll.id) ?? [];
    const seats = new Map((roll.room?.participants ?? []).map((p) => [p.id, p]));
    roll.whispers = (whispersOf.get(roll.id) ?? []).map((w) => ({ ...w, participant: seats.get(w.participantId) ?? null }));
  }
  // Proofs come from the pool (batches, mostly cached): never inside a transaction, whose one SQLite
  // connection the pool would wait for; what is loaded in one is reloaded after it to be presented.
  if (!inTransaction) await attachFairness(rolls);
}

async function readValues(rollIds: number[], query: Query): Promise<RollValueRecord[]> {
  if (!rollIds.length) return [];
  const rows = await query(
    `SELECT ${rollValueColumns('v')} FROM roll_values v WHERE v.roll_id IN (${placeholders(rollIds.length)}) ORDER BY v.roll_id, v.position`,
    rollIds,
  );
  return rows.map(toRollValue);
}

async function readWhispers(rollIds: number[], query: Query): Promise<WhisperRecord[]> {
  if (!rollIds.length) return [];
  const rows = await query<{ rollId: unknown; participantId: unknown; userId: unknown }>(
    `SELECT w.roll_id AS "rollId", w.participant_id AS "participantId", w.user_id AS "userId" FROM roll_whispers w WHERE w.roll_id IN (${placeholders(rollIds.length)})`,
    rollIds,
  );
  return rows.map((w) => ({ rollId: Number(w.rollId), participantId: Number(w.participantId), userId: Number(w.userId) }));
}

/**
 * The live room with this slug as a roll by `userId` (whispering to participants `whisperIds`) embeds
 * it (readRollRooms), from the in-process room cache (rooms/rollRoomCache.ts); null when there is none.
 */
export async function loadRollRoomBySlug(slug: string, userId: number, whisperIds: readonly number[] = []): Promise<RoomRecord | null> {
  const query = db().sql.query;
  const room = await cachedLiveRoom(query, slug);
  return room ? forRoll(query, room, userId, whisperIds) : null;
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
