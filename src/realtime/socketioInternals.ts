import type { Namespace, Server, Socket } from 'socket.io';
import type WebSocket from 'ws';

/**
 * Every use of Socket.IO's internals, in one module. Each function says what it relies on, why the
 * public API does not do it, and the versions it was read from: socket.io 4.8.4, socket.io-adapter
 * 2.5.8, engine.io 6.6.12, @socket.io/redis-adapter 8.3.0, pinned to exactly these in package.json
 * (with `overrides` for the two that come in through socket.io). Before moving any of them, run
 * test/realtime/socketioInternals.test.ts: it exercises each assumption below on a live server and
 * fails naming this module.
 *
 * Nothing else in src/ reads a private field or method of Socket.IO (`_nsps`, `_packet`,
 * `writeToEngine`, ...); the shapes of what this module hands out are typed here.
 */

// Servers and namespaces

/**
 * The namespaces this server holds (`Server._nsps`). `io.of(name)` would create (and keep) any name it is
 * asked for, and there is no public lookup or list: the broadcaster must not create a room's
 * namespace to emit to nobody, and metrics, key revocation and resyncs walk the live ones.
 */
export function namespacesOf(io: Server): ReadonlyMap<string, Namespace> {
  return io._nsps;
}

/**
 * Handshakes under way in `nsp` (`Namespace._preConnectSockets`, 4.7+): sockets whose middleware
 * has not finished. Socket.IO's own `cleanupEmptyChildNamespaces` closes a child namespace when its
 * connected sockets reach zero even while one of these is pending (a reloaded tab: the old socket
 * leaves while the new one authenticates), and that socket then hears nothing from other instances;
 * src/realtime/connection/namespaces.ts closes only a namespace with none.
 */
export function handshakesUnderWay(nsp: Namespace): number {
  return (nsp as unknown as { _preConnectSockets?: Map<string, unknown> })._preConnectSockets?.size ?? 0;
}

/**
 * Create child `name` of a parent (regex) namespace as the parent does for a connecting socket
 * (`ParentNamespace.createChild`: the parent's middleware and listeners included). The Pusher gateway
 * holds a room's namespace without a Socket.IO socket; `io.of(name)` would make a plain namespace that
 * a later socket would enter without the handshake's checks.
 */
export function createChildNamespace(parent: Namespace, name: string): Namespace {
  return (parent as unknown as { createChild(name: string): Namespace }).createChild(name);
}

/**
 * Forget child namespace `nsp` the way `cleanupEmptyChildNamespaces` does (`Server._nsps` and the
 * parent's `children`), for the cleanup that waits for pending handshakes (handshakesUnderWay).
 * Answers false when the server holds another namespace of that name (it was replaced meanwhile).
 */
export function forgetChildNamespace(io: Server, parent: Namespace, nsp: Namespace): boolean {
  if (io._nsps.get(nsp.name) !== nsp) return false;
  io._nsps.delete(nsp.name);
  (parent as unknown as { children: Set<Namespace> }).children.delete(nsp);
  return true;
}

// Writing to a connection

interface PacketWriter {
  _packet(packet: unknown, opts: { preEncoded: boolean; compress: boolean }): void;
}

/**
 * Write a packet encoded once for many sockets (`Client._packet` with `preEncoded`, the path
 * socket.io-adapter's broadcast uses): a roll's frame is encoded once per viewer group rather than
 * once per socket, and the write passes through the connection's writeToEngine like any other.
 */
export function writePreEncoded(socket: Socket, encoded: unknown): void {
  (socket.client as unknown as PacketWriter)._packet(encoded, { preEncoded: true, compress: true });
}

/** A connection's last step before engine.io (`Client.writeToEngine(encodedPackets, opts)`). */
export type EngineWrite = (this: unknown, packets: unknown, opts: unknown) => void;

/** A socket's hook for every outgoing packet (`Socket.notifyOutgoingListeners(packet)`), decoded. */
export type OutgoingNotice = (this: unknown, packet: { nsp?: string; data?: unknown[] }) => void;

/**
 * The connection object whose `writeToEngine` every write to the socket's connection goes through,
 * emits and broadcasts alike (the welcome hold swaps it while a socket is being welcomed, then gives
 * it back). Its other fields are the hold's own bookkeeping.
 */
export function connectionWriter<Extra extends object>(socket: Socket): { writeToEngine: EngineWrite } & Extra {
  return socket.client as unknown as { writeToEngine: EngineWrite } & Extra;
}

/**
 * The socket as socket.io-adapter's broadcast sees it: it calls `notifyOutgoingListeners(packet)`
 * with the decoded packet right before writing the encoded one to the connection, which is how the
 * welcome hold knows what a held write carries (the encoded bytes do not say).
 */
export function outgoingNotifier(socket: Socket): { notifyOutgoingListeners: OutgoingNotice } {
  return socket as unknown as { notifyOutgoingListeners: OutgoingNotice };
}

// Engine.IO connections

/**
 * The `ws` websocket under an Engine.IO connection when it travels over one, else null (long-polling):
 * the WebSocket transport's `socket` (`private socket` in engine.io's types). Its `bufferedAmount` is
 * what the client has not taken yet, which nothing public of engine.io tells: the bound on what a
 * connection may be owed counts it (connection/slowReaders.ts).
 */
export function engineWebSocket(conn: object): WebSocket | null {
  const transport = (conn as { transport?: { name?: string; socket?: WebSocket } }).transport;
  return transport?.name === 'websocket' && transport.socket ? transport.socket : null;
}

// Adapters

/** What socket.io-adapter's `apply` receives for a broadcast. */
export interface BroadcastOptions {
  rooms: Set<string>;
  except?: Set<string>;
  flags?: { volatile?: boolean };
}

/**
 * The adapter's broadcast step and room membership (`Adapter.apply(opts, callback)`, called for each
 * local broadcast after rooms are matched; `addAll(sid, rooms)`, `delAll(sid)`), the same in the
 * in-memory, Redis and sharded Redis adapters. The Pusher gateway's subscriptions join rooms under
 * sids of their own and receive broadcasts through a wrapped `apply` (src/realtime/pusher/namespaceMembers.ts).
 */
export type AdapterInternals<Extra extends object = object> = {
  apply(opts: BroadcastOptions, callback: (socket: unknown) => void): void;
  addAll(sid: string, rooms: Set<string>): void;
  delAll(sid: string): void;
} & Extra;

/**
 * What socket.io-adapter and the namespace's operators call on a socket that `apply` hands them: a
 * broadcast calls `notifyOutgoingListeners(packet)` and then `client.writeToEngine(...)`;
 * `disconnectSockets` calls `disconnect()`; `socketsJoin`/`socketsLeave` call `join`/`leave`;
 * `fetchSockets` reads `id`, `handshake`, `data`, `rooms`. A Pusher member's stand-in has this shape.
 */
export interface AdapterSocketShape {
  id: string;
  handshake: object;
  data: object;
  rooms: ReadonlySet<string>;
  connected: boolean;
  notifyOutgoingListeners(packet: { data?: unknown[] }): void;
  client: { writeToEngine(): void };
  disconnect(): void;
  join(): void;
  leave(): void;
}

export function adapterInternals<Extra extends object = object>(nsp: Namespace): AdapterInternals<Extra> {
  return nsp.adapter as unknown as AdapterInternals<Extra>;
}

/**
 * The Redis channels @socket.io/redis-adapter subscribed for a namespace (its `channel`,
 * `requestChannel`, `responseChannel`, `specificResponseChannel` fields; the sharded adapter has
 * `channel` and `responseChannel`). ioredis resubscribes after a reconnect only to what Redis had
 * confirmed, so a namespace created while Redis was away is subscribed again by hand (src/server.ts).
 * All undefined for the in-memory adapter.
 */
export function redisAdapterChannels(nsp: Namespace): {
  channel?: string;
  requestChannel?: string;
  responseChannel?: string;
  specificResponseChannel?: string;
} {
  return nsp.adapter as unknown as { channel?: string; requestChannel?: string; responseChannel?: string; specificResponseChannel?: string };
}
