/**
 * The Pusher protocol (version 7) as the stock dddice SDK speaks it through pusher-js 8 and Laravel
 * Echo: frames, channel names, close and error codes. The facts and where they were read are in
 * docs/realtime.md ("The Pusher gateway") and Pusher's protocol reference
 * (https://pusher.com/docs/channels/library_auth_reference/pusher-websockets-protocol/).
 */

/** The app key compiled into every build of the stock SDK: accepted at /app/{key} without configuration. */
export const SDK_APP_KEY = 'DpMX1V2rIuVz9nTWIpm8YrXfVgGoFKFvhgxYTbyMgdq8wm06LIZ6taHaDIb9aaaa';

/** Protocol versions whose frames are the ones handled here (pusher-js 7 and 8 send 7). */
export const PROTOCOLS = new Set(['5', '6', '7']);

/**
 * Close codes and what pusher-js does with them (connection_manager.ts getCloseAction):
 * 4000-4099 refused for good, 4100-4199 retry after a second, 4200-4299 retry at once.
 * 4000 itself means "use TLS" and is never sent: on a plain-ws deployment the client would loop.
 */
export const Close = {
  /** No such app key (the client gives up: a wrong key will not become right). */
  UnknownApp: 4001,
  /** Not under /app/{key}. */
  PathNotFound: 4005,
  /** A protocol version this server does not speak. */
  UnsupportedProtocol: 4007,
  NoProtocol: 4008,
  /** Over this instance's connection capacity: retry after a delay, perhaps elsewhere. */
  OverCapacity: 4100,
  /**
   * A frame this server failed to handle (a fault of its own, caught at the connection's boundary):
   * only that connection closes, in the back-off range so that a client resending the same frame
   * comes back after a second rather than at once.
   */
  InternalError: 4199,
  /** Shutting down, or the connection's authorisations must be redone: reconnect now (elsewhere). */
  Reconnect: 4200,
  /** Asked for a pong and got nothing. */
  PongNotReceived: 4201,
  /** Connected but never subscribed within the activity timeout. */
  Inactive: 4202,
} as const;

/** `pusher:error` codes sent as messages on a live connection (never as close codes: 43xx would stop the client). */
export const ErrorCode = {
  /** A malformed message or an event the server does not take. */
  Generic: 4300,
  /** Client events over the per-connection rate. */
  ClientEventRateLimit: 4301,
} as const;

/** One frame as the wire carries it. Server -> client `data` is a JSON-encoded string (the Pusher convention). */
export interface Frame {
  event: string;
  channel?: string;
  data: string;
  user_id?: string;
}

/** Encode a server frame; `data` is JSON-encoded into a string unless it already is one. */
export function encodeFrame(event: string, data: unknown, channel?: string, userId?: string): string {
  const frame: Frame = { event, data: typeof data === 'string' ? data : JSON.stringify(data) };
  if (channel !== undefined) frame.channel = channel;
  if (userId !== undefined) frame.user_id = userId;
  return JSON.stringify(frame);
}

/** An error as a message (the connection stays open). */
export function errorFrame(code: number, message: string): string {
  // pusher:error carries an object, not a string, in every captured server (and pusher-js reads both).
  return JSON.stringify({ event: 'pusher:error', data: { code, message } });
}

/**
 * A client message: `data` may be an object (pusher-js) or a JSON string (other clients). Its fields
 * are the client's: read each as the type it must have (shapeChecks.ts stringAt), never with String(x).
 */
export interface ClientMessage {
  event: string;
  channel?: string;
  data: Record<string, unknown>;
}

/** Parse one text frame from a client; null for anything that is not a Pusher message. */
export function decodeMessage(text: string): ClientMessage | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const { event, channel } = value as Record<string, unknown>;
  let data = (value as Record<string, unknown>).data;
  if (typeof event !== 'string' || event.length > 200) return null;
  if (channel !== undefined && (typeof channel !== 'string' || channel.length > 200)) return null;
  if (typeof data === 'string') {
    try {
      data = JSON.parse(data);
    } catch {
      return null;
    }
  }
  if (data === undefined || data === null) data = {};
  if (typeof data !== 'object' || Array.isArray(data)) return null;
  return { event, ...(channel !== undefined ? { channel } : {}), data: data as Record<string, unknown> };
}

/** The channels the SDK subscribes, parsed; null for every other name (refused). */
export type ChannelRef =
  | { kind: 'presence-room'; name: string; slug: string }
  | { kind: 'private-room'; name: string; slug: string; userUuid: string }
  | { kind: 'private-user'; name: string; userUuid: string };

const SLUG = '[\\w-]{1,100}';
const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
const PRESENCE_ROOM = new RegExp(`^presence-room\\.(${SLUG})$`);
const PRIVATE_ROOM = new RegExp(`^private-room\\.(${SLUG})\\.(${UUID})$`);
const PRIVATE_USER = new RegExp(`^private-user\\.(${UUID})$`);

export function parseChannel(name: string): ChannelRef | null {
  let m = PRESENCE_ROOM.exec(name);
  if (m) return { kind: 'presence-room', name, slug: m[1]! };
  m = PRIVATE_ROOM.exec(name);
  if (m) return { kind: 'private-room', name, slug: m[1]!, userUuid: m[2]!.toLowerCase() };
  m = PRIVATE_USER.exec(name);
  if (m) return { kind: 'private-user', name, userUuid: m[1]!.toLowerCase() };
  return null;
}

/** Socket ids as Pusher server libraries (Laravel's included) validate them. */
export const SOCKET_ID = /^\d{1,20}\.\d{1,20}$/;

/** Application events: the Socket.IO name (src/realtime/names.ts) -> the Laravel event class the SDK binds. */
export function appEventName(socketIoName: string): string {
  return `App\\Events\\${socketIoName}`;
}
