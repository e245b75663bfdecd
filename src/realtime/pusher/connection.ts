import { randomInt } from 'node:crypto';
import WebSocket from 'ws';
import type { Broadcaster } from '../transport/broadcaster';
import type { InboundByteLimits } from '../connection/inboundByteBudget';
import { closeSlowReader, overBuffered } from '../connection/slowReaders';
import { ConnectionBudget } from './connectionBudget';
import { ClientEventRelay } from './clientEvents';
import { Close, encodeFrame, errorFrame } from './protocol';
import type { Subscription } from './subscription';
import type { SubscriberConnection } from './subscribe';

/** `\d+\.\d+`, as Pusher server libraries validate socket ids; random, so unique across instances. */
function newSocketId(): string {
  return `${randomInt(1, 2 ** 47)}.${randomInt(1, 2 ** 47)}`;
}

/** What one connection may send and be owed (config: SOCKET_BYTES_PER_SECOND, SOCKET_MAX_BUFFERED_BYTES, PUSHER_CLIENT_EVENTS_PER_SECOND). */
export interface ConnectionLimits {
  clientEventsPerSecond: number;
  bytes: InboundByteLimits;
  maxBufferedBytes: number;
  /** Told when the connection is closed for not reading (a log line). */
  onSlowReader?: (buffered: number) => void;
}

/**
 * One websocket of the gateway: its socket id, its channels, its liveness. What it receives is
 * decided in gateway.ts; this holds the state and writes frames.
 */
export class PusherConnection implements SubscriberConnection {
  readonly socketId = newSocketId();
  readonly subscriptions = new Map<string, Subscription | 'pending'>();
  readonly relay: ClientEventRelay;
  /** Last frame from the client (any frame counts as activity). */
  lastSeen = Date.now();
  /** Since when the connection holds no channel (it opened with none). */
  idleSince: number | null = Date.now();
  /** When the server's pusher:ping went out unanswered, or null. */
  pingSentAt: number | null = null;
  private isClosed = false;
  /** What it may send (frames, bytes, channel changes): past it, closed with 4100 (retry later), not parsed. */
  readonly budget: ConnectionBudget;

  constructor(
    readonly ws: WebSocket,
    broadcaster: Broadcaster,
    private readonly limits: ConnectionLimits,
  ) {
    this.budget = new ConnectionBudget(limits.bytes);
    this.relay = new ClientEventRelay(this.socketId, broadcaster, (frame) => this.send(frame), limits.clientEventsPerSecond);
  }

  get closed(): boolean {
    return this.isClosed || this.ws.readyState !== WebSocket.OPEN;
  }

  send(frame: string): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    // A client that does not read what it is sent is closed, not queued for (connection/slowReaders.ts).
    if (overBuffered(this.ws, frame.length, this.limits.maxBufferedBytes)) return this.closeSlowReader();
    this.ws.send(frame);
  }

  private closeSlowReader(): void {
    if (!this.isClosed) this.limits.onSlowReader?.(this.ws.bufferedAmount);
    closeSlowReader(this.ws, () => this.close(Close.OverCapacity, 'Not reading what it is sent: reconnect.'));
  }

  sendError(code: number, message: string): void {
    this.send(errorFrame(code, message));
  }

  welcome(activityTimeoutS: number): void {
    this.send(encodeFrame('pusher:connection_established', { socket_id: this.socketId, activity_timeout: activityTimeoutS }));
  }

  /** Count one incoming frame of `size` bytes (any frame is activity); answers why it is one too many, or null. */
  admit(size: number): string | null {
    this.lastSeen = Date.now();
    this.pingSentAt = null;
    return this.budget.admit(size);
  }

  live(): Subscription[] {
    return [...this.subscriptions.values()].filter((s): s is Subscription => s !== 'pending');
  }

  /** Close with a Pusher close code (pusher-js decides from it whether and when to reconnect). */
  close(code: number, reason: string): void {
    if (this.isClosed) return;
    this.isClosed = true;
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.close(code, reason);
  }
}
