import { ConflictError, NotFoundError, ValidationError } from '../errors';
import type { DomainEvent } from '../events/bus';
import { eventKey } from '../events/record';
import { announce } from '../lib/invalidation';
import { displayNameProblem, nameKey, normalizeDisplayName } from '../lib/displayName';
import { requireRoomBySlug, rereadRoom } from './access';
import { USERNAME_MAX } from './create';
import { authorizeParticipantChange, canAccessRoom, participantChangeForbidden } from './policy';
import type { DiceTray, ParticipantRecord, RoomRecord } from './store/records';
import {
  changeParticipant,
  deleteParticipant,
  otherNames,
  participantById,
  recordIn,
  withRoomLocked,
  type ParticipantChange as StoredChange,
} from './store/write';

/** 409: another participant of the room goes by this name (compared case-insensitively after normalization). */
export class NameTakenError extends ConflictError {
  constructor(name: string) {
    super(
      `Another participant of this room is already called "${name}" (names are compared without regard to case or character width): choose another name.`,
      'name_taken',
    );
  }
}

type UserRef = { id: number };

/**
 * The participant `participantId` of the room, for `user` to change or remove. Someone who may not see
 * a private room gets the 403 whether or not the id is there: a 404 would tell a stranger which
 * participant ids the room has.
 */
function participantOf(room: RoomRecord, participantId: number, user: UserRef, action: 'change' | 'remove'): ParticipantRecord {
  if (!canAccessRoom(room, user)) throw participantChangeForbidden(action);
  const participant = room.participants?.find((p) => p.id === participantId);
  if (!participant) throw new NotFoundError(`This room has no participant ${participantId}.`);
  return participant;
}

export interface ParticipantChange {
  username?: string;
  /** `#rrggbb`, stored in lower case. */
  color?: string;
  /** Saved rows of dice (schema.ts bounds them); `[]` empties the tray. */
  diceTray?: DiceTray;
}

/** The participant itself or the owner changes its username, colour or dice tray. */
export async function updateParticipant(slug: string, participantId: number, user: UserRef, change: ParticipantChange): Promise<RoomRecord> {
  const room = await requireRoomBySlug(slug);
  const participant = participantOf(room, participantId, user, 'change');
  authorizeParticipantChange(room, participant, user, 'change');
  const values: StoredChange = {};
  if (change.username !== undefined) values.username = checkedDisplayName(change.username);
  if (change.color !== undefined) values.color = change.color.toLowerCase();
  // Only the two fields of each die are kept, whatever else a client sent along.
  if (change.diceTray !== undefined) values.diceTray = change.diceTray.map((row) => row.map((die) => ({ dieType: die.dieType, theme: die.theme })));
  // The room lock orders renames (PostgreSQL; SQLite has one writer): two cannot both take a free name.
  const event: DomainEvent = {
    type: 'room.updated',
    roomId: room.id,
    slug: room.slug,
    participant: { id: participant.id, userId: participant.userId, change: 'updated' },
    key: eventKey(),
  };
  const changed = await withRoomLocked(room.id, async (_current, tx) => {
    const row = await participantById(tx, participant.id);
    if (!row) throw new NotFoundError(`This room has no participant ${participantId}.`);
    if (values.username !== undefined && nameKey(values.username) !== nameKey(row.username)) {
      const key = nameKey(values.username);
      if ((await otherNames(tx, room.id, row.id)).some((name) => nameKey(name) === key)) throw new NameTakenError(values.username);
    }
    const changed = await changeParticipant(tx, row, values);
    if (changed) await recordIn(tx, event);
    return changed;
  });
  const fresh = await rereadRoom(room.id);
  if (changed) await announce({ rooms: [fresh.id] }, event);
  return fresh;
}

/** The stored form of a requested name, or a 400 (the route's schema already checks; this keeps the use case whole). */
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
export async function removeParticipant(slug: string, participantId: number, user: UserRef): Promise<void> {
  const room = await requireRoomBySlug(slug);
  const participant = participantOf(room, participantId, user, 'remove');
  authorizeParticipantChange(room, participant, user, 'remove');
  const left: DomainEvent = {
    type: 'room.updated',
    roomId: room.id,
    slug: room.slug,
    participant: { id: participant.id, userId: participant.userId, change: 'left' },
    key: eventKey(),
  };
  await withRoomLocked(room.id, async (_current, tx) => {
    await deleteParticipant(tx, room.id, participant.id);
    await recordIn(tx, left);
  });
  // Every instance's room cache forgets the seat before this answers: the removed user can no longer roll there.
  await announce({ rooms: [room.id] }, { type: 'room.access_revoked', roomId: room.id, slug: room.slug, userIds: [participant.userId] }, left);
}
