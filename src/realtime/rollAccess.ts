import { Roll, RollValue, RollWhisper } from '../db/models';

/**
 * Who may see a roll of a room, in the terms the relay of dragged dice needs. Mirrors the roll
 * visibility rules: a roll is seen by everyone in its room unless whispered (then by its roller and
 * the whispered users); a hidden die's value only by its roller.
 */
export interface MoveAudience {
  rollUuid: string;
  /** Who may see the roll (and so the die's position): everyone in the room, or these users. */
  rollVisibleTo: 'all' | number[];
  /** Who may see the die's value (and so its rotation): a subset of rollVisibleTo. */
  valueVisibleTo: 'all' | number[];
}

/** The audience of a drag of roll value `valueUuid` by `moverId` in room `roomId`; null when refused. */
export async function moveAudience(valueUuid: string, roomId: number, moverId: number): Promise<MoveAudience | null> {
  const value = await RollValue.findOne({
    where: { uuid: valueUuid },
    attributes: ['id', 'isHidden', 'rollId'],
    include: [{ model: Roll, as: 'roll', attributes: ['id', 'uuid', 'userId', 'roomId', 'isWhispered'], include: [{ model: RollWhisper, as: 'whispers', attributes: ['userId'] }] }],
  });
  const roll = (value as (RollValue & { roll?: Roll }) | null)?.roll;
  if (!value || !roll || roll.roomId !== roomId) return null;
  const rollVisibleTo = roll.isWhispered ? [...new Set([roll.userId, ...(roll.whispers ?? []).map((w) => w.userId)])] : 'all';
  if (rollVisibleTo !== 'all' && !rollVisibleTo.includes(moverId)) return null;
  const valueVisibleTo = value.isHidden ? [roll.userId] : rollVisibleTo;
  return { rollUuid: roll.uuid, rollVisibleTo, valueVisibleTo };
}
