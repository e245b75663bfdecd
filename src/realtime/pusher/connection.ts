import { randomInt } from 'node:crypto';
import WebSocket from 'ws';
import type { Broadcaster } from '../broadcaster';
import { ClientEventRelay } from './clientEvents';
import { encodeFrame, errorFrame } from './protocol';
import type { Subscription } from './subscription';
import type { SubscriberConnection } from './subscribe';

/** `\d+\.\d+`, as Pusher server libraries validate socket ids; random, so unique across instances. */
function newSocketId(): string {
  return `${randomInt(1, 2 ** 47)}.${randomInt(1, 2 ** 47)}`;
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
  /** Messages in the last second: a flood is closed with 4100 (retry later), not parsed. */
  private window = { start: Date.now(), count: 0 };

  constructor(
    readonly ws: WebSocket,
    broadcaster: Broadcaster,
    clientEventsPerSecond: number,
  ) {
    this.relay = new ClientEventRelay(this.socketId, broadcaster, (frame) => this.send(frame), clientEventsPerSecond);
  }

  get closed(): boolean {
    return this.isClosed || this.ws.readyState !== WebSocket.OPEN;
  }

  send(frame: string): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(frame);
  }

  sendError(code: number, message: string): void {
    this.send(errorFrame(code, message));
  }

  welcome(activityTimeoutS: number): void {
    this.send(encodeFrame('pusher:connection_established', { socket_id: this.socketId, activity_timeout: activityTimeoutS }));
  }

  /** Count one incoming message; false when the connection sends more than `perSecond`. */
  admit(perSecond: number): boolean {
    const now = Date.now();
    this.lastSeen = now;
    this.pingSentAt = null;
    if (now - this.window.start >= 1000) this.window = { start: now, count: 0 };
    return ++this.window.count <= perSecond;
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
