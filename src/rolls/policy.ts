import { ForbiddenError, NotFoundError } from '../errors';
import { isParticipant, memberUserIds } from '../rooms/policy';
import type { DraggedDie } from './store/visible';
import type { RollRecord as Roll, RollValueRecord as RollValue, RoomRecord as Room } from './store/records';

/**
 * Who may see and change a roll. Pure predicates over a roll loaded as loadRolls() loads it (room with
 * its participants, whispers), plus authorize* helpers that throw.
 *
 * - The roller always sees the roll and all its dice.
 * - A roll in a room is seen by the room's participants, unless it is whispered: then only by its roller
 *   and the whispered participants. A roll outside any room is its roller's alone.
 * - A hidden die's value is seen by its roller only (the presenter blanks it for everyone else).
 * - Only the roller changes a roll's dice.
 * - Only a room's participants roll in it and read its history.
 * - A dragged die moves for those who see its roll, and turns (its rotation shows its value) only for
 *   those who see its value.
 */

export function isRoller(roll: Pick<Roll, 'userId'>, userId: number | null | undefined): boolean {
  return userId != null && roll.userId === userId;
}

/** May `userId` see this roll at all? Needs `roll.whispers` (whispered rolls) and `roll.room.participants`. */
export function canSeeRoll(roll: Roll, userId: number | null | undefined): boolean {
  return rollAudience(roll)(userId);
}

/**
 * canSeeRoll() for many viewers of one roll (the realtime fan-out asks it for every member of a room):
 * the audience is worked out once, then each question is a set lookup.
 */
export function rollAudience(roll: Roll): (userId: number | null | undefined) => boolean {
  let audience: ReadonlySet<number> | null = null;
  if (roll.roomId != null) {
    if (roll.isWhispered) {
      if (!roll.whispers) throw new Error('canSeeRoll needs the roll loaded with its whispers');
      audience = new Set(roll.whispers.map((w) => w.userId));
    } else {
      if (!roll.room) throw new Error('canSeeRoll needs the roll loaded with its room and participants');
      audience = memberUserIds(roll.room);
    }
  }
  return (userId) => userId != null && (roll.userId === userId || (audience?.has(userId) ?? false));
}

/**
 * Was a participant who joined at `joinedAt` told that the table was cleared at `clearedAt` (ms since the
 * epoch)? Only if it was in the room by then: one who joined later never saw those rolls, and a replay
 * must not name them to it. A clearing of unknown time is told to no one (the safe side: a client that
 * missed it reloads the history). `joinedAt` null: not a participant now.
 */
export function toldOfClear(joinedAt: Date | null, clearedAt: number | undefined): boolean {
  return joinedAt !== null && clearedAt !== undefined && joinedAt.getTime() <= clearedAt;
}

/** May `userId` see this die's value? (The roll itself must be visible: see canSeeRoll.) */
export function canSeeValue(roll: Pick<Roll, 'userId'>, value: Pick<RollValue, 'isHidden'>, userId: number | null | undefined): boolean {
  return !value.isHidden || isRoller(roll, userId);
}

/**
 * The roll, or a 404 for anyone who may not see it: a private roll's existence is not confirmed
 * (a 403 would say "there is something here").
 */
export function authorizeRollView(roll: Roll | null | undefined, userId: number, uuid: string): Roll {
  if (!roll || !canSeeRoll(roll, userId)) throw new NotFoundError(`There is no roll "${uuid.slice(0, 64)}".`);
  return roll;
}

/** Only the roller changes a roll; others who can see it get a 403, others a 404. */
export function authorizeRollChange(roll: Roll | null | undefined, userId: number, uuid: string): Roll {
  const seen = authorizeRollView(roll, userId, uuid);
  if (!isRoller(seen, userId)) throw new ForbiddenError('Only the player who made a roll may change it.');
  return seen;
}

/** Only a room's participants roll in it. */
export function authorizeRollInRoom(room: Pick<Room, 'slug' | 'participants' | 'memberUserIds'>, userId: number): void {
  if (!isParticipant(room, userId)) throw new ForbiddenError(`Join the room first (POST /api/1.0/room/${room.slug}/participant), then roll in it.`);
}

/** Only a room's participants see its history. */
export function authorizeHistory(room: Pick<Room, 'slug' | 'participants' | 'memberUserIds'>, userId: number): void {
  if (!isParticipant(room, userId)) throw new ForbiddenError(`Join the room first (POST /api/1.0/room/${room.slug}/participant) to see its rolls.`);
}

/** Only a room's participants change their rolls in it (PATCH /room/{slug}/roll). */
export function authorizeRoomRollsChange(room: Pick<Room, 'participants' | 'memberUserIds'>, userId: number): void {
  if (!isParticipant(room, userId)) throw new ForbiddenError('Only participants of this room may change their rolls in it.');
}

/**
 * Only a room's owner changes other participants' dice in it (a Stream Deck's "pick up all"), and only
 * their place on the table (`is_visible`, `is_cleared`): hiding or revealing them stays their roller's.
 */
export function authorizeOthersDiceChange(room: Pick<Room, 'userId'>, userId: number, flags: { isHidden?: boolean }): void {
  if (room.userId !== userId) throw new ForbiddenError("Only the room's owner may change other participants' dice.");
  if (flags.isHidden !== undefined)
    throw new ForbiddenError("Other participants' dice can be picked up or cleared (is_visible, is_cleared), not hidden or revealed.");
}

/**
 * Who may see a die dragged in a room, in the terms the relay of dragged dice (realtime/fanout/draggedDice.ts)
 * needs: the roll visibility rules above, for a die and its roll as store/visible.ts findDraggedDie()
 * reads them.
 */
export interface MoveAudience {
  rollUuid: string;
  /** Who may see the roll (and so the die's position): everyone in the room, or these users. */
  rollVisibleTo: 'all' | number[];
  /** Who may see the die's value (and so its rotation): a subset of rollVisibleTo. */
  valueVisibleTo: 'all' | number[];
}

/** The audience of a drag of `die` by `moverId` in room `roomId`; null when refused (no such die there, or one the mover may not see). */
export function moveAudience(die: DraggedDie | null, roomId: number, moverId: number): MoveAudience | null {
  const roll = die?.roll;
  if (!die || !roll || roll.roomId !== roomId) return null;
  const rollVisibleTo = roll.isWhispered ? [...new Set([roll.userId, ...roll.whisperUserIds])] : 'all';
  if (rollVisibleTo !== 'all' && !rollVisibleTo.includes(moverId)) return null;
  const valueVisibleTo = die.isHidden ? [roll.userId] : rollVisibleTo;
  return { rollUuid: roll.uuid, rollVisibleTo, valueVisibleTo };
}

/**
 * The audience of a drag a client relays itself (the Pusher gateway's client events): only the roller
 * moves a roll's dice (as only the roller changes them), so a client cannot move someone else's dice on
 * every board; otherwise as moveAudience.
 */
export function ownMoveAudience(die: DraggedDie | null, roomId: number, moverId: number): MoveAudience | null {
  return die?.roll && isRoller(die.roll, moverId) ? moveAudience(die, roomId, moverId) : null;
}
