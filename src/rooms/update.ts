import { createHash } from 'node:crypto';
import { Op, UniqueConstraintError, literal, type Transaction } from 'sequelize';
import { db } from '../db';
import { UnprocessableError, UnsupportedMediaTypeError } from '../errors';
import { Participant, Room, RoomBackground, User } from '../db/models';
import { authorizeRoomOwner } from './policy';
import { publish } from '../events/bus';
import { sniffImageType, type ImageType } from './image';
import { generatePasscode, generateSlug } from './codes';
import { pickDefaultColor } from './colors';
import { assertAssetRoom, assertCanOwnRoom } from '../commands/quotas';
import { attachParticipants } from './access';
import { rereadRoom } from './store/read';
import type { RoomRecord } from './store/records';
import { cutToLength, displayNameProblem, normalizeDisplayName } from '../lib/displayName';

/** Longest participant username (the column is 64 characters). */
export const USERNAME_MAX = 64;
export const ROOM_NAME_MAX = 255;

export interface RoomInput {
  name?: string;
  isPublic?: boolean;
  /** A string sets it; null or '' asks for none (public) or a fresh generated one (private). */
  passcode?: string | null;
}

/** The room row again, locked against concurrent joins and changes until the transaction ends (PostgreSQL). */
export function lockRoom(roomId: number, transaction: Transaction): Promise<Room | null> {
  return Room.findByPk(roomId, { transaction, lock: transaction.LOCK.UPDATE });
}

/**
 * The participant's default name: the user's display name, normalized and cut to fit (lib/displayName.ts);
 * the user's handle (letters, digits, `.`, `_`, `-`) when the display name is not usable as one.
 */
export function defaultUsername(user: Pick<User, 'name' | 'username'>): string {
  const name = cutToLength(normalizeDisplayName(user.name ?? ''), USERNAME_MAX).trimEnd();
  return displayNameProblem(name, USERNAME_MAX) === null ? name : cutToLength(user.username, USERNAME_MAX);
}

/**
 * Create a room owned by `user`, who becomes its first participant (position 1). A private room
 * without a passcode gets a generated one. A slug collision (79 random bits: never in practice)
 * is retried with a new slug.
 */
export async function createRoom(user: User, input: RoomInput): Promise<RoomRecord> {
  const isPublic = input.isPublic ?? true;
  const name = input.name?.trim() || `${user.name}'s room`.slice(0, ROOM_NAME_MAX);
  const passcode = input.passcode ? input.passcode : isPublic ? null : generatePasscode();
  for (let attempt = 1; ; attempt++) {
    try {
      const roomId = await db().transaction(async (transaction) => {
        await assertCanOwnRoom(user.id, transaction);
        const room = await Room.create({ slug: generateSlug(), name, isPublic, passcode, userId: user.id }, { transaction });
        await Participant.create(
          { roomId: room.id, userId: user.id, username: defaultUsername(user), color: pickDefaultColor([]), position: 1 },
          { transaction },
        );
        return room.id;
      });
      const room = await rereadRoom(roomId);
      publish({ type: 'room.updated', roomId: room.id, slug: room.slug });
      return room;
    } catch (err) {
      if (err instanceof UniqueConstraintError && attempt < 3) continue;
      throw err;
    }
  }
}

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
export async function updateRoom(room: Room, user: User, input: RoomUpdate): Promise<RoomRecord> {
  authorizeRoomOwner(room, user, 'change it');
  if (typeof input.bgFilePath === 'string' && input.bgFilePath !== room.bgFilePath) {
    throw new UnprocessableError('bg_file_path cannot be set to a URL: upload an image with POST /api/1.0/room/{slug} (multipart field "bg_file_path"), or send null to remove the background.', [
      { path: 'bg_file_path', message: 'bg_file_path must be null (to remove the background) or left out.' },
    ]);
  }
  const outcome = await db().transaction(async (transaction) => {
    const current = await lockRoom(room.id, transaction);
    if (!current) return null;
    const wasPublic = Boolean(current.isPublic);
    const oldPasscode = current.passcode;
    if (input.name !== undefined) current.name = input.name.trim();
    if (input.isPublic !== undefined) current.isPublic = input.isPublic;
    if (input.passcode !== undefined) current.passcode = input.passcode || null;
    // A private room always has a passcode: asking for none, or going private without one, generates it.
    if (!current.isPublic && !current.passcode) current.passcode = generatePasscode();
    if (input.bgFilePath === null && current.bgFilePath !== null) {
      current.bgFilePath = null;
      await RoomBackground.destroy({ where: { roomId: current.id }, transaction });
    }
    const changed = current.changed() !== false;
    const revoke = !current.isPublic && (wasPublic || current.passcode !== oldPasscode);
    if (changed) await current.save({ transaction });
    if (revoke) {
      await Participant.destroy({ where: { roomId: current.id, userId: { [Op.ne]: current.userId } }, transaction });
    }
    return { changed, revoke };
  });
  const fresh = await rereadRoom(room.id);
  if (outcome?.revoke) publish({ type: 'room.access_revoked', roomId: fresh.id, slug: fresh.slug, allButOwner: true });
  if (outcome?.changed) publish({ type: 'room.updated', roomId: fresh.id, slug: fresh.slug });
  return fresh;
}

/** Soft delete: gone from lists and lookups; rolls made in it still embed it with deleted_at. */
export async function deleteRoom(room: Room, user: User): Promise<void> {
  authorizeRoomOwner(room, user, 'delete it');
  await db().transaction(async (transaction) => {
    const current = await lockRoom(room.id, transaction);
    // The background goes with the room (nothing serves it any more): it no longer counts against the
    // owner's ASSET_BYTES_PER_USER, and a create-upload-delete loop cannot pile up images.
    await RoomBackground.destroy({ where: { roomId: room.id }, transaction });
    await current?.destroy({ transaction });
  });
  publish({ type: 'room.deleted', roomId: room.id, slug: room.slug });
}

const EXTENSIONS: Record<ImageType, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp' };

/** Path (below the API root) of a background: the content hash makes it unguessable and cacheable forever. */
export function backgroundPath(slug: string, sha256: string, type: ImageType): string {
  return `/api/1.0/room/${slug}/background/${sha256}.${EXTENSIONS[type]}`;
}

/**
 * Store the owner's background image (in the database, so every instance serves it) and point
 * `bg_file_path` at its URL under `origin`: a trusted origin (http/origin.ts), or '' for a root-relative
 * link. The image type comes from the bytes only.
 */
export async function setRoomBackground(room: Room, user: User, data: Buffer, origin: string): Promise<RoomRecord> {
  authorizeRoomOwner(room, user, 'change its background');
  const type = sniffImageType(data);
  if (!type) throw new UnsupportedMediaTypeError('The background must be a PNG, JPEG, WebP or GIF image.');
  const sha256 = createHash('sha256').update(data).digest('hex');
  const url = origin + backgroundPath(room.slug, sha256, type);
  await db().transaction(async (transaction) => {
    const current = await lockRoom(room.id, transaction);
    if (!current) return;
    await assertAssetRoom(user.id, data.length, transaction, current.id);
    const existing = await RoomBackground.findOne({ where: { roomId: current.id }, transaction });
    if (existing) await existing.update({ contentType: type, size: data.length, sha256, data }, { transaction });
    else await RoomBackground.create({ roomId: current.id, contentType: type, size: data.length, sha256, data }, { transaction });
    current.bgFilePath = url;
    // Same image again: still a change of the row's updated_at, so clients see the upload took.
    current.changed('updatedAt', true);
    await current.save({ transaction });
  });
  const fresh = await rereadRoom(room.id);
  publish({ type: 'room.updated', roomId: fresh.id, slug: fresh.slug });
  return fresh;
}

/** A live room's background when `sha256` is its current one (old URLs stop working once replaced). */
export async function findRoomBackground(slug: string, sha256: string): Promise<RoomBackground | null> {
  const room = await Room.findOne({ where: { slug }, attributes: ['id'] });
  if (!room) return null;
  return RoomBackground.findOne({ where: { roomId: room.id, sha256 } });
}

/** Rooms `userId` created or joined, newest first, one page of them with owner and participants. */
export async function listRoomsOf(userId: number, page: number, perPage: number): Promise<{ rows: Room[]; total: number }> {
  const id = Number(userId);
  if (!Number.isSafeInteger(id)) throw new Error('listRoomsOf needs an integer user id');
  const where = {
    [Op.or]: [{ userId: id }, { id: { [Op.in]: literal(`(SELECT room_id FROM participants WHERE user_id = ${id})`) } }],
  };
  const { rows: ids, count } = await Room.findAndCountAll({
    where,
    attributes: ['id'],
    order: [['createdAt', 'DESC'], ['id', 'DESC']],
    limit: perPage,
    offset: (page - 1) * perPage,
  });
  if (!ids.length) return { rows: [], total: count };
  const rooms = await Room.findAll({ where: { id: ids.map((r) => r.id) }, include: [{ model: User, as: 'user' }] });
  await attachParticipants(rooms);
  const byId = new Map(rooms.map((r) => [r.id, r]));
  return { rows: ids.map((r) => byId.get(r.id)).filter((r): r is Room => Boolean(r)), total: count };
}
