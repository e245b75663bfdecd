import { Op, type WhereOptions } from 'sequelize';
import { db } from '../db';
import type { RollRecord, RollValueRecord } from '../db/records';
import { placeholders, type Query } from '../db/sql';
import { BadRequestError, ForbiddenError, type ErrorDetail } from '../errors';
import { Roll, RollValue, RollWhisper, type User } from '../db/models';
import type { RoomRecord as Room } from '../rooms/store/records';
import { authorizeRollChange } from '../policies/rolls';
import { authorizeRoomOwner, isParticipant } from '../rooms/policy';
import { publish } from '../events/bus';
import { requireRoomBySlug } from '../rooms/access';
import { loadRolls, loadRollsByUuid } from './rollsLoad';

/** The flags a roller may set on a die (spec 3): hide or show its value, take it off the board, clear it. */
export interface DieFlags {
  isHidden?: boolean;
  isVisible?: boolean;
  isCleared?: boolean;
}

export interface DieChange extends DieFlags {
  uuid: string;
}

export interface RollChange {
  uuid: string;
  dice: DieChange[];
}

/** 400: a die uuid that is not a die of that roll. */
export class UnknownRollValueError extends BadRequestError {
  constructor(details: ErrorDetail[]) {
    super(details[0]!.message + (details.length > 1 ? ` (and ${details.length - 1} more)` : ''), 'unknown_roll_value', details);
  }
}

const FLAG_COLUMNS = ['isHidden', 'isVisible', 'isCleared'] as const;
const FLAG_COLUMN_NAMES = { isHidden: 'is_hidden', isVisible: 'is_visible', isCleared: 'is_cleared' } as const;

/**
 * PATCH /roll/{uuid} and PATCH /roll: set flags on dice of the user's own rolls, all or nothing, in one
 * transaction. A roll the user cannot see is a 404, another player's roll a 403, a die uuid not in its
 * roll a 400 naming it (`pathOf(i)` is where that roll sits in the request, for the error's path).
 * Answers the rolls (changed or not) in request order; announces the changed ones after commit.
 */
export async function updateRolls(user: Pick<User, 'id'>, changes: RollChange[], pathOf: (i: number) => string): Promise<RollRecord[]> {
  const { ids, changedIds } = await db().sql.transaction(async (query) => {
    const rolls = await loadRollsByUuid(changes.map((c) => c.uuid), { query });
    const writes: { value: RollValueRecord; flags: DieFlags }[] = [];
    const unknown: ErrorDetail[] = [];
    changes.forEach((change, i) => {
      const roll = authorizeRollChange(rolls.get(change.uuid.toLowerCase()), user.id, change.uuid);
      const byUuid = new Map((roll.values ?? []).map((v) => [v.uuid.toLowerCase(), v]));
      change.dice.forEach((die, j) => {
        const value = byUuid.get(die.uuid.toLowerCase());
        if (!value) {
          unknown.push({ path: `${pathOf(i)}dice[${j}].uuid`, message: `The roll "${roll.uuid}" has no die "${die.uuid}".` });
          return;
        }
        writes.push({ value, flags: die });
      });
    });
    if (unknown.length) throw new UnknownRollValueError(unknown);
    const ids = changes.map((c) => rolls.get(c.uuid.toLowerCase())!.id);
    return { ids, changedIds: await applyFlags(writes, query) };
  });
  const rolls = await loadRolls(ids);
  announceUpdates(rolls.filter((r) => changedIds.has(r.id)));
  return rolls;
}

/**
 * PATCH /room/{slug}/roll: set flags on every die of the user's rolls in that room (clearing one's own dice
 * off the table, hiding or showing them all). Participants only. Answers the rolls that changed.
 */
export async function updateRoomRolls(user: User, slug: string, flags: DieFlags): Promise<RollRecord[]> {
  const room = await requireRoomBySlug(slug);
  if (!isParticipant(room, user.id)) throw new ForbiddenError('Only participants of this room may change their rolls in it.');
  const differs = differsFrom(flags);
  const changedIds = await db().transaction(async (transaction) => {
    const rows = await RollValue.findAll({
      attributes: ['rollId'],
      where: { ...differs, rollId: { [Op.in]: ownRollsIn(room.id, user.id) } },
      group: ['roll_id'],
      transaction,
    });
    const ids = rows.map((r) => r.rollId);
    if (!ids.length) return [];
    const now = new Date();
    await RollValue.update({ ...set(flags), updatedAt: now }, { where: { ...differs, rollId: ids }, transaction, silent: true });
    await Roll.update({ updatedAt: now }, { where: { id: ids }, transaction, silent: true });
    return ids;
  });
  const rolls = await loadRolls(changedIds.sort((a, b) => b - a));
  announceUpdates(rolls);
  return rolls;
}

/**
 * DELETE /roll?room={slug}: the room's owner clears the table. The room's rolls are deleted (values and
 * whispers with them), not marked: clearing is how an owner starts afresh, and it is the one way a
 * room's history is removed. Announced as one roll.deleted with every uuid (a whispered roll's to its
 * audience only).
 */
export async function clearRoomTable(user: User, slug: string): Promise<{ room: Room; deleted: string[] }> {
  const room = await requireRoomBySlug(slug);
  authorizeRoomOwner(room, user, 'clear its table');
  const deleted = await db().transaction(async (transaction) => {
    const rolls = await Roll.findAll({ attributes: ['id', 'uuid', 'userId', 'isWhispered'], where: { roomId: room.id }, transaction });
    if (!rolls.length) return [];
    const ids = rolls.map((r) => r.id);
    // Who could see each whispered roll: its RollDeleteEvent goes to them alone (its uuid is news to others).
    const whispered = rolls.filter((r) => r.isWhispered).map((r) => r.id);
    const whispers = whispered.length ? await RollWhisper.findAll({ attributes: ['rollId', 'userId'], where: { rollId: whispered }, transaction }) : [];
    // Children first: the foreign keys cascade too, but this does not depend on SQLite's foreign_keys pragma.
    await RollValue.destroy({ where: { rollId: ids }, transaction });
    await RollWhisper.destroy({ where: { rollId: ids }, transaction });
    await Roll.destroy({ where: { id: ids }, transaction });
    return rolls.map((r) => ({
      uuid: r.uuid,
      audience: r.isWhispered ? [r.userId, ...whispers.filter((w) => w.rollId === r.id).map((w) => w.userId)] : null,
    }));
  });
  if (deleted.length) publish({ type: 'roll.deleted', rolls: deleted, roomId: room.id, slug: room.slug });
  return { room, deleted: deleted.map((r) => r.uuid) };
}

/** Writes only what changes, one UPDATE per distinct set of flags; answers the ids of the rolls touched. */
async function applyFlags(writes: { value: RollValueRecord; flags: DieFlags }[], query: Query): Promise<Set<number>> {
  // The last change of a die wins when a request names it twice.
  const finalFlags = new Map<number, { value: RollValueRecord; flags: DieFlags }>();
  for (const w of writes) {
    const prior = finalFlags.get(w.value.id);
    finalFlags.set(w.value.id, { value: w.value, flags: { ...prior?.flags, ...definedFlags(w.flags) } });
  }
  const batches = new Map<string, { flags: DieFlags; ids: number[] }>();
  const touched = new Set<number>();
  for (const { value, flags } of finalFlags.values()) {
    const effective: DieFlags = {};
    for (const k of FLAG_COLUMNS) if (flags[k] !== undefined && Boolean(value[k]) !== flags[k]) effective[k] = flags[k];
    if (!Object.keys(effective).length) continue;
    const key = JSON.stringify(effective);
    const batch = batches.get(key) ?? { flags: effective, ids: [] };
    batch.ids.push(value.id);
    batches.set(key, batch);
    touched.add(value.rollId);
  }
  if (!touched.size) return touched;
  const now = new Date();
  for (const { flags, ids } of batches.values()) {
    const columns = FLAG_COLUMNS.filter((k) => flags[k] !== undefined);
    const assignments = columns.map((k, i) => `${FLAG_COLUMN_NAMES[k]} = $${i + 1}`);
    await query(
      `UPDATE roll_values SET ${assignments.join(', ')}, updated_at = $${columns.length + 1} WHERE id IN (${placeholders(ids.length, columns.length + 2)})`,
      [...columns.map((k) => flags[k]), now, ...ids],
    );
  }
  const rollIds = [...touched];
  await query(`UPDATE rolls SET updated_at = $1 WHERE id IN (${placeholders(rollIds.length, 2)})`, [now, ...rollIds]);
  return touched;
}

function definedFlags(flags: DieFlags): DieFlags {
  const out: DieFlags = {};
  for (const k of FLAG_COLUMNS) if (flags[k] !== undefined) out[k] = flags[k];
  return out;
}

function set(flags: DieFlags): Partial<Pick<RollValue, 'isHidden' | 'isVisible' | 'isCleared'>> {
  return definedFlags(flags);
}

/** Values where at least one of the given flags has another value. */
function differsFrom(flags: DieFlags): WhereOptions<RollValue> {
  const or: WhereOptions<RollValue>[] = [];
  for (const k of FLAG_COLUMNS) if (flags[k] !== undefined) or.push({ [k]: !flags[k] });
  return { [Op.or]: or };
}

/** Subquery: ids of `userId`'s rolls in room `roomId`. */
function ownRollsIn(roomId: number, userId: number) {
  const sequelize = Roll.sequelize!;
  return sequelize.literal(`(SELECT id FROM rolls WHERE room_id = ${Number(roomId)} AND user_id = ${Number(userId)})`);
}

/** One roll.updated per room (after commit). */
function announceUpdates(rolls: RollRecord[]): void {
  const byRoom = new Map<string, { roomId: number | null; slug: string | null; ids: number[] }>();
  for (const roll of rolls) {
    const key = String(roll.roomId ?? 'none');
    const entry = byRoom.get(key) ?? { roomId: roll.roomId ?? null, slug: roll.room?.slug ?? null, ids: [] };
    entry.ids.push(roll.id);
    byRoom.set(key, entry);
  }
  for (const { roomId, slug, ids } of byRoom.values()) publish({ type: 'roll.updated', rollIds: ids, roomId, slug });
}
