import { publish, type DomainEvent } from '../events/bus';
import { eventKey, recordInTransaction } from '../events/record';
import { requireRoomBySlug } from '../rooms/access';
import { authorizeRoomOwner } from '../rooms/policy';
import type { RoomRecord, UserRecord } from './store/records';
import { deleteRoomRolls, type DeletedRoll } from './store/write';

/**
 * DELETE /roll?room={slug}: the room's owner clears the table. The room's rolls are deleted (values and
 * whispers with them), not marked: clearing is how an owner starts afresh, and it is the one way a
 * room's history is removed. Announced as one roll.deleted with every uuid (a whispered roll's to its
 * audience only).
 */
export async function clearRoomTable(user: Pick<UserRecord, 'id'>, slug: string): Promise<{ room: Pick<RoomRecord, 'id' | 'slug'>; deleted: string[] }> {
  const room = await requireRoomBySlug(slug);
  authorizeRoomOwner(room, user, 'clear its table');
  const key = eventKey();
  const event = (rolls: DeletedRoll[]): DomainEvent => ({ type: 'roll.deleted', rolls, roomId: room.id, slug: room.slug, key });
  const deleted = await deleteRoomRolls(room.id, (tx, rolls) => recordInTransaction(tx, event(rolls)));
  if (deleted.length) publish(event(deleted));
  return { room, deleted: deleted.map((r) => r.uuid) };
}
