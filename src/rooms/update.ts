import { UnprocessableError } from '../errors';
import type { DomainEvent } from '../events/bus';
import { eventKey } from '../events/record';
import { announce } from '../lib/invalidation';
import { requireRoomBySlug, rereadRoom } from './access';
import { generatePasscode } from './codes';
import type { RoomInput } from './create';
import { authorizeRoomOwner } from './policy';
import type { RoomRecord } from './store/records';
import { changeRoom, recordIn, removeAllButOwner, removeBackground, withRoomLocked, type RoomChange } from './store/write';

export interface RoomUpdate extends RoomInput {
  /** null removes the background; the current URL is accepted as "unchanged"; anything else is refused. */
  bgFilePath?: string | null;
}

/**
 * The owner changes name, visibility, passcode, or removes the background.
 * Changing a private room's passcode, or making a public room private, resets its membership: every
 * participant but the owner is removed and must join again with the (new) passcode. That is what
 * makes a passcode change revoke access (a leaked code stops admitting anyone, and whoever got in
 * with it is out); the owner is told so by the documentation, and `room.access_revoked` with
 * `allButOwner` tells the realtime layer to drop their sockets.
 */
export async function updateRoom(slug: string, user: { id: number }, input: RoomUpdate): Promise<RoomRecord> {
  const room = await requireRoomBySlug(slug);
  authorizeRoomOwner(room, user, 'change it');
  if (typeof input.bgFilePath === 'string' && input.bgFilePath !== room.bgFilePath) {
    throw new UnprocessableError(
      'bg_file_path cannot be set to a URL: upload an image with POST /api/1.0/room/{slug} (multipart field "bg_file_path"), or send null to remove the background.',
      [{ path: 'bg_file_path', message: 'bg_file_path must be null (to remove the background) or left out.' }],
    );
  }
  const updated: DomainEvent = { type: 'room.updated', roomId: room.id, slug: room.slug, key: eventKey() };
  const outcome = await withRoomLocked(room.id, async (current, tx) => {
    if (!current) return null;
    const next = { ...current };
    if (input.name !== undefined) next.name = input.name.trim();
    if (input.isPublic !== undefined) next.isPublic = input.isPublic;
    if (input.passcode !== undefined) next.passcode = input.passcode || null;
    // A private room always has a passcode: asking for none, or going private without one, generates it.
    if (!next.isPublic && !next.passcode) next.passcode = generatePasscode();
    const change: RoomChange = { name: next.name, isPublic: next.isPublic, passcode: next.passcode };
    if (input.bgFilePath === null && current.bgFilePath !== null) {
      change.bgFilePath = null;
      await removeBackground(tx, current.id);
    }
    const changed = await changeRoom(tx, current, change);
    const revoke = !next.isPublic && (current.isPublic || next.passcode !== current.passcode);
    if (revoke) await removeAllButOwner(tx, current);
    if (changed) await recordIn(tx, updated);
    return { changed, revoke };
  });
  const fresh = await rereadRoom(room.id);
  const events: DomainEvent[] = [];
  if (outcome?.revoke) events.push({ type: 'room.access_revoked', roomId: fresh.id, slug: fresh.slug, allButOwner: true });
  if (outcome?.changed) events.push(updated);
  if (events.length) await announce({ rooms: [fresh.id] }, ...events);
  return fresh;
}
