import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { PusherConfig } from '../../config';
import { clientAddress } from '../../http/clientAddress';
import { liveSeats } from '../../rooms/store/read';
import { liveKeyIds } from '../../users/store';
import { errorFields, guarded } from '../callbackGuards';
import type { HandshakeLimit } from '../connection/handshake';
import type { InboundByteLimits } from '../connection/inboundByteBudget';
import type { RealtimeContext } from '../connection/namespaces';
import { stringAt } from '../shapeChecks';
import { frameSize } from './connectionBudget';
import { PusherConnection } from './connection';
import { Close, decodeMessage, encodeFrame, ErrorCode, PROTOCOLS, SDK_APP_KEY } from './protocol';
import { endSubscription, subscribe, type SubscribeContext } from './subscribe';
import type { Subscription } from './subscription';
import { readUpgradeTarget, refuseUpgrade } from './upgrade';

export interface GatewayOptions {
  pusher: Readonly<PusherConfig>;
  /** Largest frame a client may send (SOCKET_MAX_PACKET_BYTES, as for Socket.IO). */
  maxPayload: number;
  /** Connections per client address per minute, counted with the Socket.IO handshakes. */
  handshakeLimit?: HandshakeLimit;
  /** Bytes a connection may send (SOCKET_BYTES_PER_SECOND, as for Socket.IO); past it, closed with 4100. */
  bytes: InboundByteLimits;
  /** Bytes a connection may be owed and not yet have read (SOCKET_MAX_BUFFERED_BYTES); past it, closed with 4100. */
  maxBufferedBytes: number;
}

/**
 * The Pusher-protocol gateway (protocol 7) on the API's own port at `/app/{key}`, so that the stock
 * dddice SDK's realtime (pusher-js through Laravel Echo) works unchanged against this server
 * (docs/sdk.md). Channels listen to the Socket.IO namespaces as members of their adapters
 * (namespaceMembers.ts), so every instance delivers what Redis carries, in the room's order, presented per
 * viewer by the same code as Socket.IO. Authorisations come from POST /broadcasting/auth (routes.ts).
 */
export class PusherGateway {
  private readonly wss: WebSocketServer;
  private readonly connections = new Set<PusherConnection>();
  private readonly appKeys: Set<string>;
  private readonly ctx: SubscribeContext;
  private timer: NodeJS.Timeout | null = null;
  private closing = false;

  constructor(
    private readonly rt: RealtimeContext,
    private readonly options: GatewayOptions,
  ) {
    this.wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPayload, perMessageDeflate: false, clientTracking: false });
    this.appKeys = new Set([SDK_APP_KEY, ...options.pusher.appKeys]);
    this.ctx = { rt, secret: options.pusher.secret };
  }

  /** Take the upgrades of `/app/{key}` on `server`; every other path stays Socket.IO's (engine.io). */
  attach(server: http.Server): void {
    server.on('upgrade', this.onUpgrade);
    const activityMs = this.options.pusher.activityTimeoutS * 1000;
    const tick = guarded(
      () => this.checkLiveness(activityMs),
      (err) => this.rt.logger.error(errorFields(err), 'pusher liveness check failed'),
    );
    this.timer = setInterval(tick, Math.min(5000, Math.max(250, activityMs / 4)));
    this.timer.unref();
  }

  /**
   * Every upgrade of the HTTP server passes here first (then engine.io's listener). Nothing it throws
   * may escape: an upgrade that cannot be read is a 400 on the raw socket, and a failure once the
   * websocket is open closes that websocket (docs/reliability.md, "Untrusted input at the realtime boundaries").
   */
  private readonly onUpgrade = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    let upgraded = false;
    try {
      const target = readUpgradeTarget(req.url);
      if (target.kind === 'other') return;
      if (target.kind === 'bad') return refuseUpgrade(socket, target.reason);
      // Once the 101 is written, engine.io's own upgrade listener leaves the socket alone.
      this.wss.handleUpgrade(req, socket, head, (ws) => {
        upgraded = true;
        const opened = guarded(
          () => this.open(ws, req, target.key, target.params),
          (err) => {
            this.rt.logger.error({ ...errorFields(err), url: req.url?.slice(0, 300) }, 'pusher connection failed to open; closed');
            ws.terminate();
          },
        );
        opened();
      });
    } catch (err) {
      this.rt.logger.error({ ...errorFields(err), url: req.url?.slice(0, 300) }, 'pusher upgrade failed');
      if (upgraded) socket.destroy();
      else refuseUpgrade(socket, 'This upgrade could not be read.');
    }
  };

  private async open(ws: WebSocket, req: http.IncomingMessage, key: string, params: URLSearchParams): Promise<void> {
    ws.on('error', () => undefined);
    const refuse = (code: number, message: string) => {
      // pusher-js reads a pusher:error in place of the handshake, and the close code, the same way.
      ws.send(JSON.stringify({ event: 'pusher:error', data: { code, message } }));
      ws.close(code, message.slice(0, 120));
    };
    if (this.closing) return refuse(Close.Reconnect, 'This server is shutting down: reconnect.');
    if (!this.appKeys.has(key)) return refuse(Close.UnknownApp, 'Unknown app key.');
    const protocol = params.get('protocol');
    if (!protocol) return refuse(Close.NoProtocol, 'No protocol version (protocol=7).');
    if (!PROTOCOLS.has(protocol)) return refuse(Close.UnsupportedProtocol, `Unsupported protocol version ${protocol.slice(0, 10)}: this server speaks 7.`);
    if (await this.overRate(req)) return refuse(Close.OverCapacity, 'Too many connections from this address: retry later.');
    if (ws.readyState !== ws.OPEN) return;
    const { bytes, maxBufferedBytes } = this.options;
    const onSlowReader = (buffered: number) => this.rt.logger.warn({ buffered, maxBufferedBytes }, 'Pusher connection does not read what it is sent: closed');
    const conn = new PusherConnection(ws, this.rt.broadcaster, {
      clientEventsPerSecond: this.options.pusher.clientEventsPerSecond,
      bytes,
      maxBufferedBytes,
      onSlowReader,
    });
    this.connections.add(conn);
    const log = (err: unknown, what: string) =>
      this.rt.logger.error({ ...errorFields(err), socketId: conn.socketId, channels: [...conn.subscriptions.keys()] }, what);
    ws.on(
      'message',
      guarded(
        (raw: RawData, isBinary: boolean) => this.onMessage(conn, raw, isBinary),
        (err, raw) => {
          log(err, 'pusher frame failed; its connection is closed');
          this.rt.logger.debug({ socketId: conn.socketId, frame: frameSample(raw) }, 'the frame that failed');
          conn.close(Close.InternalError, 'This frame could not be handled: reconnect later.');
        },
      ),
    );
    ws.on(
      'close',
      guarded(
        () => this.onClose(conn),
        (err) => log(err, 'pusher connection cleanup failed'),
      ),
    );
    conn.welcome(this.options.pusher.activityTimeoutS);
  }

  private async overRate(req: http.IncomingMessage): Promise<boolean> {
    const limit = this.options.handshakeLimit;
    if (!limit) return false;
    try {
      const address = clientAddress(req.socket.remoteAddress ?? 'unknown', req.headers['x-forwarded-for'], limit.trust);
      const { count } = await limit.store.hit(`socket:${address}`, 60_000, limit.perMinute);
      return count > limit.perMinute;
    } catch {
      return false; // a failing store lets connections through, as for Socket.IO handshakes
    }
  }

  private onMessage(conn: PusherConnection, raw: RawData, isBinary: boolean): Promise<void> | void {
    const overBudget = conn.admit(frameSize(raw));
    if (overBudget) return conn.close(Close.OverCapacity, overBudget);
    const message = isBinary ? null : decodeMessage(raw.toString());
    if (!message) return conn.sendError(ErrorCode.Generic, 'Not a Pusher message: send one JSON object {event, data, channel?} per text frame.');
    // `data` came from the client: its fields are read as the type they must have (never String(x)).
    const { event, data, channel } = message;
    const churn = event === 'pusher:subscribe' || event === 'pusher:unsubscribe' ? conn.budget.changeChannels() : null;
    if (churn) return conn.close(Close.OverCapacity, churn);
    switch (event) {
      case 'pusher:ping':
        return conn.send(encodeFrame('pusher:pong', {}));
      case 'pusher:pong':
        return;
      case 'pusher:subscribe':
        conn.idleSince = null;
        // The promise is the message handler's: guarded() logs a failure and closes the connection.
        return subscribe(this.ctx, conn, data).finally(() => {
          if (!conn.subscriptions.size && conn.idleSince === null) conn.idleSince = Date.now();
        });
      case 'pusher:unsubscribe': {
        const name = stringAt(data, 'channel', MAX_CHANNEL);
        if (name === null) return conn.sendError(ErrorCode.Generic, 'pusher:unsubscribe needs a channel (a channel name, as a string).');
        const sub = conn.subscriptions.get(name);
        if (sub && sub !== 'pending') return endSubscription(this.ctx, conn, sub).finally(() => this.markIdle(conn));
        return;
      }
      default: {
        if (!event.startsWith('client-')) return conn.sendError(ErrorCode.Generic, `This server does not take ${event.slice(0, 60)}.`);
        const sub = channel ? conn.subscriptions.get(channel) : undefined;
        conn.relay.handle(sub && sub !== 'pending' ? sub : null, event, data);
      }
    }
  }

  private markIdle(conn: PusherConnection) {
    if (!conn.subscriptions.size) conn.idleSince ??= Date.now();
  }

  private async onClose(conn: PusherConnection): Promise<void> {
    conn.close(1000, '');
    if (!this.connections.delete(conn)) return;
    await Promise.all(conn.live().map((sub) => endSubscription(this.ctx, conn, sub)));
  }

  /**
   * Every tick: a connection silent for the activity timeout is pinged, and closed with 4201 when it
   * stays silent as long again; one holding no channel for the activity timeout is closed with 4202.
   */
  private checkLiveness(activityMs: number): void {
    const now = Date.now();
    for (const conn of this.connections) {
      if (conn.idleSince !== null && now - conn.idleSince > activityMs) conn.close(Close.Inactive, 'No subscription within the activity timeout.');
      else if (conn.pingSentAt !== null && now - conn.pingSentAt > activityMs) conn.close(Close.PongNotReceived, 'Pong not received.');
      else if (conn.pingSentAt === null && now - conn.lastSeen > activityMs) {
        conn.pingSentAt = now;
        conn.send(encodeFrame('pusher:ping', {}));
      }
    }
  }

  private subscriptions(): Array<{ conn: PusherConnection; sub: Subscription }> {
    return [...this.connections].flatMap((conn) => conn.live().map((sub) => ({ conn, sub })));
  }

  private end(conn: PusherConnection, sub: Subscription, evicted: { status: number; error: string }): void {
    endSubscription(this.ctx, conn, sub, evicted).catch((err: unknown) =>
      this.rt.logger.warn({ ...errorFields(err), channel: sub.channel.name }, 'ending a Pusher subscription failed'),
    );
  }

  /** End the subscriptions authorised with these keys, now (a revocation announced). */
  dropKeys(keyIds: readonly number[]): number {
    const revoked = new Set(keyIds);
    const gone = this.subscriptions().filter(({ sub }) => revoked.has(sub.keyId));
    for (const { conn, sub } of gone) this.end(conn, sub, { status: 401, error: 'The API key of this authorisation has been revoked.' });
    return gone.length;
  }

  /** Check every subscription against the database (key live, still a participant), as connection/accessRechecks.ts does for sockets. */
  async revalidate(): Promise<number> {
    const all = this.subscriptions();
    if (!all.length) return 0;
    const keys = await liveKeyIds(all.map(({ sub }) => sub.keyId));
    const seats = await liveSeats(all.flatMap(({ sub }) => (sub.room ? [{ roomId: sub.room.id, userId: sub.user.id }] : [])));
    let dropped = 0;
    for (const { conn, sub } of all) {
      if (sub.ended) continue;
      if (!keys.has(sub.keyId)) this.end(conn, sub, { status: 401, error: 'The API key of this authorisation has been revoked.' });
      else if (sub.room && !seats.has(`${sub.room.id} ${sub.user.id}`)) this.end(conn, sub, { status: 403, error: 'Access to this channel was withdrawn.' });
      else continue;
      dropped++;
    }
    if (dropped) this.rt.logger.info({ subscriptions: dropped, checked: all.length }, 'ended Pusher subscriptions that lost access');
    return dropped;
  }

  /** Open connections (tests, metrics). */
  get size(): number {
    return this.connections.size;
  }

  /**
   * Shutting down: every client is told 4200 (reconnect now, to another instance behind the load
   * balancer), its channels are counted out and announced, then the sockets that did not finish
   * their closing handshake are cut.
   */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    if (this.timer) clearInterval(this.timer);
    const all = [...this.connections];
    for (const conn of all) conn.close(Close.Reconnect, 'Server shutting down: reconnect.');
    await Promise.all(all.map((conn) => this.onClose(conn)));
    await new Promise((resolve) => setTimeout(resolve, all.length ? 200 : 0));
    for (const conn of all) conn.ws.terminate();
    this.wss.close();
  }
}

/** Channel names are at most this long (protocol.ts decodeMessage holds `channel` to the same). */
const MAX_CHANNEL = 200;

/** The start of a frame that failed, for a debug line: enough to reproduce, never the whole of a large one. */
function frameSample(raw: RawData): string {
  const buffer = Array.isArray(raw) ? Buffer.concat(raw) : Buffer.isBuffer(raw) ? raw : Buffer.from(raw);
  return buffer.subarray(0, 500).toString('utf8');
}
