import { io, type Socket } from 'socket.io-client';
import { waitUntil } from './waiting';
import { withDeadline } from './deadline';

/** One event as a client received it. */
export interface Received {
  event: string;
  payload: any;
  /** Date.now() when it arrived (for figures logged by tests, never for assertions). */
  at: number;
}

/**
 * A real socket.io-client socket that records every event it receives, from before it connects
 * (the server speaks first: RoomUpdateEvent arrives right after the handshake).
 */
export class Client {
  readonly events: Received[] = [];
  private waiters: Array<() => void> = [];

  constructor(readonly socket: Socket) {
    socket.onAny((event: string, payload: unknown) => {
      this.events.push({ event, payload, at: Date.now() });
      for (const wake of [...this.waiters]) wake();
    });
    socket.on('disconnect', () => {
      for (const wake of [...this.waiters]) wake();
    });
  }

  /** Payloads of `event` received so far. */
  of(event: string): any[] {
    return this.events.filter((e) => e.event === event).map((e) => e.payload);
  }

  /** Resolves once `check()` is true, re-checking on every event; rejects after `timeoutMs`. */
  until<T>(check: () => T | undefined | null | false, what: string, timeoutMs = 10_000): Promise<T> {
    const describe = () => `received: ${this.events.map((e) => e.event).join(', ') || 'nothing'}`;
    const listen = (wake: () => void) => {
      this.waiters.push(wake);
      return () => (this.waiters = this.waiters.filter((w) => w !== wake));
    };
    return waitUntil(listen, check, what, describe, timeoutMs);
  }

  /** The first payload of `event` matching `match` (already received or still to come). */
  waitFor(event: string, match: (payload: any) => boolean = () => true, timeoutMs?: number): Promise<any> {
    return this.until(() => this.of(event).find(match), event, timeoutMs);
  }

  /** Resolves when `n` payloads of `event` have arrived (answers them all). */
  waitForCount(event: string, n: number, timeoutMs?: number): Promise<any[]> {
    return this.until(() => (this.of(event).length >= n ? this.of(event) : null), `${n} x ${event}`, timeoutMs);
  }

  /** Resolves when the server has dropped this socket; answers the reason. */
  waitForDisconnect(timeoutMs = 10_000): Promise<string> {
    if (!this.socket.connected) return Promise.resolve('already disconnected');
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the socket was not disconnected')), timeoutMs);
      this.socket.once('disconnect', (reason) => {
        clearTimeout(timer);
        resolve(reason);
      });
    });
  }

  emit(event: string, payload: unknown) {
    this.socket.emit(event, payload);
  }

  close() {
    this.socket.disconnect();
  }
}

/** Handshake auth; loosely typed on purpose: tests send junk too. */
export type RoomAuth = Record<string, unknown>;

function open(url: string, auth: RoomAuth): Socket {
  // A new manager per socket: each client is its own browser tab, with its own connection.
  return io(url, { auth, transports: ['websocket'], forceNew: true, reconnection: false, timeout: 10_000 });
}

function connected(socket: Socket): Promise<Client> {
  const client = new Client(socket);
  const answered = new Promise<Client>((resolve, reject) => {
    socket.once('connect', () => resolve(client));
    socket.once('connect_error', (err: Error & { data?: unknown }) => {
      socket.disconnect();
      reject(Object.assign(new Error(`connect_error: ${err.message}`), { code: err.message, data: err.data }));
    });
  });
  // socket.io-client's own `timeout` covers the connection, not a handshake the server never answers.
  return withDeadline(answered, 15_000, 'the handshake to be answered').catch((err: Error) => {
    socket.disconnect();
    throw err;
  });
}

/** Connect to `/room/{slug}`; resolves once connected, rejects with the connect_error. */
export function connectRoom(base: string, slug: string, auth: RoomAuth): Promise<Client> {
  return connected(open(`${base}/room/${slug}`, auth));
}

/**
 * Start connecting to `/room/{slug}` without waiting: `opened` resolves when the connection is up
 * and the handshake packet is on its way (the server is checking the key), `connected` as connectRoom.
 */
export function startConnectRoom(base: string, slug: string, auth: RoomAuth): { opened: Promise<void>; connected: Promise<Client> } {
  const socket = open(`${base}/room/${slug}`, auth);
  const opened = withDeadline(new Promise<void>((resolve) => socket.io.once('open', () => resolve())), 15_000, 'the connection to open');
  return { opened, connected: connected(socket) };
}

/** Connect to `/user` with a key. */
export function connectUser(base: string, token: string): Promise<Client> {
  return connected(open(`${base}/user`, { token }));
}

/** The connect_error of a refused handshake: `{code, data}`; fails if the socket connects. */
export async function refusal(base: string, namespace: string, auth: RoomAuth): Promise<{ code: string; data: any }> {
  const socket = open(`${base}${namespace}`, auth);
  try {
    await connected(socket);
  } catch (err) {
    return { code: (err as { code: string }).code, data: (err as { data: unknown }).data };
  } finally {
    socket.disconnect();
  }
  throw new Error(`the handshake to ${namespace} was accepted`);
}

/** Disconnect every client given (safe to call twice). */
export function closeAll(...clients: Array<Client | undefined>) {
  for (const c of clients) c?.close();
}

/**
 * Connect to `/room/{slug}` and wait for the RoomUpdateEvent the server sends each socket it lets in:
 * after it, the socket is a member of the room's audience. `keep` (a test file's list, closed after
 * its tests) gets the client before the wait, so a socket that is never welcomed is still closed.
 */
export async function connectWelcomed(base: string, slug: string, auth: RoomAuth, keep?: Client[]): Promise<Client> {
  const client = await connectRoom(base, slug, auth);
  keep?.push(client);
  await client.waitFor('RoomUpdateEvent');
  return client;
}
