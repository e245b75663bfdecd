import { createHmac } from 'node:crypto';
import { ForbiddenError, NotFoundError } from '../../errors';
import { authorizeRoomConnection } from '../../rooms/access';
import { presentParticipant, type PresentedParticipant } from '../../rooms/present';
import { findParticipant } from '../../rooms/store/read';
import { listLiveApiKeys } from '../../users/store';
import { parseChannel, type ChannelRef } from './protocol';

/** Who asks for a channel: the user behind the API key (REST) or behind a signed grant (the gateway). */
export interface Grantee {
  id: number;
  uuid: string;
}

export interface Grant {
  channel: ChannelRef;
  /** Room channels: the room, by id and slug. */
  room?: { id: number; slug: string };
  /** presence-room: the grantee as the room's participants show it (`user_info`). */
  participant?: PresentedParticipant;
}

const refused = (message: string) => new ForbiddenError(message);

/**
 * The one rule for Pusher channels, asked by POST /broadcasting/auth and again by the gateway when the
 * subscription arrives (the room may have changed in between):
 * - `presence-room.{slug}`: the room's owner and participants (joining is by REST first), as for the
 *   Socket.IO namespace of the room (rooms/access.ts authorizeRoomConnection);
 * - `private-room.{slug}.{uuid}`: the user `uuid` itself, a participant of the room;
 * - `private-user.{uuid}`: the user `uuid` itself;
 * - nothing else. Every refusal is a ForbiddenError (403): a room that does not exist is refused the
 *   same way, so a channel name says nothing about which rooms exist.
 */
export async function grantChannel(user: Grantee, channelName: string): Promise<Grant> {
  const channel = parseChannel(channelName);
  if (!channel) throw refused('Only presence-room.{slug}, private-room.{slug}.{uuid} and private-user.{uuid} channels can be authorised.');
  if (channel.kind !== 'presence-room' && channel.userUuid !== user.uuid.toLowerCase()) throw refused("That channel is another user's.");
  if (channel.kind === 'private-user') return { channel };
  let room: { id: number; slug: string };
  try {
    room = await authorizeRoomConnection(channel.slug, user.id);
  } catch (err) {
    if (err instanceof NotFoundError || err instanceof ForbiddenError)
      throw refused(`Join the room first (POST /api/1.0/room/${channel.slug}/participant), then subscribe.`);
    throw err;
  }
  if (channel.kind === 'private-room') return { channel, room };
  const seat = await findParticipant(room.id, user.id);
  if (!seat) throw refused(`Join the room first (POST /api/1.0/room/${channel.slug}/participant), then subscribe.`);
  return { channel, room, participant: presentParticipant(seat) };
}

/**
 * What a grant hands the client and the client hands back with its subscription, signed with it:
 * `user_id` (pusher-js keys presence members by it), `user_info` on presence channels, and `key`, which
 * API key the grant was made for, so that revoking that key ends the subscription (gateway.ts). `key`
 * is an opaque reference (keyRef), never the key's row id: the API shows no internal ids.
 */
export interface ChannelData {
  user_id: string;
  user_info?: PresentedParticipant;
  key: string;
}

/**
 * The opaque reference of API key `keyId`: an HMAC of its id under the secret every instance shares
 * (PUSHER_APP_SECRET), so any instance can tell which of a user's keys it names and nobody can tell
 * the id from it.
 */
export function keyRef(secret: string, keyId: number): string {
  return createHmac('sha256', secret).update(`api-key:${keyId}`).digest('hex').slice(0, 32);
}

export function channelDataOf(user: Grantee, grant: Grant, keyRef: string): string {
  const data: ChannelData = { user_id: user.uuid, ...(grant.participant ? { user_info: grant.participant } : {}), key: keyRef };
  return JSON.stringify(data);
}

/** channel_data as the gateway received it (signed, so ours), or null when it is not. */
export function parseChannelData(text: unknown): { userUuid: string; keyRef: string } | null {
  if (typeof text !== 'string' || text.length > 64 * 1024) return null;
  try {
    const value = JSON.parse(text) as Partial<ChannelData> | null;
    if (!value || typeof value.user_id !== 'string' || typeof value.key !== 'string' || !/^[0-9a-f]{32}$/.test(value.key)) return null;
    return { userUuid: value.user_id.toLowerCase(), keyRef: value.key };
  } catch {
    return null;
  }
}

/** Which of the user's live keys `ref` names (a user holds a few: MAX_LIVE_KEYS through the API), or null. */
export async function liveKeyIdByRef(secret: string, userId: number, ref: string): Promise<number | null> {
  const keys = await listLiveApiKeys(userId);
  return keys.find((k) => keyRef(secret, k.id) === ref)?.id ?? null;
}
