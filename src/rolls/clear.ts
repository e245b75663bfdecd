import { publish } from '../events/bus';
import { requireRoomBySlug } from '../rooms/access';
import { authorizeRoomOwner } from '../rooms/policy';
import type { RoomRecord, UserRecord } from './store/records';
import { deleteRoomRolls } from './store/write';

/**
 * DELETE /roll?room={slug}: the room's owner clears the table. The room's rolls are deleted (values and
 * whispers with them), not marked: clearing is how an owner starts afresh, and it is the one way a
 * room's history is removed. Announced as one roll.deleted with every uuid (a whispered roll's to its
 * audience only).
 */
export async function clearRoomTable(user: Pick<UserRecord, 'id'>, slug: string): Promise<{ room: Pick<RoomRecord, 'id' | 'slug'>; deleted: string[] }> {
  const room = await requireRoomBySlug(slug);
  authorizeRoomOwner(room, user, 'clear its table');
  const deleted = await deleteRoomRolls(room.id);
  if (deleted.length) publish({ type: 'roll.deleted', rolls: deleted, roomId: room.id, slug: room.slug });
  return { room, deleted: deleted.map((r) => r.uuid) };
}
