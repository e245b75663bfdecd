import type { DomainEvent } from '../events/bus';
import { eventKey } from '../events/record';
import { announce } from '../lib/invalidation';
import { requireRoomBySlug } from './access';
import { authorizeRoomOwner } from './policy';
import { recordIn, removeBackground, softDeleteRoom, withRoomLocked } from './store/write';

/** Soft delete, by the owner: gone from lists and lookups; rolls made in it still embed it with deleted_at. */
export async function deleteRoom(slug: string, user: { id: number }): Promise<void> {
  const room = await requireRoomBySlug(slug);
  authorizeRoomOwner(room, user, 'delete it');
  const deleted: DomainEvent = { type: 'room.deleted', roomId: room.id, slug: room.slug, key: eventKey() };
  await withRoomLocked(room.id, async (_current, tx) => {
    // The background goes with the room (nothing serves it any more): it no longer counts against the
    // owner's ASSET_BYTES_PER_USER, and a create-upload-delete loop cannot pile up images.
    await removeBackground(tx, room.id);
    await softDeleteRoom(tx, room.id);
    await recordIn(tx, deleted);
  });
  await announce({ rooms: [room.id] }, deleted);
}
