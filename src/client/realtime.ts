import { io, type ManagerOptions, type Socket, type SocketOptions } from 'socket.io-client';
import type { RoomClientEvents, RoomServerEvents, UserClientEvents, UserServerEvents } from './events';

export type RoomSocket = Socket<RoomServerEvents, RoomClientEvents>;
export type UserSocket = Socket<UserServerEvents, UserClientEvents>;

export interface RoomConnectOptions {
  /** A private room's passcode. */
  passcode?: string | null;
  /** The uuid of the last roll this client saw: the server replays what came after it. */
  since?: string | null;
  /**
   * The highest `seq` this client received in this room (an earlier socket's): the server replays
   * exactly the room events after it that this user may see. Kept up to date by the socket itself.
   */
  sinceSeq?: number | null;
  /** Passed to socket.io-client as is (transports, reconnection...). */
  socket?: Partial<ManagerOptions & SocketOptions>;
}

/**
 * A live room: `io(base + '/room/' + slug, {auth: {token, passcode, since}})`. A refused handshake
 * arrives as `connect_error` whose `message` is the error code (`unauthorized`, `forbidden`,
 * `not_found`) and whose `data.message` is a sentence for people.
 *
 * `auth` is a function, so a reconnection sends the latest `since` and `since_seq`: the highest seq
 * received (every room event carries one), which the server replays from exactly; `since` (the last
 * roll's uuid) is the fall-back when its log no longer covers that seq. `lastSeq(socket)` reads it.
 */
export function connectRoom(baseUrl: string, token: string, slug: string, options: RoomConnectOptions = {}): RoomSocket {
  const state = { since: options.since ?? null, seq: options.sinceSeq ?? null };
  const socket: RoomSocket = io(`${baseUrl.replace(/\/+$/, '')}/room/${encodeURIComponent(slug)}`, {
    transports: ['websocket', 'polling'],
    ...options.socket,
    auth: (cb) => {
      const auth: Record<string, string | number> = { token };
      if (options.passcode) auth.passcode = options.passcode;
      if (state.since) auth.since = state.since;
      if (state.seq !== null) auth.since_seq = state.seq;
      cb(auth);
    },
  });
  seqs.set(socket, state);
  socket.onAny((_event: string, payload?: { seq?: unknown }) => {
    if (typeof payload?.seq === 'number' && (state.seq === null || payload.seq > state.seq)) state.seq = payload.seq;
  });
  // Remember the last roll seen, so a reconnection replays only what was missed.
  socket.on('RollCreateEvent', (payload) => {
    if (payload?.data?.uuid) state.since = payload.data.uuid;
  });
  // The server may have missed delivering events to us (docs/realtime.md, ReplayRequiredEvent): it
  // closes the connection next. socket.io-client reconnects by itself after that (the auth function
  // sends `since`), unless reconnection is off: then reconnect here, after a random pause so that
  // the clients of a whole instance do not all come back in the same instant.
  let replayRequired = false;
  socket.on('ReplayRequiredEvent', () => {
    replayRequired = true;
  });
  socket.on('disconnect', () => {
    if (!replayRequired) return;
    replayRequired = false;
    if (!socket.io.reconnection()) setTimeout(() => socket.connect(), 250 + Math.random() * 1000);
  });
  return socket;
}

const seqs = new WeakMap<RoomSocket, { seq: number | null }>();

/** The highest seq `socket` (from connectRoom) received, or null: give it as `sinceSeq` to a new socket of the same room. */
export function lastSeq(socket: RoomSocket): number | null {
  return seqs.get(socket)?.seq ?? null;
}

/** The user namespace: dice box changes of the key's own user. */
export function connectUser(baseUrl: string, token: string, options: Partial<ManagerOptions & SocketOptions> = {}): UserSocket {
  return io(`${baseUrl.replace(/\/+$/, '')}/user`, { transports: ['websocket', 'polling'], ...options, auth: { token } });
}
