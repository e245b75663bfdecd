import { createHash } from 'node:crypto';
import { UnsupportedMediaTypeError } from '../errors';
import type { DomainEvent } from '../events/bus';
import { eventKey } from '../events/record';
import { announce } from '../lib/invalidation';
import { assertAssetRoom } from '../users/quotas';
import { requireRoomBySlug, rereadRoom } from './access';
import { sniffImageType, type ImageType } from './image';
import { authorizeRoomOwner } from './policy';
import type { RoomRecord } from './store/records';
import { changeRoom, recordIn, saveBackground, withRoomLocked } from './store/write';

const EXTENSIONS: Record<ImageType, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp' };

/** Path (below the API root) of a background: the content hash makes it unguessable and cacheable forever. */
export function backgroundPath(slug: string, sha256: string, type: ImageType): string {
  return `/api/1.0/room/${slug}/background/${sha256}.${EXTENSIONS[type]}`;
}

/**
 * Before an upload is read: the room exists and `user` owns it, so strangers cannot make the server
 * buffer megabytes. The room, for setRoomBackground.
 */
export async function roomForBackground(slug: string, user: { id: number }): Promise<RoomRecord> {
  const room = await requireRoomBySlug(slug);
  authorizeRoomOwner(room, user, 'change its background');
  return room;
}

/**
 * Store the owner's background image (in the database, so every instance serves it) and point
 * `bg_file_path` at its URL under `origin`: a trusted origin (http/origin.ts), or '' for a root-relative
 * link. The image type comes from the bytes only.
 */
export async function setRoomBackground(room: RoomRecord, user: { id: number }, data: Buffer, origin: string): Promise<RoomRecord> {
  authorizeRoomOwner(room, user, 'change its background');
  const type = sniffImageType(data);
  if (!type) throw new UnsupportedMediaTypeError('The background must be a PNG, JPEG, WebP or GIF image.');
  const sha256 = createHash('sha256').update(data).digest('hex');
  const url = origin + backgroundPath(room.slug, sha256, type);
  const updated: DomainEvent = { type: 'room.updated', roomId: room.id, slug: room.slug, key: eventKey() };
  await withRoomLocked(room.id, async (current, tx) => {
    if (!current) return;
    await assertAssetRoom(user.id, data.length, tx, current.id);
    await saveBackground(tx, current.id, { contentType: type, size: data.length, sha256, data });
    // Same image again: still a change of the row's updated_at, so clients see the upload took.
    await changeRoom(tx, current, { bgFilePath: url }, true);
    await recordIn(tx, updated);
  });
  const fresh = await rereadRoom(room.id);
  await announce({ rooms: [fresh.id] }, updated);
  return fresh;
}
