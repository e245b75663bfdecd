import type { Server } from 'socket.io';
import type { Logger } from '../../logger';

/** Bytes a connection may send: `perSecond` on average, bursts up to `burst`. */
export interface InboundByteLimits {
  perSecond: number;
  burst: number;
}

/**
 * What a client sends costs CPU before any handler sees it: Socket.IO decodes every packet (JSON) and
 * the move relay validates it. The move relay's token bucket counts events after that work is done,
 * so it cannot bound it; this counts bytes, per connection (every namespace of it), as each packet
 * arrives from the transport and before it is decoded. A connection that spends more than its budget
 * is closed: real clients send moves of a few hundred bytes, at most 60 a second (about 18 KB/s), far
 * below the default of 64 KiB/s. A closed client must handshake again, which the per-address
 * handshake limit counts. Packets larger than maxHttpBufferSize never get this far (server.ts).
 */
export function limitInboundBytes(io: Server, limits: InboundByteLimits, logger: Logger): void {
  io.engine.on('connection', (conn: EngineConnection) => {
    let tokens = limits.burst;
    let last = Date.now();
    conn.on('packet', (packet: { type: string; data?: unknown }) => {
      const data = packet.data;
      const size = typeof data === 'string' ? data.length : data instanceof Uint8Array || data instanceof ArrayBuffer ? data.byteLength : 0;
      const now = Date.now();
      tokens = Math.min(limits.burst, tokens + ((now - last) / 1000) * limits.perSecond) - size - 1;
      last = now;
      if (tokens >= 0 || conn.readyState !== 'open') return;
      logger.warn({ address: conn.remoteAddress, perSecond: limits.perSecond }, 'socket connection over its inbound byte budget: closed');
      // Engine.IO drops every later packet of a connection that is no longer open; this one is still
      // decoded, and is at most maxHttpBufferSize. `true`: close now, without flushing what we owe it.
      conn.close(true);
    });
  });
}

/** The part of an Engine.IO socket used here (socket.io does not export the type). */
interface EngineConnection {
  readyState: string;
  remoteAddress: string;
  on(event: 'packet', listener: (packet: { type: string; data?: unknown }) => void): void;
  close(discard?: boolean): void;
}
