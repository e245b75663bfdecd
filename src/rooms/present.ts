import type { ParticipantRecord as Participant, RoomRecord as Room } from './store/records';
import { isOwner, isParticipant, memberUserIds } from './policy';
import { timestamp, ts } from '../http/time';
import { presentUser } from '../users/present';
import type { Participant as WireParticipant, Room as WireRoom, RollParticipant } from '../client/types';

/** docs/spec.md §2.5. The id is the participant's own (not the user's): it names the participant in paths. */
export function presentParticipant(participant: Participant): WireParticipant {
  if (!participant.user) throw new Error('presentParticipant needs the participant loaded with its user');
  return {
    id: participant.id,
    username: participant.username,
    color: participant.color,
    position: participant.position,
    // Always there (GM's Grimoire walks it before it connects): [] when nothing was saved.
    dice_tray: participant.diceTray ?? [],
    created_at: ts(participant.createdAt),
    updated_at: ts(participant.updatedAt),
    user: presentUser(participant.user),
  };
}

export type PresentedParticipant = WireParticipant;

/**
 * A participant a roll is whispered to (`roll.participants[]`): the participant as everywhere, and
 * beside it `participant`, the same person in dddice's pivot shape (`{id, username, color, user}`),
 * which the dddice Foundry module reads recipients from. Both readers find what they look for.
 */
export function presentRollParticipant(participant: Participant): RollParticipant {
  const presented = presentParticipant(participant);
  return { ...presented, participant: { id: presented.id, username: presented.username, color: presented.color, user: presented.user } };
}

/**
 * docs/spec.md §2.4, as `viewerUserId` may see it. The room must be loaded with `participants` (each with
 * its `user`) and `user` (the owner): see `readRoomBySlug()` in store/read.ts.
 * The passcode is shown to the owner, and to the participants of a private room; everyone else gets
 * `null` (the key is always there, so clients need not test for its presence). A public room's
 * passcode is the one its owner keeps for when the room goes private: whoever joined while it was
 * public was never entitled to it (going private removes them, and they must not be able to walk
 * back in with it). `deleted_at` is always present: null for live rooms, a timestamp when a roll
 * embeds a deleted room. The output depends on the viewer only through `roomViewerKind`.
 */
export function presentRoom(room: Room, viewerUserId: number | null | undefined): WireRoom {
  return presentRoomWith(room, viewerUserId, room.participants ?? []);
}

/** presentRoom() listing `shown` as the participants (all of them, or those a roll involves). */
function presentRoomWith(room: Room, viewerUserId: number | null | undefined, shown: readonly Participant[]): WireRoom {
  if (!room.participants || !room.user) throw new Error('presentRoom needs the room loaded with its participants and owner');
  const kind = roomViewerKind(room, viewerUserId);
  const seesPasscode = kind === 'owner' || (kind === 'participant' && !room.isPublic);
  const participants = [...shown].sort((a, b) => a.position - b.position || a.id - b.id);
  return {
    slug: room.slug,
    name: room.name,
    is_public: Boolean(room.isPublic),
    passcode: seesPasscode ? (room.passcode ?? null) : null,
    bg_file_path: room.bgFilePath ?? null,
    created_at: ts(room.createdAt),
    updated_at: ts(room.updatedAt),
    deleted_at: timestamp(room.deletedAt),
    user: presentUser(room.user),
    participants: participants.map(presentParticipant),
  };
}

export type PresentedRoom = WireRoom;

/**
 * What presentRoom() (and presentRoomInRoll()) depend on about the viewer: the realtime fan-out
 * presents a room once per kind of viewer (roomViewerClass).
 */
export function roomViewerKind(room: Room, viewerUserId: number | null | undefined): 'owner' | 'participant' | 'outsider' {
  if (viewerUserId == null) return 'outsider';
  if (isOwner(room, viewerUserId)) return 'owner';
  return isParticipant(room, viewerUserId) ? 'participant' : 'outsider';
}

/**
 * The room as a roll embeds it (docs/spec.md §2.6 `room`): the same shape and the same per-viewer redaction,
 * with `deleted_at` set when the room was deleted after the roll. Load the room with every
 * participant (store/forRolls.ts) so deleted rooms still come along.
 *
 * `participants` lists only those the roll involves (`involvedUserIds`: its roller and the whispered
 * participants), not the whole room: a roll would otherwise grow with the room (430 bytes per
 * participant, 430 KiB per roll event in a room of 1,000), for a list clients already have from
 * GET /room/{slug} and RoomUpdateEvent (docs/api/rolls.md).
 *
 * The one viewer of a roll who may be outside its room is its roller, after leaving a private room
 * or being removed from it (a passcode change): it keeps its roll, not a view into the room. Who is
 * in the room now and the background URL (a key to the image) are for those who may see the room,
 * so that roller gets the room without them (and without the passcode, as above).
 */
export function presentRoomInRoll(room: Room, viewerUserId: number | null | undefined, involvedUserIds: ReadonlySet<number>): PresentedRoom {
  const involved = (room.participants ?? []).filter((p) => involvedUserIds.has(p.userId));
  const presented = presentRoomWith(room, viewerUserId, involved);
  if (room.isPublic || roomViewerKind(room, viewerUserId) !== 'outsider') return presented;
  return { ...presented, bg_file_path: null, participants: [] };
}

/**
 * Who may be connected to a room: its owner and participants (the only users the handshake admits).
 * Events are addressed to their channels whether or not they are connected right now (a channel
 * without sockets costs nothing): delivery never depends on presence bookkeeping, which may lag
 * (Redis restarted, an instance just died).
 */
export function roomMembers(room: Room): number[] {
  return [...new Set([room.userId, ...memberUserIds(room)])];
}

/**
 * The viewer classes of a room: presentRoom() and presentRoomInRoll() depend on the viewer only
 * through roomViewerKind() (owner, participant, neither: the passcode of a public room is the
 * owner's alone), so that is the class.
 */
export function roomViewerClass(room: Room): (viewerId: number) => string {
  // roomViewerKind() with a set, for rooms with many participants present.
  const participants = memberUserIds(room);
  return (viewer) => (viewer === room.userId ? 'owner' : participants.has(viewer) ? 'participant' : 'outsider');
}
