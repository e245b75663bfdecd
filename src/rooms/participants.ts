import { Op, UniqueConstraintError } from 'sequelize';
import { db } from '../db';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import { displayNameProblem, nameKey, normalizeDisplayName, uniqueDisplayName } from '../lib/displayName';
import { Participant, type Room, type User } from '../db/models';
import { authorizeJoin, authorizeParticipantChange, canAccessRoom, participantChangeForbidden } from './policy';
import { publish } from '../events/bus';
import { nextFreePosition, pickDefaultColor } from './colors';
import { defaultUsername, lockRoom, USERNAME_MAX } from './update';
import { requireRoomBySlug, requireRoomId } from './access';
import { rereadRoom } from './store/read';
import { assertCanJoinRoom } from '../commands/quotas';
import type { RoomRecord } from './store/records';

export class AlreadyParticipantError extends ConflictError {
  constructor() {
    super('You are already a participant of this room.', 'already_participant');
  }
}

/** 409: another participant of the room goes by this name (compared case-insensitively after normalization). */
export class NameTakenError extends ConflictError {
  constructor(name: string) {
    super(`Another participant of this room is already called "${name}" (names are compared without regard to case or character width): choose another name.`, 'name_taken');
  }
}

/**
 * Join `slug` as `user`. Inside one transaction the room row is locked (SELECT ... FOR UPDATE on
 * PostgreSQL; SQLite's single writer serializes already), so concurrent joins see each other and
 * get distinct positions and colours. The unique indexes (room_id, user_id) and (room_id, position)
 * back this up: a violation that slips through is retried, or is a 409 when the user got in.
 */
export async function joinRoom(slug: string, user: User, passcode?: string | null): Promise<RoomRecord> {
  const roomId = await requireRoomId(slug);
  for (let attempt = 1; ; attempt++) {
    try {
      await db().transaction(async (transaction) => {
        const room = await lockRoom(roomId, transaction);
        if (!room) throw new NotFoundError(`There is no room "${slug}".`);
        // raw: plain rows, not a model per seat (a room of 1,000 built 1,000 models on every join)
        const seats = await Participant.findAll({ where: { roomId: room.id }, attributes: ['userId', 'position', 'color', 'username'], raw: true, transaction });
        if (seats.some((p) => p.userId === user.id)) throw new AlreadyParticipantError();
        authorizeJoin(room, user, passcode);
        await assertCanJoinRoom(room, user.id, transaction);
        await Participant.create(
          {
            roomId: room.id,
            userId: user.id,
            // Nobody may join under a name already in the room (the owner's, say): "Guest A1B2 (2)".
            username: uniqueDisplayName(defaultUsername(user), new Set(seats.map((p) => nameKey(p.username))), USERNAME_MAX),
            position: nextFreePosition(seats.map((p) => p.position)),
            color: pickDefaultColor(seats.map((p) => p.color)),
          },
          { transaction },
        );
      });
      break;
    } catch (err) {
      if (!(err instanceof UniqueConstraintError)) throw err;
      if (attempt >= 5) throw err;
    }
  }
  const room = await rereadRoom(roomId);
  publish({ type: 'room.updated', roomId: room.id, slug: room.slug });
  return room;
}

/**
 * The participant `participantId` of the room, for `user` to change or remove. Someone who may not see
 * a private room gets the 403 whether or not the id is there: a 404 would tell a stranger which
 * participant ids the room has.
 */
function participantOf(room: Room, participantId: number, user: User, action: 'change' | 'remove'): Participant {
  if (!canAccessRoom(room, user)) throw participantChangeForbidden(action);
  const participant = room.participants?.find((p) => p.id === participantId);
  if (!participant) throw new NotFoundError(`This room has no participant ${participantId}.`);
  return participant;
}

export interface ParticipantChange {
  username?: string;
  /** `#rrggbb`, stored in lower case. */
  color?: string;
}

/** The participant itself or the owner changes its username or colour. */
export async function updateParticipant(slug: string, participantId: number, user: User, change: ParticipantChange): Promise<RoomRecord> {
  const room = await requireRoomBySlug(slug);
  const participant = participantOf(room, participantId, user, 'change');
  authorizeParticipantChange(room, participant, user, 'change');
  const values: Partial<Pick<Participant, 'username' | 'color'>> = {};
  if (change.username !== undefined) values.username = checkedDisplayName(change.username);
  if (change.color !== undefined) values.color = change.color.toLowerCase();
  const changed = await db().transaction(async (transaction) => {
    // The room lock orders renames (PostgreSQL; SQLite has one writer): two cannot both take a free name.
    await lockRoom(room.id, transaction);
    const row = await Participant.findByPk(participant.id, { transaction });
    if (!row) throw new NotFoundError(`This room has no participant ${participantId}.`);
    if (values.username !== undefined && nameKey(values.username) !== nameKey(row.username)) {
      const others = await Participant.findAll({ where: { roomId: room.id, id: { [Op.ne]: row.id } }, attributes: ['username'], raw: true, transaction });
      const key = nameKey(values.username);
      if (others.some((p) => nameKey(p.username) === key)) throw new NameTakenError(values.username);
    }
    row.set(values);
    if (row.changed() === false) return false;
    await row.save({ transaction });
    return true;
  });
  const fresh = await rereadRoom(room.id);
  if (changed) publish({ type: 'room.updated', roomId: fresh.id, slug: fresh.slug });
  return fresh;
}

/** The stored form of a requested name, or a 400 (the route's schema already checks; this keeps the command whole). */
function checkedDisplayName(raw: string): string {
  const name = normalizeDisplayName(raw);
  const problem = displayNameProblem(name, USERNAME_MAX);
  if (problem !== null) throw new ValidationError([{ path: 'username', message: `username ${problem}` }]);
  return name;
}

/**
 * A participant leaves, or the owner removes one. The removed user loses access to a private room
 * until it joins again with the passcode. The owner may leave too: it still owns the room (and may
 * view, change or delete it, and rejoin without the passcode).
 */
export async function removeParticipant(slug: string, participantId: number, user: User): Promise<void> {
  const room = await requireRoomBySlug(slug);
  const participant = participantOf(room, participantId, user, 'remove');
  authorizeParticipantChange(room, participant, user, 'remove');
  await db().transaction(async (transaction) => {
    await lockRoom(room.id, transaction);
    await Participant.destroy({ where: { id: participant.id, roomId: room.id }, transaction });
  });
  publish({ type: 'room.access_revoked', roomId: room.id, slug: room.slug, userIds: [participant.userId] });
  publish({ type: 'room.updated', roomId: room.id, slug: room.slug });
}
