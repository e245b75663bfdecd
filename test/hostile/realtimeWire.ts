import net from 'node:net';
import WebSocket from 'ws';
import { SDK_KEY } from '../helpers/pusher';

/**
 * Raw clients for the realtime boundaries: an HTTP upgrade written byte for byte on a TCP socket
 * (no client library normalises the path or the headers), and a bare `ws` connection to the Pusher
 * gateway that sends frames exactly as given.
 */

/** What came back for a raw upgrade: the status line's code (null: none within the wait), and whether the server ended the socket. */
export interface UpgradeOutcome {
  status: number | null;
  head: string;
  ended: boolean;
}

/** Build an upgrade request; `path` and header values go on the wire verbatim. */
export function upgradeRequest(path: string, headers: Array<[string, string]> = []): Buffer {
  const lines = [
    `GET ${path} HTTP/1.1`,
    'Host: 127.0.0.1',
    'Upgrade: websocket',
    'Connection: Upgrade',
    'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
    'Sec-WebSocket-Version: 13',
    ...headers.map(([k, v]) => `${k}: ${v}`),
  ];
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
}

/**
 * Send `request` on a fresh TCP connection and read until the response head is complete, the server
 * ends the socket, or `waitMs` passes (then the client hangs up: a server that never answers an
 * upgrade it does not take, as engine.io does for a while, is not a failure). The default is a bound
 * for a test that expects an answer: on a loaded machine a group's server can take seconds to give it.
 */
export function rawUpgrade(base: string, request: Buffer, waitMs = 10_000): Promise<UpgradeOutcome> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    let data = '';
    let done = false;
    const finish = (ended: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const match = /^HTTP\/1\.1 (\d{3})/.exec(data);
      resolve({ status: match ? Number(match[1]) : null, head: data.split('\r\n\r\n')[0]!, ended });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk) => {
      data += chunk.toString('latin1');
      if (data.includes('\r\n\r\n')) finish(false);
    });
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
  });
}

/** A frame as the gateway sent it, decoded (`data` parsed when it is a JSON string). */
export interface GatewayFrame {
  event: string;
  channel?: string;
  data: any;
}

/** A bare websocket to `/app/{key}?protocol=7`, recording what the gateway sends and how it closes. */
export class RawPusher {
  readonly frames: GatewayFrame[] = [];
  closeCode: number | null = null;
  socketId = '';
  private waiters: Array<() => void> = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (raw) => {
      let frame: GatewayFrame;
      try {
        frame = JSON.parse(String(raw));
        if (typeof frame.data === 'string') {
          try {
            frame.data = JSON.parse(frame.data);
          } catch {
            // data that is not JSON stays a string
          }
        }
      } catch {
        frame = { event: '(not JSON)', data: String(raw) };
      }
      if (frame.event === 'pusher:connection_established') this.socketId = frame.data.socket_id;
      this.frames.push(frame);
      this.wake();
    });
    ws.on('close', (code) => {
      this.closeCode = code;
      this.wake();
    });
    ws.on('error', () => this.wake());
  }

  static async open(base: string, key = SDK_KEY): Promise<RawPusher> {
    const client = new RawPusher(new WebSocket(`${base.replace(/^http/, 'ws')}/app/${key}?protocol=7`));
    await client.until(() => client.socketId || client.closeCode !== null, 'connection_established');
    if (!client.socketId) throw new Error(`the gateway closed the connection (${client.closeCode}) before connection_established`);
    return client;
  }

  private wake() {
    for (const w of [...this.waiters]) w();
  }

  get open(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  /** Resolves once `check()` holds (re-checked on every frame and on close); rejects after `timeoutMs`. */
  until<T>(check: () => T | null | undefined | false | '', what: string, timeoutMs = 10_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const test = () => {
        const value = check();
        if (!value) return false;
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== test);
        resolve(value);
        return true;
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== test);
        reject(new Error(`timed out waiting for ${what}; received ${this.frames.map((f) => f.event).join(', ')}; close ${this.closeCode}`));
      }, timeoutMs);
      if (!test()) this.waiters.push(test);
    });
  }

  send(data: string | Buffer, binary = false): void {
    if (this.open) this.ws.send(data, { binary });
  }

  /** A ping answered by a pong: the connection is alive and its frames are being read in order. */
  async pingPong(): Promise<void> {
    const before = this.frames.filter((f) => f.event === 'pusher:pong').length;
    this.send(JSON.stringify({ event: 'pusher:ping', data: {} }));
    await this.until(() => this.frames.filter((f) => f.event === 'pusher:pong').length > before, 'pusher:pong');
  }

  close(): void {
    this.ws.terminate();
  }
}

/** GET /healthz answers 200. */
export async function healthz(base: string): Promise<number> {
  const res = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(10_000) });
  await res.arrayBuffer();
  return res.status;
}
