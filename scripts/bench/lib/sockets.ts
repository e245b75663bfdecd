import { io, type Socket } from 'socket.io-client';

export interface Listener {
  socket: Socket;
  /** Count of each event name received. */
  counts: Map<string, number>;
}

/**
 * Connect one websocket-only Socket.IO client to a room namespace with `auth: {token, passcode}`.
 * Rejects with the connect_error message (the error code) when the server refuses it.
 */
export function connectRoom(base: string, slug: string, token: string, options: { passcode?: string; since?: string; timeoutMs?: number; reconnection?: boolean } = {}): Promise<Listener> {
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
