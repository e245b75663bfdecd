import { ForbiddenError } from '../errors';
import type { ParticipantRecord as Participant, RoomRecord as Room } from './store/records';
import { passcodesEqual } from './codes';

/**
 * Who may do what in a room. Pure predicates over a room loaded with its participants, plus
 * authorize* helpers that throw ForbiddenError. Two levels of access, on purpose:
 * - viewing a room (GET /room/{slug}): public rooms to anyone; private rooms to the owner, its
 *   participants, or whoever shows the passcode;
 * - being in a room (live events over Socket.IO, rolling there): participants only. Admission is
 *   decided in one place, the join endpoint, which checks the passcode.
 */
type UserRef = { id: number };

/** A passcode was given and it is not this room's: the one refusal that counts as a guess (rooms/passcodeAttempts.ts). */
export class WrongPasscodeError extends ForbiddenError {
  constructor() {
    super('The passcode is not right for this private room.');
  }
}

export function isOwner(room: Pick<Room, 'userId'>, userId: number): boolean {
  return room.userId === userId;
}

/** True when `userId` is a participant. Needs `room.participants` loaded (or `memberUserIds`, as rolls load rooms). */
export function isParticipant(room: Pick<Room, 'participants' | 'memberUserIds'>, userId: number): boolean {
  if (room.memberUserIds) return room.memberUserIds.has(userId);
  if (!room.participants) throw new Error('isParticipant needs the room loaded with its participants');
  return room.participants.some((p) => p.userId === userId);
}

/** Every participant's user id (see isParticipant). */
export function memberUserIds(room: Pick<Room, 'participants' | 'memberUserIds'>): ReadonlySet<number> {
  if (room.memberUserIds) return room.memberUserIds;
  if (!room.participants) throw new Error('memberUserIds needs the room loaded with its participants');
  return new Set(room.participants.map((p) => p.userId));
}

/** The right passcode for this room, compared in constant time. A room without one is never opened by one. */
export function passcodeMatches(room: Pick<Room, 'passcode'>, passcode: string | null | undefined): boolean {
  return passcodesEqual(room.passcode, passcode);
}

/** May `user` see this room (GET /room/{slug})? */
export function canAccessRoom(room: Room, user: UserRef, passcode?: string | null): boolean {
  if (room.isPublic) return true;
  return isOwner(room, user.id) || isParticipant(room, user.id) || passcodeMatches(room, passcode);
}

/** May `user` join? Public rooms: anyone. Private rooms: the owner (always) or with the passcode. */
export function canJoinRoom(room: Room, user: UserRef, passcode?: string | null): boolean {
  return Boolean(room.isPublic) || isOwner(room, user.id) || passcodeMatches(room, passcode);
}

/** May `user` change or remove this participant? The participant itself, or the room's owner. */
export function canManageParticipant(room: Room, participant: Participant, user: UserRef): boolean {
  return participant.userId === user.id || isOwner(room, user.id);
}

export function authorizeRoomAccess(room: Room, user: UserRef, passcode?: string | null): void {
  if (canAccessRoom(room, user, passcode)) return;
  if (passcode) throw new WrongPasscodeError();
  throw new ForbiddenError('This room is private: give its passcode (?passcode=...) to see it.');
}

export function authorizeRoomOwner(room: Room, user: UserRef, action = 'change this room'): void {
  if (!isOwner(room, user.id)) throw new ForbiddenError(`Only the owner of the room may ${action}.`);
}

export function authorizeJoin(room: Room, user: UserRef, passcode?: string | null): void {
  if (canJoinRoom(room, user, passcode)) return;
  if (passcode) throw new WrongPasscodeError();
  throw new ForbiddenError('This room is private: give its passcode to join.');
}

export function authorizeParticipantChange(room: Room, participant: Participant, user: UserRef, action: 'change' | 'remove'): void {
  if (canManageParticipant(room, participant, user)) return;
  throw participantChangeForbidden(action);
}

/** The 403 of changing or removing a participant one may not manage. */
export function participantChangeForbidden(action: 'change' | 'remove'): ForbiddenError {
  return new ForbiddenError(
    action === 'change'
      ? 'Only that participant or the room owner may change a participant.'
      : 'Only that participant or the room owner may remove a participant.',
  );
}
