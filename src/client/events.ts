import type { Participant, Roll, Room, Theme } from './types';

/**
 * The realtime vocabulary (names as the dddice SDK knows them). Every server -> client payload is
 * `{data: ...}` with what REST would answer the same viewer.
 */
export interface Payload<T> {
  data: T;
  /**
   * Room events: the room's sequence number of this event (strictly increasing per room, not
   * contiguous: a viewer does not see every event). The welcome's RoomUpdateEvent carries where this
   * socket's stream goes on from. Reconnect with the highest one received as `auth.since_seq`.
   */
  seq?: number;
}

export interface Vector3 {
  x: number;
  y: number;
  z: number;
}

/** Euler angles ({x, y, z}) or a quaternion ({x, y, z, w}). */
export interface Rotation extends Vector3 {
  w?: number;
}

/** What a client sends while dragging a die. */
export interface MoveInput {
  /** roll value uuid */
  uuid: string;
  roll_uuid?: string;
  position?: Vector3;
  rotation?: Rotation;
}

/** What the rest of the room receives about a drag. `rotation` is left out for a hidden die's audience. */
export interface MoveData {
  uuid: string;
  roll_uuid: string;
  position?: Vector3;
  rotation?: Rotation;
  user: { uuid: string; username: string };
}

export interface RollDeleteData {
  uuid: string;
  [key: string]: unknown;
}

/** Events of a room namespace (`/room/{slug}`), server -> client. */
export interface RoomServerEvents {
  RoomUpdateEvent: (payload: Payload<Room>) => void;
  /** The room as it was, `deleted_at` set; the server then closes the namespace. */
  RoomDeleteEvent: (payload: Payload<Room>) => void;
  RollCreateEvent: (payload: Payload<Roll>) => void;
  RollUpdateEvent: (payload: Payload<Roll>) => void;
  RollDeleteEvent: (payload: Payload<RollDeleteData>) => void;
  ParticipantConnectEvent: (payload: Payload<Participant>) => void;
  ParticipantDisconnectEvent: (payload: Payload<Participant>) => void;
  RollValueMoveStartEvent: (payload: Payload<MoveData>) => void;
  RollValueMoveEvent: (payload: Payload<MoveData>) => void;
  RollValueMoveEndEvent: (payload: Payload<MoveData>) => void;
  /**
   * The server may have failed to deliver some events to this socket (its Redis connection came back
   * after an outage) and closes the connection right after: reconnect with `since_seq` and `since` (connectRoom does).
   */
  ReplayRequiredEvent: (payload: Payload<ReplayRequiredData>) => void;
}

export interface ReplayRequiredData {
  /** `redis_reconnected` (this instance's subscriber came back) or `events_lost` (another could not publish). */
  reason: string;
}

/** Events a client may send in a room namespace: dragging a die, relayed to the others. */
export interface RoomClientEvents {
  RollValueMoveStartEvent: (move: MoveInput) => void;
  RollValueMoveEvent: (move: MoveInput) => void;
  RollValueMoveEndEvent: (move: MoveInput) => void;
}

/** Events of the user namespace (`/user`): the key's own dice box. */
export interface UserServerEvents {
  DiceBoxCreateEvent: (payload: Payload<Theme>) => void;
  DiceBoxDeleteEvent: (payload: Payload<{ id: string; [key: string]: unknown }>) => void;
}

/** A client sends nothing on `/user`: Socket.IO's typed sockets take an empty event map for that. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- an event map with no events
export interface UserClientEvents {}

export const ROOM_EVENTS = [
  'RoomUpdateEvent',
  'RoomDeleteEvent',
  'RollCreateEvent',
  'RollUpdateEvent',
  'RollDeleteEvent',
  'ParticipantConnectEvent',
  'ParticipantDisconnectEvent',
  'RollValueMoveStartEvent',
  'RollValueMoveEvent',
  'RollValueMoveEndEvent',
  'ReplayRequiredEvent',
] as const satisfies readonly (keyof RoomServerEvents)[];
