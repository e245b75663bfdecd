import type { Socket } from 'socket.io';
import { writePreEncoded } from '../socketioInternals';

/**
 * One event encoded once and written to many sockets. `socket.emit()` encodes its packet for every
 * socket it is called on; the welcome sends each newcomer the same room (a 1,000-participant room is
 * about 430 KiB of JSON) and the same participants as every other newcomer of its class, and encoding
 * them per socket was the largest cost of connecting after the writes themselves (docs/performance.md).
 * Broadcasts already encode once (socket.io-adapter); this does the same for direct emits.
 */
export type EncodedEvent = unknown[]; // the encoder's packets (text and binary parts), opaque here: it types them any[]

/** Socket.IO's packet type for an event without an acknowledgement (socket.io-parser PacketType.EVENT). */
const EVENT = 2;

/** `event` with `payload` as namespace `nsp` sends it, encoded with the server's own encoder. */
export function encodeEvent(socket: Socket, event: string, payload: unknown): EncodedEvent {
  return socket.nsp.server.encoder.encode({ type: EVENT, nsp: socket.nsp.name, data: [event, payload] });
}

/**
 * Write an encoded event to one socket, as `socket.emit()` would after encoding: through the
 * connection's `_packet` with `preEncoded` (Socket.IO 4's own path for packets encoded once), so
 * holdLiveEvents.ts sees the write like any other. The packet must have been encoded for this socket's
 * namespace. Answers false (and writes nothing) when the socket is no longer connected.
 */
export function sendEncoded(socket: Socket, encoded: EncodedEvent): boolean {
  if (!socket.connected) return false;
  writePreEncoded(socket, encoded);
  return true;
}
