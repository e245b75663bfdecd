import { io, type ManagerOptions, type Socket, type SocketOptions } from 'socket.io-client';
import type { RoomClientEvents, RoomServerEvents, UserClientEvents, UserServerEvents } from './events';

export type RoomSocket = Socket<RoomServerEvents, RoomClientEvents>;
export type UserSocket = Socket<UserServerEvents, UserClientEvents>;

export interface RoomConnectOptions {
  /** A private room's passcode. */
  passcode?: string | null;
  /** The uuid of the last roll this client saw: the server replays what came after it. */
  since?: string | null;
  /** Passed to socket.io-client as is (transports, reconnection...). */
  socket?: Partial<ManagerOptions & SocketOptions>;
}

/**
 * A live room: `io(base + '/room/' + slug, {auth: {token, passcode, since}})`. A refused handshake
 * arrives as `connect_error` whose `message` is the error code (`unauthorized`, `forbidden`,
 * `not_found`) and whose `data.message` is a sentence for people.
 *
 * `auth` is a function, so a reconnection sends the latest `since` (see `trackSince`).
 */
export function connectRoom(baseUrl: string, token: string, slug: string, options: RoomConnectOptions = {}): RoomSocket {
  const state = { since: options.since ?? null };
  const socket: RoomSocket = io(`${baseUrl.replace(/\/+$/, '')}/room/${encodeURIComponent(slug)}`, {
    transports: ['websocket', 'polling'],
    ...options.socket,
    auth: (cb) => {
      const auth: Record<string, string> = { token };
      if (options.passcode) auth.passcode = options.passcode;
      if (state.since) auth.since = state.since;
      cb(auth);
    },
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

/** The user namespace: dice box changes of the key's own user. */
export function connectUser(baseUrl: string, token: string, options: Partial<ManagerOptions & SocketOptions> = {}): UserSocket {
  return io(`${baseUrl.replace(/\/+$/, '')}/user`, { transports: ['websocket', 'polling'], ...options, auth: { token } });
}
