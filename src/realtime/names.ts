/**
 * The realtime vocabulary: event names as the dddice SDK knows them, and where they travel.
 * Server -> client payloads are always `{data: ...}` holding the same presenter output REST gives
 * that viewer.
 */
export const RoomEvents = {
  RoomUpdate: 'RoomUpdateEvent',
  RoomDelete: 'RoomDeleteEvent',
  RollCreate: 'RollCreateEvent',
  RollUpdate: 'RollUpdateEvent',
  RollDelete: 'RollDeleteEvent',
  ParticipantConnect: 'ParticipantConnectEvent',
  ParticipantDisconnect: 'ParticipantDisconnectEvent',
  /**
   * This socket may have missed events (Redis was away): the server closes its connection right
   * after; reconnect with `since_seq` and `since` (socket.io-client does by itself after a closed transport).
   */
  ReplayRequired: 'ReplayRequiredEvent',
} as const;

export const UserEvents = {
  DiceBoxCreate: 'DiceBoxCreateEvent',
  DiceBoxDelete: 'DiceBoxDeleteEvent',
} as const;

/** Client -> server (and relayed to the rest of the room): dragging a die. */
export const MoveEvents = {
  Start: 'RollValueMoveStartEvent',
  Move: 'RollValueMoveEvent',
  End: 'RollValueMoveEndEvent',
} as const;

export type MoveEventName = (typeof MoveEvents)[keyof typeof MoveEvents];
export const MOVE_EVENT_NAMES: readonly MoveEventName[] = [MoveEvents.Start, MoveEvents.Move, MoveEvents.End];

export interface Payload<T = unknown> {
  data: T;
}

/** Namespace of a room: one per slug. */
export const ROOM_NAMESPACE = /^\/room\/[\w-]+$/;
export const USER_NAMESPACE = '/user';

export function roomNamespace(slug: string): string {
  return `/room/${slug}`;
}

export function slugOfNamespace(name: string): string {
  return name.slice('/room/'.length);
}

/** Every socket of a user joins this channel, in each namespace it connects to: privacy is per user. */
export function userChannel(userId: number): string {
  return `user:${userId}`;
}

/**
 * Every welcomed socket of a room namespace joins this channel with its user's (connection/welcome.ts):
 * events for everyone in the room go here, so that one emit names one channel, not every member's.
 */
export const MEMBERS_CHANNEL = 'members';
