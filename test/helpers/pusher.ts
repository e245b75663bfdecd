import Pusher from 'pusher-js';
import type { Channel } from 'pusher-js';
import { waitUntil } from './waiting';
import { withDeadline } from './deadline';

/** The stock dddice SDK's built-in app key (src/realtime/pusher/protocol.ts). */
export const SDK_KEY = 'DpMX1V2rIuVz9nTWIpm8YrXfVgGoFKFvhgxYTbyMgdq8wm06LIZ6taHaDIb9aaaa';

/** One message as pusher-js decoded it (connection 'message': every frame, internal ones included). */
export interface PusherMessage {
  event: string;
  channel?: string;
  data: any;
  user_id?: string;
}

export interface PusherOptions {
  /** The API key sent to /broadcasting/auth (as the SDK does: JSON body, Bearer header). */
  key?: string;
  appKey?: string;
  /** Use pusher-js's own authoriser (form-encoded POST) instead of the SDK's JSON one. */
  formAuth?: boolean;
  /** Where to POST /broadcasting/auth when not the websocket's server (another instance). */
  authBase?: string;
}

/** Every client not yet closed: a failing test must not leave pusher-js reconnecting forever. */
const open = new Set<PusherClient>();

/** Close every client still open (test.after.always). */
export function closeAllPusher(): void {
  for (const client of [...open]) client.close();
}

/**
 * A real pusher-js 8 client against a test server, recording every message it receives, in order.
 * Reconnection is pusher-js's own; `until` re-checks on every message.
 */
export class PusherClient {
  readonly messages: PusherMessage[] = [];
  readonly states: string[] = [];
  readonly pusher: Pusher;
  private waiters: Array<() => void> = [];

  constructor(base: string, options: PusherOptions = {}) {
    const url = new URL(base);
    const authEndpoint = `${options.authBase ?? base}/broadcasting/auth`;
    const headers: Record<string, string> = options.key ? { Authorization: `Bearer ${options.key}` } : {};
    this.pusher = new Pusher(options.appKey ?? SDK_KEY, {
      cluster: '',
      wsHost: url.hostname,
      wsPort: Number(url.port),
      forceTLS: false,
      enabledTransports: ['ws'],
      disableStats: true,
      channelAuthorization: options.formAuth
        ? { endpoint: authEndpoint, transport: 'ajax', headers }
        : {
            endpoint: authEndpoint,
            transport: 'ajax',
            // The SDK's own authoriser: JSON, the key in a Bearer header, the body handed over as it is.
            customHandler: ({ socketId, channelName }: { socketId: string; channelName: string }, callback: (error: Error | null, data: any) => void) => {
              fetch(authEndpoint, {
                method: 'POST',
                headers: { 'content-type': 'application/json', ...headers },
                body: JSON.stringify({ socket_id: socketId, channel_name: channelName }),
              })
                .then(async (res) =>
                  res.ok ? callback(null, (await res.json()) as any) : callback(new Error(`Request failed with status code ${res.status}`), null),
                )
                .catch((err: Error) => callback(err, null));
            },
          },
    } as any);
    open.add(this);
    this.pusher.connection.bind('message', (message: PusherMessage) => {
      this.messages.push(message);
      this.wake();
    });
    this.pusher.connection.bind('state_change', ({ current }: { current: string }) => {
      this.states.push(current);
      this.wake();
    });
  }

  private wake() {
    for (const wake of [...this.waiters]) wake();
  }

  private listen(wake: () => void): () => void {
    this.waiters.push(wake);
    return () => (this.waiters = this.waiters.filter((w) => w !== wake));
  }

  get socketId(): string {
    return this.pusher.connection.socket_id;
  }

  of(event: string, channel?: string): PusherMessage[] {
    return this.messages.filter((m) => m.event === event && (channel === undefined || m.channel === channel));
  }

  until<T>(check: () => T | undefined | null | false, what: string, timeoutMs = 10_000): Promise<T> {
    const describe = () => `received: ${this.messages.map((m) => `${m.event}@${m.channel ?? ''}`).join(', ') || 'nothing'}; states: ${this.states.join(',')}`;
    return waitUntil((wake) => this.listen(wake), check, what, describe, timeoutMs);
  }

  connected(): Promise<void> {
    return this.until(() => this.pusher.connection.state === 'connected', 'connected').then(() => undefined);
  }

  /** Subscribe and wait for the channel's answer: succeeded (answers the channel) or an error (throws it). */
  async subscribe(name: string): Promise<Channel> {
    const channel = this.pusher.subscribe(name);
    const answered = new Promise<void>((resolve, reject) => {
      channel.bind('pusher:subscription_succeeded', () => resolve());
      channel.bind('pusher:subscription_error', (err: any) => reject(Object.assign(new Error(`subscription_error: ${JSON.stringify(err)}`), { data: err })));
    });
    await withDeadline(answered, 15_000, `the answer to subscribing ${name}`);
    return channel;
  }

  /** Messages of `event` on `channel` decoded, waiting until `n` have arrived. */
  waitForCount(event: string, n: number, channel?: string, timeoutMs?: number): Promise<PusherMessage[]> {
    return this.until(
      () => (this.of(event, channel).length >= n ? this.of(event, channel) : null),
      `${n} x ${event} on ${channel ?? 'any channel'}`,
      timeoutMs,
    );
  }

  waitFor(event: string, match: (m: PusherMessage) => boolean = () => true, timeoutMs?: number): Promise<PusherMessage> {
    return this.until(() => this.messages.find((m) => m.event === event && match(m)), event, timeoutMs);
  }

  close() {
    open.delete(this);
    this.pusher.disconnect();
  }
}

/** Connect and wait until pusher-js says connected. */
export async function connectPusher(base: string, options: PusherOptions = {}): Promise<PusherClient> {
  const client = new PusherClient(base, options);
  await client.connected();
  return client;
}
