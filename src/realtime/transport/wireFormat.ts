import { Emitter } from '@socket.io/redis-emitter';
import type { Target } from './broadcaster';
import type { PubSubMode } from './pubsubMode';
import { shardedWire } from './shardedWire';

/** One message for Redis: where it goes and what it says. */
export interface Publication {
  channel: string;
  message: string | Buffer;
}

/**
 * How the broadcaster's emits are written for the adapter every instance runs (the one place that
 * knows both): the encoding of a message, the channel it goes to, and the command that carries it.
 * Sending is the Redis broadcaster's (redisBroadcaster.ts, through sequenceLogRedis.ts `sendBlock`).
 */
export interface WireFormat {
  /** PUBLISH for the classic adapter, SPUBLISH (sharded pub/sub) for the sharded one. */
  readonly command: 'publish' | 'spublish';
  /** An event for the sockets `target` names. */
  encodeFor(target: Target, event: string, payload: unknown): Publication;
  /** Drop the sockets `target` names from their namespace (the client does not retry). */
  encodeDisconnect(target: Target): Publication;
}

/**
 * The classic adapter's format, written by `@socket.io/redis-emitter` itself (it publishes through
 * the client it is given: here one that hands the message back instead of sending it).
 */
export function classicWire(key: string): WireFormat {
  let captured: Publication | null = null;
  const capture = {
    publish(channel: string, message: string | Buffer) {
      captured = { channel, message };
      return Promise.resolve(0);
    },
  };
  const emitter = new Emitter(capture, { key });
  const encode = (send: () => void): Publication => {
    captured = null;
    send();
    const out = captured as Publication | null;
    if (!out) throw new Error('@socket.io/redis-emitter published nothing');
    return out;
  };
  const operator = (target: Target) =>
    emitter
      .of(target.namespace)
      .to(target.to ?? [])
      .except(target.except ?? []);
  return {
    command: 'publish',
    encodeFor: (target, event, payload) => encode(() => operator(target).emit(event, payload)),
    encodeDisconnect: (target) => encode(() => operator(target).disconnectSockets(false)),
  };
}

/** The format of the adapter `mode` runs on, with channels under `key` (the adapter's prefix). */
export function wireFor(mode: PubSubMode, key: string): WireFormat {
  return mode === 'sharded' ? shardedWire(key) : classicWire(key);
}
