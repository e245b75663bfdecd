import type { InboundByteLimits } from '../connection/inboundByteBudget';
import { TokenBucket } from '../fanout/draggedDice';

/**
 * What one Pusher connection may make the gateway do, counted before the work is done. Past any of
 * these the connection is closed with 4100 (over capacity: pusher-js retries after a second, on a new
 * connection the per-address handshake limit counts):
 * - frames: MESSAGES_PER_SECOND a second, each one parsed;
 * - bytes: SOCKET_BYTES_PER_SECOND on average (the Socket.IO connections' budget, connection/inboundByteBudget.ts),
 *   counted off the wire before a frame is parsed. The SDK sends a drag frame of about 200 bytes at
 *   most four times a second;
 * - channel changes: subscribe and unsubscribe. Each one costs database reads, a presence write and,
 *   for a user's first or last connection in a room, an announcement to everyone there; a loop of them
 *   is paid by every member. The SDK subscribes three channels when it connects and changes them only
 *   when it changes rooms.
 */

/** Frames one connection may send per second. */
export const MESSAGES_PER_SECOND = 50;

/** Subscribes and unsubscribes one connection may send: bursts of CHANNEL_CHANGES_BURST, CHANNEL_CHANGES_PER_SECOND on average. */
export const CHANNEL_CHANGES_BURST = 20;
export const CHANNEL_CHANGES_PER_SECOND = 1;

export class ConnectionBudget {
  private window = { start: Date.now(), count: 0 };
  private bytes: number;
  private bytesAt = Date.now();
  private readonly channelChanges = new TokenBucket(CHANNEL_CHANGES_PER_SECOND, CHANNEL_CHANGES_BURST);

  constructor(private readonly byteLimits: InboundByteLimits) {
    this.bytes = byteLimits.burst;
  }

  /** Count one frame of `size` bytes; answers why it is one too many, or null. */
  admit(size: number): string | null {
    const now = Date.now();
    if (now - this.window.start >= 1000) this.window = { start: now, count: 0 };
    if (++this.window.count > MESSAGES_PER_SECOND) return 'Too many messages: retry later.';
    const { perSecond, burst } = this.byteLimits;
    this.bytes = Math.min(burst, this.bytes + ((now - this.bytesAt) / 1000) * perSecond) - size;
    this.bytesAt = now;
    if (this.bytes < 0) return `Too many bytes: at most ${perSecond} a second on average; retry later.`;
    return null;
  }

  /** Count one subscribe or unsubscribe; answers why it is one too many, or null. */
  changeChannels(): string | null {
    return this.channelChanges.take() ? null : 'Too many subscribe and unsubscribe messages: retry later.';
  }
}

/** Bytes of one frame as `ws` hands it over (a Buffer unless binaryType says otherwise). */
export function frameSize(raw: Buffer | ArrayBuffer | Buffer[]): number {
  if (Array.isArray(raw)) return raw.reduce((n, part) => n + part.length, 0);
  return raw.byteLength;
}
