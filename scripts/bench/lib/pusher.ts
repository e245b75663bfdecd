/**
 * Pusher-protocol clients for the benchmarks, subscribed to `presence-room.{slug}` and authorised at
 * POST /broadcasting/auth with their user's key, as the stock SDK does (docs/sdk.md).
 *
 * Two kinds behind one interface: a real pusher-js 8 client (test/helpers/pusher.ts), and a raw `ws`
 * client sending the same frames (connection_established -> auth -> pusher:subscribe, pong to ping).
 * A pusher-js instance carries its own timers, state machine and transport strategy; a thousand of
 * them in one process were expected (not measured) to load the client side more than Socket.IO clients, so
 * the load is the raw kind, with real pusher-js clients among them to show the wire is the same.
 */
import WebSocket from 'ws';
import { connectPusher, SDK_KEY } from '../../../test/helpers/pusher';
import { connectRetries } from './sockets';

export interface PusherListener {
  kind: 'pusher-js' | 'ws';
  /** Count of each event name received (every frame, internal ones included). */
  counts: Map<string, number>;
  /** Listen to an event of the presence channel; `data` decoded from the frame's JSON string. */
  on(event: string, listener: (data: any) => void): void;
  close(): void;
}

export interface PusherConnectOptions {
  /** A real pusher-js client instead of a raw `ws` one. */
  pusherJs?: boolean;
  timeoutMs?: number;
  retries?: number;
}

export const presenceChannel = (slug: string) => `presence-room.${slug}`;

/** Connect, authorise and subscribe to the room's presence channel; resolves once subscribed. */
export async function connectPusherRoom(base: string, slug: string, key: string, options: PusherConnectOptions = {}): Promise<PusherListener> {
  if (options.pusherJs) return connectPusherJs(base, slug, key);
  const retries = options.retries ?? 3;
  for (let attempt = 0; ; attempt++) {
    try {
      return await connectRaw(base, slug, key, options.timeoutMs ?? 10_000);
    } catch (err) {
      // Refusals (auth, subscription_error) are not retried; a reset while connecting is.
      if (!/ECONNRESET|socket hang up|closed before|Unexpected server response/.test((err as Error).message) || attempt >= retries) throw err;
      connectRetries.count++;
      await new Promise((r) => setTimeout(r, 200 * (attempt + 1)));
    }
  }
}

async function connectPusherJs(base: string, slug: string, key: string): Promise<PusherListener> {
  const client = await connectPusher(base, { key });
  const channel = await client.subscribe(presenceChannel(slug));
  const counts = new Map<string, number>();
  client.pusher.connection.bind('message', (m: { event: string }) => counts.set(m.event, (counts.get(m.event) ?? 0) + 1));
  return { kind: 'pusher-js', counts, on: (event, listener) => void channel.bind(event, listener), close: () => client.close() };
}

async function authorise(base: string, key: string, socketId: string, channel: string): Promise<{ auth: string; channel_data?: string }> {
  const res = await fetch(`${base}/broadcasting/auth`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ socket_id: socketId, channel_name: channel }),
  });
  if (!res.ok) throw new Error(`/broadcasting/auth answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
  return (await res.json()) as { auth: string; channel_data?: string };
}

function connectRaw(base: string, slug: string, key: string, timeoutMs: number): Promise<PusherListener> {
  const url = new URL(base);
  const ws = new WebSocket(`ws://${url.host}/app/${SDK_KEY}?protocol=7&client=js&version=8.4.0&flash=false`, { perMessageDeflate: false });
  const channel = presenceChannel(slug);
  const counts = new Map<string, number>();
  const listeners = new Map<string, Array<(data: any) => void>>();
  const send = (event: string, data: unknown) => ws.send(JSON.stringify({ event, data }));
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      ws.terminate();
      reject(err);
    };
    const timer = setTimeout(() => fail(new Error('pusher connection did not subscribe in time')), timeoutMs);
    ws.on('error', (err) => fail(err));
    ws.on('close', (code, reason) => fail(new Error(`closed before subscribing: ${code} ${reason.toString()}`)));
    ws.on('message', (raw) => {
      const frame = JSON.parse(raw.toString()) as { event: string; channel?: string; data: unknown };
      counts.set(frame.event, (counts.get(frame.event) ?? 0) + 1);
      // The Pusher convention: a server frame's data is a JSON-encoded string.
      const decode = () => (typeof frame.data === 'string' ? JSON.parse(frame.data) : frame.data);
      switch (frame.event) {
        case 'pusher:connection_established': {
          const { socket_id: socketId } = decode() as { socket_id: string };
          authorise(base, key, socketId, channel).then((grant) => send('pusher:subscribe', { channel, ...grant }), fail);
          return;
        }
        case 'pusher:ping':
          return send('pusher:pong', {});
        case 'pusher:error':
        case 'pusher:subscription_error':
          return fail(new Error(`${frame.event}: ${JSON.stringify(frame.data)}`));
        case 'pusher_internal:subscription_succeeded':
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          ws.removeAllListeners('close');
          resolve({
            kind: 'ws',
            counts,
            on: (event, listener) => listeners.set(event, [...(listeners.get(event) ?? []), listener]),
            close: () => ws.close(),
          });
          return;
        default: {
          const wanted = frame.channel === channel ? listeners.get(frame.event) : undefined;
          if (wanted) {
            const data = decode();
            for (const listener of wanted) listener(data);
          }
        }
      }
    });
  });
}
