import { Op, type Transaction } from 'sequelize';
import { db, models } from '../../db';
import { uniquely } from '../../db/errors';
import { queryInTransaction } from '../../db/sql';
import type { DomainEvent } from '../../events/bus';
import { recordInTransaction } from '../../events/record';
import type { Participant, Room } from '../../db/models';
import { trayOf, type ParticipantRecord, type RoomRecord } from './records';

/**
 * Every change to rooms, participants and room backgrounds. The use cases decide; these write, inside
 * the transaction the use case got from `withRoomLocked` (or `inTransaction`), and answer plain
 * records. A unique index's refusal comes out as UniqueViolationError (db/errors.ts).
 */

/** A transaction of the rooms store: the use cases pass it on (to the quotas, and back here). */
export type RoomTransaction = Transaction;

/** The room's own columns as a change reads and writes them (no owner, no participants). */
export type RoomRow = Omit<RoomRecord, 'user' | 'participants' | 'memberUserIds'>;

/** The columns a change may set. */
export type RoomChange = Partial<Pick<RoomRow, 'name' | 'isPublic' | 'passcode' | 'bgFilePath'>>;

/** A seat as a join reads the others: who sits where, in which colour and under which name. */
export type Seat = Pick<ParticipantRecord, 'userId' | 'position' | 'color' | 'username'>;

const plainRoom = (room: Room): RoomRow => {
  const { id, slug, name, isPublic, passcode, bgFilePath, userId, createdAt, updatedAt, deletedAt } = room.get({ plain: true });
  return {
    id,
    slug,
    name,
    isPublic: Boolean(isPublic),
    passcode: passcode ?? null,
    bgFilePath: bgFilePath ?? null,
    userId,
    createdAt,
    updatedAt,
    deletedAt: deletedAt ?? null,
  };
};

const plainParticipant = (p: Participant): ParticipantRecord => {
  const { id, roomId, userId, username, color, position, diceTray, createdAt, updatedAt } = p.get({ plain: true });
  return { id, roomId, userId, username, color, position, diceTray: trayOf(diceTray), createdAt, updatedAt };
};

/** Record `events` in `tx`, the change's own transaction (events/record.ts: webhooks' deliveries), before its commit. */
export function recordIn(tx: RoomTransaction, ...events: DomainEvent[]): Promise<void> {
  return recordInTransaction(queryInTransaction(tx), ...events);
}

/** `fn` in one transaction (creating a room: there is no row to lock yet). */
export function inTransaction<T>(fn: (tx: RoomTransaction) => Promise<T>): Promise<T> {
  return db().transaction(fn);
}

/**
 * `fn` in one transaction holding the live room's row locked against concurrent joins and changes
 * (SELECT ... FOR UPDATE on PostgreSQL; SQLite's single writer serializes already). `fn` gets the row
 * as it is under the lock, or null when the room is gone.
 */
export function withRoomLocked<T>(roomId: number, fn: (room: RoomRow | null, tx: RoomTransaction) => Promise<T>): Promise<T> {
  return db().transaction(async (tx) => {
    const row = await models().Room.findByPk(roomId, { transaction: tx, lock: tx.LOCK.UPDATE });
    return fn(row ? plainRoom(row) : null, tx);
  });
}

/** A new room; its id. */
export async function insertRoom(tx: RoomTransaction, room: Pick<RoomRow, 'slug' | 'name' | 'isPublic' | 'passcode' | 'userId'>): Promise<number> {
  const created = await uniquely(models().Room.create(room, { transaction: tx }));
  return created.id;
}

/** A new participant (position and colour chosen by the use case). */
/** Answers the new seat's id. */
export async function insertParticipant(
  tx: RoomTransaction,
  seat: Pick<ParticipantRecord, 'roomId' | 'userId' | 'username' | 'color' | 'position'>,
): Promise<number> {
  return (await uniquely(models().Participant.create(seat, { transaction: tx }))).id;
}

/** Every seat of the room, plain (a room of 1,000 built 1,000 models on every join). */
export function seatsOf(tx: RoomTransaction, roomId: number): Promise<Seat[]> {
  return models().Participant.findAll({ where: { roomId }, attributes: ['userId', 'position', 'color', 'username'], raw: true, transaction: tx }) as Promise<
    Seat[]
  >;
}

/**
 * Write the columns of `change` that differ from `current` (and updated_at); false when none does.
 * `touch` writes updated_at even then (the same background again: clients see the upload took).
 */
export async function changeRoom(tx: RoomTransaction, current: RoomRow, change: RoomChange, touch = false): Promise<boolean> {
  const differing = Object.fromEntries(Object.entries(change).filter(([key, value]) => current[key as keyof RoomChange] !== value));
  if (!Object.keys(differing).length && !touch) return false;
  await uniquely(models().Room.update(touch ? { ...differing, updatedAt: new Date() } : differing, { where: { id: current.id }, transaction: tx }));
  return true;
}

/** Soft delete: gone from lists and lookups; rolls still embed it with deleted_at. */
export async function softDeleteRoom(tx: RoomTransaction, roomId: number): Promise<void> {
  const row = await models().Room.findByPk(roomId, { transaction: tx });
  await row?.destroy({ transaction: tx });
}

/** Every participant but the owner leaves (a private room's passcode changed). */
export async function removeAllButOwner(tx: RoomTransaction, room: Pick<RoomRow, 'id' | 'userId'>): Promise<void> {
  await models().Participant.destroy({ where: { roomId: room.id, userId: { [Op.ne]: room.userId } }, transaction: tx });
}

/** The room's background image, stored or replaced. */
export async function saveBackground(
  tx: RoomTransaction,
  roomId: number,
  image: { contentType: string; size: number; sha256: string; data: Buffer },
): Promise<void> {
  const existing = await models().RoomBackground.findOne({ where: { roomId }, transaction: tx });
  if (existing) await existing.update(image, { transaction: tx });
  else await models().RoomBackground.create({ roomId, ...image }, { transaction: tx });
}

export async function removeBackground(tx: RoomTransaction, roomId: number): Promise<void> {
  await models().RoomBackground.destroy({ where: { roomId }, transaction: tx });
}

/** The participant with this id, read under the room's lock, or null. */
export async function participantById(tx: RoomTransaction, participantId: number): Promise<ParticipantRecord | null> {
  const row = await models().Participant.findByPk(participantId, { transaction: tx });
  return row ? plainParticipant(row) : null;
}

/** The names of the room's other participants (`exceptId` left out). */
export async function otherNames(tx: RoomTransaction, roomId: number, exceptId: number): Promise<string[]> {
  const rows = await models().Participant.findAll({ where: { roomId, id: { [Op.ne]: exceptId } }, attributes: ['username'], raw: true, transaction: tx });
  return rows.map((p) => p.username);
}

/** What a participant change may set. */
export type ParticipantChange = Partial<Pick<ParticipantRecord, 'username' | 'color' | 'diceTray'>>;

/** Write the fields of `change` that differ from `current` (and updated_at); false when none does. */
export async function changeParticipant(tx: RoomTransaction, current: ParticipantRecord, change: ParticipantChange): Promise<boolean> {
  const differing: Partial<{ username: string; color: string; diceTray: string }> = {};
  if (change.username !== undefined && change.username !== current.username) differing.username = change.username;
  if (change.color !== undefined && change.color !== current.color) differing.color = change.color;
  if (change.diceTray !== undefined && JSON.stringify(change.diceTray) !== JSON.stringify(current.diceTray))
    differing.diceTray = JSON.stringify(change.diceTray);
  if (!Object.keys(differing).length) return false;
  await uniquely(models().Participant.update(differing, { where: { id: current.id }, transaction: tx }));
  return true;
}

export async function deleteParticipant(tx: RoomTransaction, roomId: number, participantId: number): Promise<void> {
  await models().Participant.destroy({ where: { id: participantId, roomId }, transaction: tx });
}
