import { loadRolls } from '../rolls/store/load';
import type { RollRecord } from '../rolls/store/records';
import { canSeeRoll } from '../rolls/policy';
import { presentRoll } from '../rolls/present';
import { presentParticipant, presentRoom } from '../rooms/present';
import { findUsersByIds } from '../users/store';
import { presentUser } from '../users/present';
import { readRoomById } from '../rooms/store/read';
import type { RoomRecord } from '../rooms/store/records';
import { ts } from '../http/time';
import type { Roll } from '../client/types';
import { discordMessage } from './discord';
import { mayHearRoom } from './policy';
import type { DeliveryRecord } from './store/deliveries';
import type { WebhookRecord } from './store/webhooks';

/** What to send for one delivery, or why nothing is sent (the log shows the reason). */
export type Built = { body: string } | { skip: string };

/**
 * The body of `delivery` for `hook`, presented now, as a socket of the webhook's owner would get it
 * (visibility `owner`: the same presenters, the same per-viewer redaction) or as a bystander of the
 * room would (`public`: a participant who is neither the roller nor whispered to, and not the owner:
 * hidden dice are null, whispers are never sent, the room's passcode neither).
 *
 * Access is decided here, at each attempt, not when the event was recorded: a participant removed
 * from the room, or a room deleted, ends its webhooks' deliveries for that room, as it drops sockets.
 */
export async function buildBody(delivery: DeliveryRecord, hook: WebhookRecord, rolls: RollCache = new Map()): Promise<Built> {
  const data = await eventData(delivery, hook, rolls);
  if ('skip' in data) return data;
  if (hook.format === 'discord') {
    if (delivery.eventType === 'webhook.test')
      return { body: JSON.stringify({ content: 'Webhook test: this channel will receive rolls.', allowed_mentions: { parse: [] } }) };
    if (delivery.eventType !== 'roll.created') return { skip: 'The Discord format sends one message per new roll; other events are not sent.' };
    return { body: JSON.stringify(discordMessage(data.data as Roll)) };
  }
  // `seq` beside `data`, as a socket gets it: the room's number of the event (null outside rooms, or never numbered).
  return { body: JSON.stringify({ type: delivery.eventType, timestamp: ts(new Date(delivery.createdMs)), data: data.data, seq: delivery.seq }) };
}

/**
 * Rolls loaded for one batch of deliveries, by id: a roll sent to ten webhooks is read once. Each
 * webhook still gets its own presentation (its owner, its visibility).
 */
export type RollCache = Map<number, Promise<RollRecord | undefined>>;

function rollOf(rolls: RollCache, id: number): Promise<RollRecord | undefined> {
  let roll = rolls.get(id);
  if (!roll) rolls.set(id, (roll = loadRolls([id]).then(([r]) => r)));
  return roll;
}

/** The viewer the webhook stands for: its owner, or nobody in particular (public). */
function viewerOf(hook: WebhookRecord): number | null {
  return hook.visibility === 'owner' ? hook.userId : null;
}

async function eventData(delivery: DeliveryRecord, hook: WebhookRecord, rolls: RollCache): Promise<{ data: unknown } | { skip: string }> {
  const p = delivery.payload;
  switch (delivery.eventType) {
    case 'webhook.test':
      return { data: { webhook_id: hook.uuid, message: 'This is a test event: your endpoint received it and can verify its signature.' } };
    case 'roll.created':
    case 'roll.updated': {
      const roll = await rollOf(rolls, Number(p.rollId));
      if (!roll) return { skip: 'The roll no longer exists.' };
      if (hook.roomId !== null) {
        if (roll.roomId !== hook.roomId) return { skip: "The roll is not in the webhook's room." };
        const room = roll.room as RoomRecord | undefined;
        if (!room || room.deletedAt) return { skip: 'The room was deleted.' };
        if (!mayHearRoom(room, hook.userId)) return { skip: "The webhook's owner is no longer in the room." };
      } else if (roll.userId !== hook.userId) return { skip: "The roll is not the webhook owner's." };
      if (!canSeeRoll(roll, hook.userId)) return { skip: "The webhook's owner may not see this roll." };
      if (hook.visibility === 'public' && roll.isWhispered) return { skip: 'Whispered rolls are not sent to public webhooks.' };
      return { data: presentRoll(roll, viewerOf(hook)) };
    }
    case 'roll.deleted': {
      const room = await liveRoomOf(hook, Number(p.roomId));
      if ('skip' in room) return room;
      const audience = Array.isArray(p.audience) ? (p.audience as number[]) : null;
      if (audience && (hook.visibility === 'public' || !audience.includes(hook.userId))) return { skip: "The webhook's owner could not see this roll." };
      return { data: { uuid: String(p.uuid) } };
    }
    case 'room.updated':
    case 'room.deleted': {
      const room = await liveRoomOf(hook, Number(p.roomId), delivery.eventType === 'room.deleted');
      if ('skip' in room) return room;
      return { data: presentRoom(room.room, viewerOf(hook)) };
    }
    case 'participant.joined':
    case 'participant.updated': {
      const room = await liveRoomOf(hook, Number(p.roomId));
      if ('skip' in room) return room;
      const seat = room.room.participants?.find((x) => x.id === Number(p.participantId));
      if (!seat) return { skip: 'The participant is no longer in the room.' };
      return { data: presentParticipant(seat) };
    }
    case 'participant.left': {
      const room = await liveRoomOf(hook, Number(p.roomId));
      if ('skip' in room) return room;
      // The seat is gone: its id, and who it was.
      const [user] = await findUsersByIds([Number(p.userId)]);
      return { data: { id: Number(p.participantId), user: user ? presentUser(user) : null } };
    }
    default:
      return { skip: `Unknown event ${delivery.eventType}.` };
  }
}

/** The webhook's room if its owner may still hear it (deleted ones only for room.deleted). */
async function liveRoomOf(hook: WebhookRecord, roomId: number, deleted = false): Promise<{ room: RoomRecord } | { skip: string }> {
  if (hook.roomId !== roomId) return { skip: "The event is not about the webhook's room." };
  const room = await readRoomById(roomId, { includeDeleted: deleted });
  if (!room) return { skip: 'The room was deleted.' };
  if (!mayHearRoom(room, hook.userId)) return { skip: "The webhook's owner is no longer in the room." };
  return { room };
}
