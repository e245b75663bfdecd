import type { Participant, Room } from '../models';
import { isOwner, isParticipant } from '../policies/rooms';
import { timestamp, ts } from './time';
import { presentUser } from './user';

/** Spec 2.5. The id is the participant's own (not the user's): it names the participant in paths. */
export function presentParticipant(participant: Participant) {
  if (!participant.user) throw new Error('presentParticipant needs the participant loaded with its user');
  return {
    id: participant.id,
    username: participant.username,
    color: participant.color,
    position: participant.position,
    created_at: ts(participant.createdAt),
    updated_at: ts(participant.updatedAt),
    user: presentUser(participant.user),
  };
}

export type PresentedParticipant = ReturnType<typeof presentParticipant>;

/**
 * Spec 2.4, as `viewerUserId` may see it. The room must be loaded with `participants` (each with
 * its `user`) and `user` (the owner): see `roomInclude()` in commands/roomsAccess.ts.
 * The passcode is shown only to the owner and participants; everyone else gets `null` (the key is
 * always there, so clients need not test for its presence). `deleted_at` is always present: null
 * for live rooms, a timestamp when a roll embeds a deleted room.
 */
export function presentRoom(room: Room, viewerUserId: number | null | undefined) {
  if (!room.participants || !room.user) throw new Error('presentRoom needs the room loaded with its participants and owner');
  const insider = viewerUserId != null && (isOwner(room, viewerUserId) || isParticipant(room, viewerUserId));
  const participants = [...room.participants].sort((a, b) => a.position - b.position || a.id - b.id);
  return {
    slug: room.slug,
    name: room.name,
    is_public: Boolean(room.isPublic),
    passcode: insider ? (room.passcode ?? null) : null,
    bg_file_path: room.bgFilePath ?? null,
    created_at: ts(room.createdAt),
    updated_at: ts(room.updatedAt),
    deleted_at: timestamp(room.deletedAt),
    user: presentUser(room.user),
    participants: participants.map(presentParticipant),
  };
}

export type PresentedRoom = ReturnType<typeof presentRoom>;

/**
 * The room as a roll embeds it (spec 2.6 `room`): the same shape and the same per-viewer redaction,
 * with `deleted_at` set when the room was deleted after the roll. Load the room with
 * `roomInclude({ includeDeleted: true })` so deleted rooms still come along.
 */
export function presentRoomInRoll(room: Room, viewerUserId: number | null | undefined): PresentedRoom {
  return presentRoom(room, viewerUserId);
}
