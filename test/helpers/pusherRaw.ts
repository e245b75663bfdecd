import type net from 'node:net';
import WebSocket from 'ws';
import { SDK_KEY } from './pusher';
import { waitUntil } from './waiting';

/** One frame as the server wrote it, `data` decoded from its JSON string. */
export interface RawFrame {
  event: string;
  channel?: string;
  data: any;
  user_id?: string;
}

/**
 * A bare `ws` client speaking the Pusher protocol frame by frame, for what pusher-js will not do:
 * client events on any channel, subscribe loops, oversized frames, and a reader that stops reading
 * (`pause()` stops taking bytes off the TCP socket, so the server's writes pile up).
 */
export class RawPusher {
  readonly frames: RawFrame[] = [];
  socketId = '';
  closed: { code: number; reason: string } | null = null;
  private waiters: Array<() => void> = [];

  private constructor(
    readonly ws: WebSocket,
    private readonly base: string,
  ) {
    ws.on('error', () => undefined);
    ws.on('message', (raw) => {
      const frame = JSON.parse(raw.toString()) as RawFrame;
      if (typeof frame.data === 'string') {
        try {
          frame.data = JSON.parse(frame.data);
        } catch {
          // a plain string payload stays as it is
        }
      }
      this.frames.push(frame);
      this.wake();
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.wake();
    });
  }

  static async connect(base: string): Promise<RawPusher> {
    const ws = new WebSocket(`${base.replace('http', 'ws')}/app/${SDK_KEY}?protocol=7&client=js&version=8.4.0&flash=false`, { perMessageDeflate: false });
    const client = new RawPusher(ws, base);
    const hello = await client.waitFor((f) => f.event === 'pusher:connection_established');
    client.socketId = hello.data.socket_id;
    return client;
  }

  private wake() {
    for (const wake of [...this.waiters]) wake();
  }

  until<T>(check: () => T | undefined | null | false, what: string, timeoutMs = 10_000): Promise<T> {
    const listen = (wake: () => void) => {
      this.waiters.push(wake);
      return () => (this.waiters = this.waiters.filter((w) => w !== wake));
    };
    const describe = () =>
      `received: ${this.frames.map((f) => `${f.event}@${f.channel ?? ''}`).join(', ') || 'nothing'}; closed: ${JSON.stringify(this.closed)}`;
    return waitUntil(listen, check, what, describe, timeoutMs);
  }

  waitFor(match: (f: RawFrame) => boolean, timeoutMs?: number): Promise<RawFrame> {
    return this.until(() => this.frames.find(match), 'a matching frame', timeoutMs);
  }

  waitForClose(timeoutMs?: number): Promise<{ code: number; reason: string }> {
    return this.until(() => this.closed, 'the connection to close', timeoutMs);
  }

  of(event: string, channel?: string): RawFrame[] {
    return this.frames.filter((f) => f.event === event && (channel === undefined || f.channel === channel));
  }

  send(event: string, data: unknown, channel?: string): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({ event, data, ...(channel ? { channel } : {}) }));
  }

  /** POST /broadcasting/auth for this connection, as the SDK does. */
  async grant(key: string, channel: string): Promise<{ auth: string; channel_data?: string }> {
    const res = await fetch(`${this.base}/broadcasting/auth`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ socket_id: this.socketId, channel_name: channel }),
    });
    if (!res.ok) throw new Error(`/broadcasting/auth answered ${res.status}`);
    return (await res.json()) as { auth: string; channel_data?: string };
  }

  /** Authorise and subscribe; resolves with the channel's answer (succeeded or error). */
  async subscribe(key: string, channel: string, grant?: { auth: string; channel_data?: string }): Promise<RawFrame> {
    const given = grant ?? (await this.grant(key, channel));
    const before = this.frames.length;
    this.send('pusher:subscribe', { channel, ...given });
    return this.until(
      () =>
        this.frames
          .slice(before)
          .find((f) => f.channel === channel && (f.event === 'pusher_internal:subscription_succeeded' || f.event === 'pusher:subscription_error')),
      `the answer to subscribing ${channel}`,
    );
  }

  /** The TCP socket under the websocket: pause() it to stop reading. */
  get tcp(): net.Socket {
    return (this.ws as unknown as { _socket: net.Socket })._socket;
  }

  close(): void {
    this.tcp?.resume();
    this.ws.terminate();
  }
}
