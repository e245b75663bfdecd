import { BadRequestError, NotFoundError, type ErrorDetail } from '../errors';
import { publish } from '../events/bus';
import { eventKey, recordInTransaction } from '../events/record';
import { requireRoomBySlug } from '../rooms/access';
import { authorizeOthersDiceChange, authorizeRollChange, authorizeRoomRollsChange, canSeeRoll } from './policy';
import { loadRolls, loadRollsByUuid } from './store/load';
import type { RollRecord, RollValueRecord, UserRecord } from './store/records';
import { appendRollValues, FLAG_COLUMNS, inTransaction, lockRolls, setDieFlags, setDiePositions, type DieFlags, type DiePosition } from './store/write';
import { throwAddedDice, type AddedDie } from './addDice';
import { LedgerNotReady, prepareLedger } from '../fairness/draws';

export type { DieFlags, DiePosition };

export interface DieChange extends DieFlags {
  uuid: string;
  /** Where the die was put down (`meta.position`): kept in the die's meta, shown by every view of the roll. */
  position?: DiePosition;
}

export interface RollChange {
  uuid: string;
  dice: DieChange[];
  /** dice to throw and add to the roll (PATCH /roll/{uuid} entries with a `type` and no `uuid`: addDice.ts) */
  added?: AddedDie[];
}

/** 400: a die uuid that is not a die of that roll. */
export class UnknownRollValueError extends BadRequestError {
  constructor(details: ErrorDetail[]) {
    super(details[0]!.message + (details.length > 1 ? ` (and ${details.length - 1} more)` : ''), 'unknown_roll_value', details);
  }
}

/**
 * PATCH /roll/{uuid} and PATCH /roll: set flags on dice of the user's own rolls, and (PATCH /roll/{uuid})
 * throw dice added to it (addDice.ts), all or nothing, in one transaction. A roll the user cannot see is a 404, another player's roll a 403, a die uuid not in its
 * roll a 400 naming it (`pathOf(i)` is where that roll sits in the request, for the error's path).
 * Answers the rolls (changed or not) in request order; announces the changed ones after commit.
 */
export async function updateRolls(user: Pick<UserRecord, 'id'>, changes: RollChange[], pathOf: (i: number) => string): Promise<RollRecord[]> {
  try {
    return await updateRollsOnce(user, changes, pathOf);
  } catch (err) {
    // Dice added to a roll whose ledger must first publish more leaves (or exist): once more after that.
    if (!(err instanceof LedgerNotReady)) throw err;
    await prepareLedger(err);
    return updateRollsOnce(user, changes, pathOf);
  }
}

async function updateRollsOnce(user: Pick<UserRecord, 'id'>, changes: RollChange[], pathOf: (i: number) => string): Promise<RollRecord[]> {
  const key = eventKey();
  const { ids, changedIds } = await inTransaction(async (tx) => {
    await lockRolls(
      tx,
      changes.filter((c) => c.added?.length).map((c) => c.uuid),
    );
    const rolls = await loadRollsByUuid(
      changes.map((c) => c.uuid),
      { query: tx },
    );
    const writes: { value: RollValueRecord; flags: DieFlags }[] = [];
    const moves = new Map<number, { value: RollValueRecord; position: DiePosition }>();
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
        if (die.position) moves.set(value.id, { value, position: die.position });
      });
    });
    if (unknown.length) throw new UnknownRollValueError(unknown);
    const ids = changes.map((c) => rolls.get(c.uuid.toLowerCase())!.id);
    const now = new Date();
    const changedIds = await setDieFlags(tx, flagChanges(writes), now);
    for (const id of await setDiePositions(tx, [...moves.values()], now)) changedIds.add(id);
    for (const change of changes) {
      if (!change.added?.length) continue;
      const roll = rolls.get(change.uuid.toLowerCase())!;
      const added = await throwAddedDice(user.id, roll, change.added, now, tx);
      await appendRollValues(tx, roll.id, added.values, added, now);
      changedIds.add(roll.id);
    }
    await recordInTransaction(tx, { type: 'roll.updated', rollIds: [...changedIds], roomId: null, slug: null, key });
    return { ids, changedIds };
  });
  const rolls = await loadRolls(ids);
  announceUpdates(
    rolls.filter((r) => changedIds.has(r.id)),
    key,
  );
  return rolls;
}

/** Whose dice PATCH /room/{slug}/roll changes: the caller's, everyone's (`*`), or one participant's (by id). */
export type RoomDiceScope = 'own' | 'all' | { participantId: number };

/**
 * PATCH /room/{slug}/roll: set flags on every die of the user's rolls in that room (clearing one's own dice
 * off the table, hiding or showing them all); participants only. With `?participant=*` the room's owner
 * picks up every participant's dice, with `?participant=<id>` one participant's (policy.ts
 * authorizeOthersDiceChange: the owner only, and never hiding or revealing them). Answers the rolls that
 * changed that the caller may see; every changed roll is announced to its own audience.
 */
export async function updateRoomRolls(user: Pick<UserRecord, 'id'>, slug: string, flags: DieFlags, scope: RoomDiceScope = 'own'): Promise<RollRecord[]> {
  const room = await requireRoomBySlug(slug);
  let whose: number | undefined = user.id;
  if (scope === 'all') {
    authorizeOthersDiceChange(room, user.id, flags);
    whose = undefined;
  } else if (scope !== 'own') {
    const participant = room.participants?.find((p) => p.id === scope.participantId);
    if (!participant) throw new NotFoundError(`The room "${room.slug}" has no participant ${scope.participantId}.`);
    if (participant.userId !== user.id) authorizeOthersDiceChange(room, user.id, flags);
    whose = participant.userId;
  }
  if (whose === user.id) authorizeRoomRollsChange(room, user.id);
  const key = eventKey();
  const changedIds = await inTransaction(async (tx) => {
    const changed = await setDieFlags(tx, [{ flags: definedFlags(flags), dice: { roomId: room.id, userId: whose } }], new Date());
    await recordInTransaction(tx, { type: 'roll.updated', rollIds: [...changed], roomId: room.id, slug: room.slug, key });
    return changed;
  });
  const rolls = await loadRolls([...changedIds].sort((a, b) => b - a));
  announceUpdates(rolls, key);
  return rolls.filter((r) => canSeeRoll(r, user.id));
}

/**
 * The writes of a PATCH /roll as setDieFlags() changes: the last change of a die wins when a request
 * names it twice; only flags that differ from the die's are kept; dice with the same flags to set are
 * written by one statement.
 */
function flagChanges(writes: { value: RollValueRecord; flags: DieFlags }[]): { flags: DieFlags; dice: { valueIds: number[] } }[] {
  const finalFlags = new Map<number, { value: RollValueRecord; flags: DieFlags }>();
  for (const w of writes) {
    const prior = finalFlags.get(w.value.id);
    finalFlags.set(w.value.id, { value: w.value, flags: { ...prior?.flags, ...definedFlags(w.flags) } });
  }
  const batches = new Map<string, { flags: DieFlags; dice: { valueIds: number[] } }>();
  for (const { value, flags } of finalFlags.values()) {
    const effective: DieFlags = {};
    for (const k of FLAG_COLUMNS) if (flags[k] !== undefined && Boolean(value[k]) !== flags[k]) effective[k] = flags[k];
    if (!Object.keys(effective).length) continue;
    const key = JSON.stringify(effective);
    const batch = batches.get(key) ?? { flags: effective, dice: { valueIds: [] } };
    batch.dice.valueIds.push(value.id);
    batches.set(key, batch);
  }
  return [...batches.values()];
}

function definedFlags(flags: DieFlags): DieFlags {
  const out: DieFlags = {};
  for (const k of FLAG_COLUMNS) if (flags[k] !== undefined) out[k] = flags[k];
  return out;
}

/**
 * One roll.updated per room (after commit), under the key its rolls were recorded with in the
 * transaction (each roll's event id derives from it and the roll: events/record.ts).
 */
function announceUpdates(rolls: RollRecord[], key: string): void {
  const byRoom = new Map<string, { roomId: number | null; slug: string | null; ids: number[] }>();
  for (const roll of rolls) {
    const key = String(roll.roomId ?? 'none');
    const entry = byRoom.get(key) ?? { roomId: roll.roomId ?? null, slug: roll.room?.slug ?? null, ids: [] };
    entry.ids.push(roll.id);
    byRoom.set(key, entry);
  }
  for (const { roomId, slug, ids } of byRoom.values()) publish({ type: 'roll.updated', rollIds: ids, roomId, slug, key });
}
