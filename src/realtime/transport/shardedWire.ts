import { encode as msgpack } from 'notepack.io';
import type { Target } from './broadcaster';
import type { Publication, WireFormat } from './wireFormat';

/**
 * Messages in the format of the sharded adapter of `@socket.io/redis-adapter` 8.3
 * (`createShardedAdapter`, a `ClusterAdapter` of `socket.io-adapter` 2.5), which
 * `@socket.io/redis-emitter` cannot write. Each instance's adapter of namespace `nsp` SSUBSCRIBEs
 * `${key}#${nsp}#` (subscriptionMode "static": one channel per namespace, whatever rooms its sockets
 * join) and decodes what arrives there with `JSON.parse` when it starts with `{`, msgpack otherwise,
 * then hands it to `ClusterAdapter.onMessage`:
 *
 *   {uid, nsp, type: BROADCAST (3), data: {packet, opts: {rooms, except, flags}}}
 *   {uid, nsp, type: DISCONNECT_SOCKETS (6), data: {opts, close}}
 *
 * `uid` is "emitter", the sender id `socket.io-adapter` reserves for publishers that are not an
 * adapter: an adapter ignores only messages carrying its own uid, so every instance, this one
 * included, delivers each message, in the order the shard channel carried them.
 *
 * Nothing here is checked by the compiler against the adapter: test/cluster/sharded.test.ts sends
 * these messages to real instances, so a version of the adapter that reads them differently fails it.
 */

/** socket.io-adapter's ClusterAdapter message types (MessageType in cluster-adapter.js). */
const BROADCAST = 3;
const DISCONNECT_SOCKETS = 6;
/** The sender id socket.io-adapter reserves for emitters (EMITTER_UID). */
const EMITTER_UID = 'emitter';
/** socket.io-parser's PacketType.EVENT. */
const EVENT_PACKET = 2;

/** The shard channel of namespace `nsp` (ShardedRedisAdapter's `channel`). */
export function shardChannel(key: string, nsp: string): string {
  return `${key}#${nsp}#`;
}

function optionsOf(target: Target) {
  return { rooms: [...(target.to ?? [])], except: [...(target.except ?? [])], flags: {} };
}

/**
 * msgpack (notepack.io, the adapter's own codec: it decodes whatever does not start with `{` as
 * msgpack). Not JSON: a room event's `seq` is written into the encoded message by the sending script
 * (sequenceLogRedis.ts), which finds the placeholder number as the 9 bytes of a msgpack uint64 and
 * overwrites them in place; the classic format (redis-emitter) is msgpack too, so one script serves both.
 */
function encode(message: object): Buffer {
  return msgpack(message) as Buffer;
}

export function shardedWire(key: string): WireFormat {
  const publication = (nsp: string, message: object): Publication => ({ channel: shardChannel(key, nsp), message: encode(message) });
  return {
    command: 'spublish',
    encodeFor: (target, event, payload) =>
      publication(target.namespace, {
        uid: EMITTER_UID,
        nsp: target.namespace,
        type: BROADCAST,
        data: { packet: { type: EVENT_PACKET, data: [event, payload], nsp: target.namespace }, opts: optionsOf(target) },
      }),
    encodeDisconnect: (target) =>
      publication(target.namespace, {
        uid: EMITTER_UID,
        nsp: target.namespace,
        type: DISCONNECT_SOCKETS,
        data: { opts: optionsOf(target), close: false },
      }),
  };
}
