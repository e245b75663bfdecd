import { UniqueViolationError } from '../db/errors';
import { ConflictError, NotFoundError } from '../errors';
import { eventKey } from '../events/record';
import type { DomainEvent } from '../events/bus';
import { announce } from '../lib/invalidation';
import { nameKey, uniqueDisplayName } from '../lib/displayName';
import { assertCanJoinRoom } from '../users/quotas';
import { requireRoomId, rereadRoom } from './access';
import { nextFreePosition, pickDefaultColor } from './colors';
import { defaultUsername, USERNAME_MAX, type RoomActor } from './create';
import { authorizeJoin } from './policy';
import type { RoomRecord } from './store/records';
import { insertParticipant, recordIn, seatsOf, withRoomLocked } from './store/write';

export class AlreadyParticipantError extends ConflictError {
  constructor() {
    super('You are already a participant of this room.', 'already_participant');
  }
}

/**
 * Join `slug` as `user`. Inside one transaction the room row is locked (withRoomLocked), so concurrent
 * joins see each other and get distinct positions and colours. The unique indexes (room_id, user_id)
 * and (room_id, position) back this up: a violation that slips through is retried, or is a 409 when
 * the user got in.
 */
export async function joinRoom(slug: string, user: RoomActor, passcode?: string | null): Promise<RoomRecord> {
  const roomId = await requireRoomId(slug);
  let event: DomainEvent | undefined;
  for (let attempt = 1; ; attempt++) {
    try {
      event = await withRoomLocked(roomId, async (room, tx) => {
        if (!room) throw new NotFoundError(`There is no room "${slug}".`);
        const seats = await seatsOf(tx, room.id);
        if (seats.some((p) => p.userId === user.id)) throw new AlreadyParticipantError();
        authorizeJoin(room, user, passcode);
        await assertCanJoinRoom(room, user.id, tx);
        const id = await insertParticipant(tx, {
          roomId: room.id,
          userId: user.id,
          // Nobody may join under a name already in the room (the owner's, say): "Guest A1B2 (2)".
          username: uniqueDisplayName(defaultUsername(user), new Set(seats.map((p) => nameKey(p.username))), USERNAME_MAX),
          position: nextFreePosition(seats.map((p) => p.position)),
          color: pickDefaultColor(seats.map((p) => p.color)),
        });
        const joined: DomainEvent = {
          type: 'room.updated',
          roomId: room.id,
          slug: room.slug,
          participant: { id, userId: user.id, change: 'joined' },
          key: eventKey(),
        };
        await recordIn(tx, joined);
        return joined;
      });
      break;
    } catch (err) {
      if (!(err instanceof UniqueViolationError)) throw err;
      if (attempt >= 5) throw err;
    }
  }
  const room = await rereadRoom(roomId);
  await announce({ rooms: [room.id] }, event!);
  return room;
}
