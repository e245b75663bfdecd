import type { Server } from 'socket.io';
import type WebSocket from 'ws';
import type { Logger } from '../../logger';
import { engineWebSocket } from '../socketioInternals';

/**
 * Clients that read slower than they are sent to. Everything written to a connection waits in the
 * server's memory until the client takes it: first in the kernel's socket buffer (a few MB on
 * loopback, outside the heap), then in `ws`'s and Node's write queues, and for Socket.IO in the
 * Engine.IO socket's write buffer while its transport is busy. A client that stops reading would hold
 * all of it forever; 20 of them holding 12 large rolls each grew the process by 243 MB. So each
 * connection may be owed at most SOCKET_MAX_BUFFERED_BYTES: the write that would go past it closes the
 * connection instead (Socket.IO: a disconnect, the client reconnects; Pusher: close code 4100, pusher-js
 * retries after a second), and the queue is freed. A client that keeps up never comes near it: what
 * one roll or one welcome sends at once is far below the default of 4 MiB.
 */

/**
 * How long a slow connection gets to take its closing frame before its socket is cut: a client that
 * is merely slow reads the close code; one that stopped reading must not keep its queue for ws's own
 * 30-second closing timeout.
 */
export const SLOW_READER_GRACE_MS = 2000;

/** Close a websocket whose client does not read, and cut it if the closing handshake does not finish soon. */
export function closeSlowReader(ws: WebSocket, close: () => void): void {
  close();
  const timer = setTimeout(() => ws.terminate(), SLOW_READER_GRACE_MS);
  timer.unref();
  ws.once('close', () => clearTimeout(timer));
}

/** Whether writing `more` bytes to `ws` would leave more than `max` bytes its client has not taken. */
export function overBuffered(ws: WebSocket, more: number, max: number): boolean {
  // ws's own queue plus the TCP socket's write queue (ws 8: `bufferedAmount`).
  return ws.bufferedAmount + more > max;
}

/**
 * Socket.IO: per Engine.IO connection, the bytes of the packets created since its last flush (they wait
 * in its write buffer while the transport is busy writing the previous batch) plus what the websocket
 * under it still holds. Counted as each packet is created, before it is queued: a broadcast to a
 * thousand sockets costs one listener call and an addition per socket.
 */
export function limitOutboundBytes(io: Server, maxBuffered: number, logger: Logger): void {
  io.engine.on('connection', (conn: EngineConnection) => {
    let queued = 0;
    conn.on('flush', () => {
      queued = 0;
    });
    conn.on('packetCreate', (packet) => {
      queued += sizeOf(packet.data);
      const ws = engineWebSocket(conn);
      const buffered = queued + (ws ? ws.bufferedAmount : 0);
      if (buffered <= maxBuffered || conn.readyState !== 'open') return;
      logger.warn({ address: conn.remoteAddress, buffered, maxBuffered }, 'socket connection does not read what it is sent: closed');
      // `true`: discard the write buffer now rather than wait for a drain that will not come.
      if (ws) closeSlowReader(ws, () => conn.close(true));
      else conn.close(true);
    });
  });
}

function sizeOf(data: unknown): number {
  if (typeof data === 'string') return data.length;
  if (data instanceof Uint8Array || data instanceof ArrayBuffer) return data.byteLength;
  return 0;
}

/** The part of an Engine.IO socket used here (socket.io does not export the type). */
interface EngineConnection {
  readyState: string;
  remoteAddress: string;
  on(event: 'flush', listener: () => void): void;
  on(event: 'packetCreate', listener: (packet: { type: string; data?: unknown }) => void): void;
  close(discard?: boolean): void;
}
