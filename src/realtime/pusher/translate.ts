import { RoomEvents, UserEvents } from '../names';
import { appEventName, encodeFrame } from './protocol';

/**
 * The Socket.IO events of a namespace, as the Pusher channels that listen to it say them
 * (docs/realtime.md, "The Pusher gateway"):
 * - room and roll events -> `App\Events\{name}` with the same `{data}` payload, on `presence-room.{slug}`;
 * - dice box events -> `App\Events\{name}` on `private-user.{uuid}`;
 * - participants connecting and leaving -> `pusher_internal:member_added` / `member_removed`
 *   (handled by the subscription: they depend on what it has already told its client);
 * - `PusherClientEvent` (the gateway's own relay of client events) -> the client event itself;
 * - everything else (Socket.IO drags, ReplayRequired) has no Pusher counterpart and is not sent.
 */
export const APP_EVENTS: ReadonlySet<string> = new Set([
  RoomEvents.RoomUpdate,
  RoomEvents.RoomDelete,
  RoomEvents.RollCreate,
  RoomEvents.RollUpdate,
  RoomEvents.RollDelete,
  UserEvents.DiceBoxCreate,
  UserEvents.DiceBoxDelete,
]);

/** The event the gateway relays client events under, among Pusher members only (channels `pusher:*`). */
export const CLIENT_RELAY_EVENT = 'PusherClientEvent';

/** What a relayed client event carries through the adapter. */
export interface RelayedClientEvent {
  data: { event: string; channel: string; userUuid: string; payload: unknown };
}

/**
 * One encoding per payload and channel: every subscription of a viewer class receives the same
 * payload object (one emit per class), so the JSON is made once for all of them on this instance.
 */
const encoded = new WeakMap<object, { channel: string; frame: string }>();

export function appEventFrame(event: string, payload: unknown, channel: string): string {
  if (payload && typeof payload === 'object') {
    const hit = encoded.get(payload);
    if (hit?.channel === channel) return hit.frame;
    // `seq` is for Socket.IO clients' replay (auth.since_seq); Pusher has no replay: its payloads stay `{data}`.
    const frame = encodeFrame(appEventName(event), 'seq' in payload ? { data: (payload as { data?: unknown }).data } : payload, channel);
    encoded.set(payload, { channel, frame });
    return frame;
  }
  return encodeFrame(appEventName(event), payload, channel);
}
