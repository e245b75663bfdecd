import { isOwner, isParticipant } from '../rooms/policy';
import type { RoomRecord } from '../rooms/store/records';
import type { WebhookRecord } from './store/webhooks';

/**
 * Who may do what with webhooks. A webhook is its creator's alone: anyone else is told it does not
 * exist. A room's events go to the webhooks of its owner and participants only, for as long as they
 * are (sockets are dropped alike), and never once the room is deleted (but for its room.deleted).
 */

export function ownsWebhook(hook: Pick<WebhookRecord, 'userId'>, userId: number): boolean {
  return hook.userId === userId;
}

/** May `userId` have a webhook on this room (and still hear it)? */
export function mayHearRoom(room: Pick<RoomRecord, 'userId' | 'participants' | 'memberUserIds'>, userId: number): boolean {
  return isOwner(room, userId) || isParticipant(room, userId);
}

/** Discord's execute-webhook URLs: `https://discord.com/api/webhooks/{id}/{token}` (and its older hosts). */
export function isDiscordUrl(url: URL): boolean {
  return /^(?:(?:canary\.|ptb\.)?discord(?:app)?\.com)$/i.test(url.hostname) && /^\/api(?:\/v\d+)?\/webhooks\/\d+\/[\w-]+\/?$/.test(url.pathname);
}
