import { io, type Socket } from 'socket.io-client';

export interface Listener {
  socket: Socket;
  /** Count of each event name received. */
  counts: Map<string, number>;
}

export interface ConnectOptions {
  passcode?: string;
  since?: string;
  timeoutMs?: number;
  reconnection?: boolean;
  /** Attempts after a transport failure (a connection reset while connecting); refusals are not retried. */
  retries?: number;
}

/** Connections that had to be retried after a transport failure, since the process started (reported by the benchmarks). */
export const connectRetries = { count: 0 };

/**
 * Connect one websocket-only Socket.IO client to a room namespace with `auth: {token, passcode}`.
 * Rejects with the connect_error message (the error code) when the server refuses it. A connection
 * reset while connecting (seen under load with 1,000 sockets from one process) is tried again, up
 * to `retries` times, and counted in `connectRetries`.
 */
export async function connectRoom(base: string, slug: string, token: string, options: ConnectOptions = {}): Promise<Listener> {
  const retries = options.retries ?? 3;
  for (let attempt = 0; ; attempt++) {
    try {
      return await connectOnce(base, slug, token, options);
    } catch (err) {
      const transport = (err as { type?: string }).type === 'TransportError' || /websocket error|ECONNRESET|xhr poll error/.test((err as Error).message);
      if (!transport || attempt >= retries) throw err;
      connectRetries.count++;
      await new Promise((r) => setTimeout(r, 200 * (attempt + 1)));
    }
  }
}

function connectOnce(base: string, slug: string, token: string, options: ConnectOptions): Promise<Listener> {
  const socket = io(`${base}/room/${slug}`, {
    auth: { token, ...(options.passcode ? { passcode: options.passcode } : {}), ...(options.since ? { since: options.since } : {}) },
    transports: ['websocket'],
    reconnection: options.reconnection ?? false,
    forceNew: true,
    timeout: options.timeoutMs ?? 10_000,
  });
  const counts = new Map<string, number>();
  socket.onAny((event: string) => counts.set(event, (counts.get(event) ?? 0) + 1));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error('socket did not connect in time'));
    }, options.timeoutMs ?? 10_000);
    socket.once('connect', () => {
      clearTimeout(timer);
      resolve({ socket, counts });
    });
    socket.once('connect_error', (err: Error) => {
      clearTimeout(timer);
      socket.close();
      reject(err);
    });
  });
}

/** Run `fn` over `items` with at most `width` at a time. */
export async function inBatches<T, R>(items: readonly T[], width: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return out;
}
