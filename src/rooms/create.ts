import type { UserRecord } from '../users/store';
import { UniqueViolationError } from '../db/errors';
import { publish } from '../events/bus';
import { cutToLength, displayNameProblem, normalizeDisplayName } from '../lib/displayName';
import { assertCanOwnRoom } from '../users/quotas';
import { rereadRoom } from './access';
import { generatePasscode, generateSlug } from './codes';
import { pickDefaultColor } from './colors';
import type { RoomRecord } from './store/records';
import { inTransaction, insertParticipant, insertRoom } from './store/write';

/** Longest participant username (the column is 64 characters). */
export const USERNAME_MAX = 64;
export const ROOM_NAME_MAX = 255;

export interface RoomInput {
  name?: string;
  isPublic?: boolean;
  /** A string sets it; null or '' asks for none (public) or a fresh generated one (private). */
  passcode?: string | null;
}

/** Who creates, joins or changes a room: the caller's user. */
export type RoomActor = Pick<UserRecord, 'id' | 'name' | 'username'>;

/**
 * The participant's default name: the user's display name, normalized and cut to fit (lib/displayName.ts);
 * the user's handle (letters, digits, `.`, `_`, `-`) when the display name is not usable as one.
 */
export function defaultUsername(user: Pick<UserRecord, 'name' | 'username'>): string {
  const name = cutToLength(normalizeDisplayName(user.name ?? ''), USERNAME_MAX).trimEnd();
  return displayNameProblem(name, USERNAME_MAX) === null ? name : cutToLength(user.username, USERNAME_MAX);
}

/**
 * Create a room owned by `user`, who becomes its first participant (position 1). A private room
 * without a passcode gets a generated one. A slug collision (79 random bits: never in practice)
 * is retried with a new slug.
 */
export async function createRoom(user: RoomActor, input: RoomInput): Promise<RoomRecord> {
  const isPublic = input.isPublic ?? true;
  const name = input.name?.trim() || `${user.name}'s room`.slice(0, ROOM_NAME_MAX);
  const passcode = input.passcode ? input.passcode : isPublic ? null : generatePasscode();
  for (let attempt = 1; ; attempt++) {
    try {
      const roomId = await inTransaction(async (tx) => {
        await assertCanOwnRoom(user.id, tx);
        const id = await insertRoom(tx, { slug: generateSlug(), name, isPublic, passcode, userId: user.id });
        await insertParticipant(tx, { roomId: id, userId: user.id, username: defaultUsername(user), color: pickDefaultColor([]), position: 1 });
        return id;
      });
      const room = await rereadRoom(roomId);
      publish({ type: 'room.updated', roomId: room.id, slug: room.slug });
      return room;
    } catch (err) {
      if (err instanceof UniqueViolationError && attempt < 3) continue;
      throw err;
    }
  }
}
