import { perApp } from '../../lib/appContext';
import { db } from '../../db';
import { chunks } from '../../db/inList';
import { asBool, placeholders, toJson, type Query } from '../../db/sql';
import type { RollRecord, RollValueRecord, WhisperRecord } from './records';
import { insertOutboxIn, outboxCte } from '../../outbox/store';

/**
 * Every write of rolls, roll_values and roll_whispers, in plain SQL (db/sql.ts): the hottest write of
 * the service (POST /roll, docs/performance.md) and the die flags of both PATCH paths go one way.
 * The dialect is decided here, never by a use case.
 */

/** An open transaction of the rolls store: pass it to the store's reads and writes. */
export type RollsTransaction = Query;

/** Statements in one transaction (on SQLite under the database's writer lock, db/index.ts). */
export function inTransaction<T>(fn: (tx: RollsTransaction) => Promise<T>): Promise<T> {
  return db().sql.transaction(fn);
}

/**
 * Write a new roll, its values and whispers, and set the new rows' ids on the records. On PostgreSQL
 * one statement (insertRollAtOnce); on SQLite, and for a roll without values, one transaction.
 */
export async function insertRoll(roll: RollRecord, values: RollValueRecord[], whispers: WhisperRecord[], announce?: RollAnnouncement): Promise<RollWritten> {
  return db().dialect === 'postgres' && values.length
    ? insertRollInTransaction(db().sql.query, roll, values, whispers, announce)
    : inTransaction((query) => insertRollInTransaction(query, roll, values, whispers, announce));
}

/**
 * insertRoll() in the caller's transaction (the fairness ledger's, src/fairness/draws.ts): on
 * PostgreSQL still one statement; answers the outbox row's id when announced.
 */
export async function insertRollInTransaction(
  query: Query,
  roll: RollRecord,
  values: RollValueRecord[],
  whispers: WhisperRecord[],
  announce?: RollAnnouncement,
): Promise<RollWritten> {
  if (db().dialect === 'postgres' && values.length) return (await insertRollsAtOnce(query, [{ roll, values, whispers, announce }]))[0]!;
  const recorded = await insertRollIn(query, roll, values, whispers);
  const outboxId = announce ? await insertOutboxIn(query, ROLL_CREATED, { rollId: roll.id, roomId: roll.roomId, slug: announce.slug }) : null;
  return { outboxId, recorded };
}

/**
 * A roll made in a room is announced live: its outbox row (src/outbox) is written with it, so that
 * another instance announces it if this one dies before it does. insertRoll answers the row's id.
 */
export interface RollAnnouncement {
  slug: string;
}

/**
 * What else a roll's creation writes with it, atomically: the webhooks' `roll.created` deliveries
 * register here (src/webhooks/listen.ts), so that the rolls store never imports a feature that reads
 * rolls. On PostgreSQL a CTE of the roll's own statement, elsewhere a statement in its transaction.
 */
export interface RollCreationRecorder {
  /** a data-modifying CTE over the roll's row (`rollAlias` names its CTE, with column `id`); pushes its parameters */
  cte(params: unknown[], rollAlias: string, roll: RollRecord): string;
  /** the same in the caller's transaction, once `roll.id` is set; answers the rows written */
  write(query: Query, roll: RollRecord): Promise<number>;
}
/** This server's recorder (lib/appContext.ts). */
const recording = perApp(() => ({ recorder: null as RollCreationRecorder | null }));

/** Register what every roll's creation records with it; answers the undo. */
export function recordWithEveryRoll(r: RollCreationRecorder): () => void {
  const state = recording();
  state.recorder = r;
  return () => {
    if (state.recorder === r) state.recorder = null;
  };
}

/** The outbox event of a roll's creation (src/realtime/index.ts announces it again when the outbox sweeper hands it over). */
export const ROLL_CREATED = 'roll.created';

const ROLL_INSERT = `INSERT INTO rolls (uuid, user_id, room_id, direction, velocity, equation, total_value, operator, label, external_id, is_whispered, ledger_id, client_seed, created_at, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING id`;
/** ROLL_INSERT made from the guard's row (`g`, insertRollsAtOnce): no row without it. */
const ROLL_INSERT_FROM_GUARD = ROLL_INSERT.replace(/VALUES \((\$[^)]*)\) RETURNING id$/, 'SELECT $1 FROM g RETURNING id');
const VALUE_COLUMNS = [
  'uuid',
  'roll_id',
  'position',
  'die_index',
  'type',
  'theme',
  'value',
  'value_to_display',
  'numeric_value',
  'origin',
  'label',
  'meta',
  'is_hidden',
  'is_user_value',
  'is_visible',
  'is_cleared',
  'is_dropped',
  'is_success',
  'is_failure',
  'is_compounded',
  'is_penetrated',
  'ledger_id',
  'draw',
  'draw_faces',
  'created_at',
  'updated_at',
];

/** The parameters of ROLL_INSERT. */
function rollParams(roll: RollRecord): unknown[] {
  return [
    roll.uuid,
    roll.userId,
    roll.roomId,
    roll.direction,
    roll.velocity,
    roll.equation,
    roll.totalValue,
    toJson(roll.operator),
    roll.label,
    roll.externalId,
    roll.isWhispered,
    roll.ledgerId ?? null,
    roll.clientSeed ?? null,
    roll.createdAt,
    roll.updatedAt,
  ];
}

/** A value's parameters in VALUE_COLUMNS order, but for roll_id (the second column), which the caller places. */
function valueParams(v: RollValueRecord): unknown[] {
  return [
    v.uuid,
    v.position,
    v.dieIndex,
    v.type,
    v.theme,
    v.value,
    toJson(v.valueToDisplay),
    v.numericValue,
    v.origin,
    v.label,
    toJson(v.meta),
    v.isHidden,
    v.isUserValue,
    v.isVisible,
    v.isCleared,
    v.isDropped,
    v.isSuccess,
    v.isFailure,
    v.isCompounded,
    v.isPenetrated,
    v.ledgerId ?? null,
    v.draw ?? null,
    v.drawFaces ?? null,
    v.createdAt,
    v.updatedAt,
  ];
}

/** Set the new rows' ids on the records: the roll's, and each value's by its position. */
function assignIds(
  rollId: number,
  roll: RollRecord,
  values: RollValueRecord[],
  whispers: WhisperRecord[],
  valueRows: { id: unknown; position: unknown }[],
): void {
  roll.id = rollId;
  const byPosition = new Map(valueRows.map((r) => [Number(r.position), Number(r.id)]));
  for (const v of values) {
    v.rollId = rollId;
    v.id = byPosition.get(v.position) ?? 0;
  }
  for (const w of whispers) w.rollId = rollId;
}

/** The roll, its values and whispers, in the caller's transaction (SQLite); sets the new rows' ids on the records. */
async function insertRollIn(query: Query, roll: RollRecord, values: RollValueRecord[], whispers: WhisperRecord[]): Promise<number> {
  const [inserted] = await query<{ id: unknown }>(ROLL_INSERT, rollParams(roll));
  const rollId = Number(inserted!.id);
  let valueRows: { id: unknown; position: unknown }[] = [];
  if (values.length) {
    const params: unknown[] = [];
    const tuples = values.map((v) => {
      const first = params.length + 1;
      const [uuid, ...rest] = valueParams(v);
      params.push(uuid, rollId, ...rest);
      return `(${placeholders(VALUE_COLUMNS.length, first)})`;
    });
    valueRows = await query(`INSERT INTO roll_values (${VALUE_COLUMNS.join(', ')}) VALUES ${tuples.join(', ')} RETURNING id, position`, params);
  }
  if (whispers.length) {
    const params = whispers.flatMap((w) => [rollId, w.participantId, w.userId]);
    await query(
      `INSERT INTO roll_whispers (roll_id, participant_id, user_id) VALUES ${whispers.map((_, i) => `(${placeholders(3, i * 3 + 1)})`).join(', ')}`,
      params,
    );
  }
  assignIds(rollId, roll, values, whispers, valueRows);
  const { recorder } = recording();
  return recorder ? recorder.write(query, roll) : 0;
}

/** What writing a roll made besides its rows: its outbox row's id (announced rolls), and the recorder's rows. */
export interface RollWritten {
  outboxId: number | null;
  /** rows the registered recorder wrote with the roll (webhook deliveries) */
  recorded: number;
}

/** A roll to write with its values and whispers (and its announcement, for a roll in a room). */
export interface RollToInsert {
  roll: RollRecord;
  values: RollValueRecord[];
  whispers: WhisperRecord[];
  announce?: RollAnnouncement;
}

/**
 * Several rolls in the caller's transaction (a fairness ledger's group, src/fairness/draws.ts): on
 * PostgreSQL one statement for all of them (insertRollsAtOnce), so a group costs one round trip
 * whatever its size; on SQLite one roll after the other. Answers each roll's outbox row id (or null).
 */
export async function insertRollsInTransaction(query: Query, items: RollToInsert[]): Promise<RollWritten[]> {
  if (db().dialect === 'postgres' && items.every((i) => i.values.length)) return insertRollsAtOnce(query, items);
  const out: RollWritten[] = [];
  for (const i of items) out.push(await insertRollInTransaction(query, i.roll, i.values, i.whispers, i.announce));
  return out;
}

/**
 * Rolls as one PostgreSQL statement: each roll's INSERT, its whispers', what the recorder adds
 * (webhook deliveries) and its outbox row in data-modifying CTEs (r0, w0, d0, o0, r1, ...), every value in the final INSERT naming its roll's id by
 * subquery. One statement is atomic by itself, so one roll is one round trip instead of four (BEGIN, two
 * or three INSERTs, COMMIT): the hottest write of the service. Every roll has at least one value.
 */
async function insertRollsAtOnce(query: Query, items: RollToInsert[], advance?: (params: unknown[]) => string): Promise<RollWritten[]> {
  const params: unknown[] = [];
  const ctes: string[] = [];
  // Guarded: each roll is inserted FROM the guard's row, so without it no roll row exists, and the
  // values and whispers naming their roll's id (NOT NULL) make PostgreSQL refuse the whole statement.
  if (advance) ctes.push(`g AS (${advance(params)})`);
  const valueTuples: string[] = [];
  const outboxes: string[] = [];
  const recordedCounts: string[] = [];
  const { recorder } = recording();
  items.forEach(({ roll, values, whispers, announce }, k) => {
    const first = params.length;
    params.push(...rollParams(roll));
    const insert = advance ? ROLL_INSERT_FROM_GUARD : ROLL_INSERT;
    ctes.push(`r${k} AS (${first === 0 ? insert : shiftPlaceholders(insert, first)})`);
    if (whispers.length) {
      const tuples = whispers.map((w) => {
        const at = params.length + 1;
        params.push(w.participantId, w.userId);
        return `((SELECT id FROM r${k}), ${placeholders(2, at)})`;
      });
      ctes.push(`w${k} AS (INSERT INTO roll_whispers (roll_id, participant_id, user_id) VALUES ${tuples.join(', ')})`);
    }
    if (recorder) {
      ctes.push(`d${k} AS (${recorder.cte(params, `r${k}`, roll)})`);
      recordedCounts.push(`(SELECT count(*) FROM d${k}) AS d${k}`);
    }
    if (announce) {
      const at = params.length + 1;
      params.push(ROLL_CREATED, Date.now(), roll.roomId, announce.slug);
      ctes.push(
        `o${k} AS (${outboxCte(`$${at}`, `$${at + 1}::bigint`, `json_build_object('rollId', r${k}.id, 'roomId', $${at + 2}::bigint, 'slug', $${at + 3}::text)`, `r${k}`)})`,
      );
      outboxes.push(`(SELECT id FROM o${k}) AS o${k}`);
    }
    for (const v of values) {
      const at = params.length + 1;
      params.push(...valueParams(v));
      valueTuples.push(`($${at}, (SELECT id FROM r${k}), ${placeholders(VALUE_COLUMNS.length - 2, at + 1)})`);
    }
  });
  const text =
    `WITH ${ctes.join(', ')} INSERT INTO roll_values (${VALUE_COLUMNS.join(', ')}) VALUES ${valueTuples.join(', ')} ` +
    `RETURNING ${['roll_id', 'id', 'position', 'uuid', ...outboxes, ...recordedCounts].join(', ')}`;
  const rows = await query<Record<string, unknown>>(text, params);
  const byUuid = new Map(rows.map((r) => [String(r.uuid).toLowerCase(), r]));
  return items.map(({ roll, values, whispers, announce }, k) => {
    const own = values.map((v) => byUuid.get(v.uuid.toLowerCase())!) as { id: unknown; position: unknown; roll_id: unknown }[];
    assignIds(Number(own[0]!.roll_id), roll, values, whispers, own);
    return { outboxId: announce ? Number(rows[0]![`o${k}`]) : null, recorded: recorder ? Number(rows[0]![`d${k}`]) : 0 };
  });
}

/**
 * insertRollsInTransaction's PostgreSQL statement, guarded by `advance` (a fairness ledger's move,
 * src/fairness/draws.ts): the rolls are written, without a transaction, only if the guard's CTE has
 * its row. Answers null, having written nothing, when it has not (the ledger had moved), and for rolls
 * without values, which the caller then writes under the ledger's lock.
 */
export async function insertRollsGuarded(query: Query, items: RollToInsert[], advance: (params: unknown[]) => string): Promise<RollWritten[] | null> {
  // A roll without values would have nothing to refuse the statement: those take the ledger's lock.
  if (!items.every((i) => i.values.length)) return null;
  try {
    return await insertRollsAtOnce(query, items, advance);
  } catch (err) {
    const e = err as { code?: string; column?: string };
    if (e.code === '23502' && e.column === 'roll_id') return null;
    throw err;
  }
}

/** A statement's `$n` placeholders moved up by `by` (the rolls after the first of one statement). */
function shiftPlaceholders(text: string, by: number): string {
  return text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + by}`);
}

/**
 * Hold the rolls with these uuids until the caller's transaction ends (PostgreSQL: SELECT ... FOR UPDATE;
 * SQLite's single writer serializes already): two requests adding dice to one roll add them one after
 * the other, each reading the roll the other left.
 */
export async function lockRolls(tx: RollsTransaction, uuids: readonly string[]): Promise<void> {
  if (db().dialect !== 'postgres' || !uuids.length) return;
  for (const list of chunks([...new Set(uuids.map((u) => u.toLowerCase()))])) {
    await tx(`SELECT id FROM rolls WHERE uuid IN (${placeholders(list.length)}) ORDER BY id FOR UPDATE`, list);
  }
}

/**
 * Append values to a roll in the caller's transaction (dice added to it by PATCH /roll/{uuid}), and set
 * its new total and equation; sets the new rows' ids on the records.
 */
export async function appendRollValues(
  tx: RollsTransaction,
  rollId: number,
  values: RollValueRecord[],
  totals: { totalValue: number; equation: string },
  now: Date,
): Promise<void> {
  if (!values.length) return;
  const params: unknown[] = [];
  const tuples = values.map((v) => {
    const first = params.length + 1;
    const [uuid, ...rest] = valueParams(v);
    params.push(uuid, rollId, ...rest);
    return `(${placeholders(VALUE_COLUMNS.length, first)})`;
  });
  const rows = await tx<{ id: unknown; position: unknown }>(
    `INSERT INTO roll_values (${VALUE_COLUMNS.join(', ')}) VALUES ${tuples.join(', ')} RETURNING id, position`,
    params,
  );
  const byPosition = new Map(rows.map((r) => [Number(r.position), Number(r.id)]));
  for (const v of values) v.id = byPosition.get(v.position) ?? 0;
  await tx('UPDATE rolls SET total_value = $1, equation = $2, updated_at = $3 WHERE id = $4', [totals.totalValue, totals.equation, now, rollId]);
}

/** The flags a roller may set on a die (docs/spec.md §3): hide or show its value, take it off the board, clear it. */
export interface DieFlags {
  isHidden?: boolean;
  isVisible?: boolean;
  isCleared?: boolean;
}

export const FLAG_COLUMNS = ['isHidden', 'isVisible', 'isCleared'] as const;
const FLAG_COLUMN_NAMES = { isHidden: 'is_hidden', isVisible: 'is_visible', isCleared: 'is_cleared' } as const;

/** Which dice a flag change names: these roll values, or every die of a user's rolls in a room (of every roll in it without `userId`). */
export type DiceSelector = { valueIds: readonly number[] } | { roomId: number; userId?: number };

/**
 * Set die flags, in the caller's transaction: the one way both PATCH /roll (dice by id) and PATCH
 * /room/{slug}/roll (every die of a user's rolls in the room, or of all its rolls) write them. Each change writes only
 * the dice whose flags differ from it, stamps them and their rolls with `now`, and answers the ids of
 * the rolls it touched.
 */
export async function setDieFlags(tx: RollsTransaction, changes: { flags: DieFlags; dice: DiceSelector }[], now: Date): Promise<Set<number>> {
  const touched = new Set<number>();
  for (const { flags, dice } of changes) {
    const columns = FLAG_COLUMNS.filter((k) => flags[k] !== undefined);
    if (!columns.length) continue;
    const params: unknown[] = [...columns.map((k) => flags[k]), now];
    const set = `${columns.map((k, i) => `${FLAG_COLUMN_NAMES[k]} = $${i + 1}`).join(', ')}, updated_at = $${columns.length + 1}`;
    // Only what changes: a die already so keeps its updated_at, and its roll is not touched.
    const differs = `(${columns.map((k, i) => `${FLAG_COLUMN_NAMES[k]} <> $${i + 1}`).join(' OR ')})`;
    const statements: { where: string; params: unknown[] }[] = [];
    if ('valueIds' in dice) {
      for (const ids of chunks(dice.valueIds))
        statements.push({ where: `id IN (${placeholders(ids.length, params.length + 1)})`, params: [...params, ...ids] });
    } else {
      const first = params.length + 1;
      if (dice.userId === undefined)
        statements.push({ where: `roll_id IN (SELECT id FROM rolls WHERE room_id = $${first})`, params: [...params, dice.roomId] });
      else
        statements.push({
          where: `roll_id IN (SELECT id FROM rolls WHERE room_id = $${first} AND user_id = $${first + 1})`,
          params: [...params, dice.roomId, dice.userId],
        });
    }
    for (const { where, params: statementParams } of statements) {
      const rows = await tx<{ rollId: unknown }>(`UPDATE roll_values SET ${set} WHERE ${where} AND ${differs} RETURNING roll_id AS "rollId"`, statementParams);
      for (const row of rows) touched.add(Number(row.rollId));
    }
  }
  for (const ids of chunks([...touched])) await tx(`UPDATE rolls SET updated_at = $1 WHERE id IN (${placeholders(ids.length, 2)})`, [now, ...ids]);
  return touched;
}

/** A die's place on the board, percentages of its width (x) and depth (z), as the dddice renderer says it. */
export interface DiePosition {
  x: number;
  z: number;
  y?: number;
}

const twoDecimals = (n: number) => Math.round(n * 100) / 100;

/**
 * Keep where dice were put down in their `meta.position`: merged into the meta the roll request gave
 * the die when that is an object, the whole meta otherwise (a die rolled without meta, or with a
 * scalar one). Only dice whose position changes are written; answers the ids of the rolls touched.
 */
export async function setDiePositions(tx: RollsTransaction, moves: { value: RollValueRecord; position: DiePosition }[], now: Date): Promise<Set<number>> {
  const touched = new Set<number>();
  for (const { value, position } of moves) {
    const kept: DiePosition = { x: twoDecimals(position.x), z: twoDecimals(position.z), ...(position.y === undefined ? {} : { y: twoDecimals(position.y) }) };
    const prior = value.meta && typeof value.meta === 'object' && !Array.isArray(value.meta) ? (value.meta as Record<string, unknown>) : {};
    if (JSON.stringify(prior.position) === JSON.stringify(kept)) continue;
    await tx('UPDATE roll_values SET meta = $1, updated_at = $2 WHERE id = $3', [toJson({ ...prior, position: kept }), now, value.id]);
    touched.add(value.rollId);
  }
  for (const ids of chunks([...touched])) await tx(`UPDATE rolls SET updated_at = $1 WHERE id IN (${placeholders(ids.length, 2)})`, [now, ...ids]);
  return touched;
}

/** A deleted roll, and who could see it (null: the whole room; a whispered roll: its roller and recipients). */
export interface DeletedRoll {
  uuid: string;
  audience: number[] | null;
}

/**
 * Delete every roll of a room, values and whispers with them, in one transaction; answers what was
 * deleted and who could see each roll (a whispered roll's deletion is news to its audience alone).
 */
export function deleteRoomRolls(roomId: number, record?: (tx: RollsTransaction, deleted: DeletedRoll[]) => Promise<void>): Promise<DeletedRoll[]> {
  return inTransaction(async (tx) => {
    const rolls = await tx<{ id: unknown; uuid: string; userId: unknown; isWhispered: unknown }>(
      'SELECT id, uuid, user_id AS "userId", is_whispered AS "isWhispered" FROM rolls WHERE room_id = $1 ORDER BY id',
      [roomId],
    );
    if (!rolls.length) return [];
    const whispers = rolls.some((r) => asBool(r.isWhispered))
      ? await tx<{ rollId: unknown; userId: unknown }>(
          'SELECT w.roll_id AS "rollId", w.user_id AS "userId" FROM roll_whispers w JOIN rolls r ON r.id = w.roll_id WHERE r.room_id = $1 AND r.is_whispered = TRUE',
          [roomId],
        )
      : [];
    // Children first: the foreign keys cascade too, but this does not depend on SQLite's foreign_keys pragma.
    // By id: a roll made meanwhile (PostgreSQL reads committed rows) is not deleted unannounced.
    for (const ids of chunks(rolls.map((r) => Number(r.id)))) {
      const list = placeholders(ids.length);
      await tx(`DELETE FROM roll_values WHERE roll_id IN (${list})`, ids);
      await tx(`DELETE FROM roll_whispers WHERE roll_id IN (${list})`, ids);
      await tx(`DELETE FROM rolls WHERE id IN (${list})`, ids);
    }
    const deleted = rolls.map((r) => ({
      uuid: r.uuid,
      audience: asBool(r.isWhispered) ? [Number(r.userId), ...whispers.filter((w) => Number(w.rollId) === Number(r.id)).map((w) => Number(w.userId))] : null,
    }));
    // What must be written with the deletion (its events: rolls/clear.ts).
    await record?.(tx, deleted);
    return deleted;
  });
}
