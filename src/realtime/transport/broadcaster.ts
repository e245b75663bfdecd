import { RoomEvents, ROOM_NAMESPACE } from '../names';
import type { ReplayEntry, SequenceReader } from './sequenceLog';

/** Where an emit goes inside one namespace: some channels (or all sockets), minus some channels. */
export interface Target {
  namespace: string;
  /** Channels to reach; empty or absent means every socket of the namespace. */
  to?: string[];
  except?: string[];
}

/**
 * The one way the realtime layer talks to sockets it does not hold in its hand. Two shapes:
 * - in process (no Redis): straight into the local namespaces;
 * - Redis (redisBroadcaster.ts): encoded by `@socket.io/redis-emitter`, sent by one script per block,
 *   so every instance, this one included, receives each emit from the same Redis channel, in the
 *   same order. Emitting locally first and remotely second
 *   (what `nsp.emit` does with the adapter) would let clients on two instances see two events of one
 *   room in different orders.
 */
export interface Broadcaster {
  emit(target: Target, event: string, payload: unknown): void;
  /** Drop the targeted sockets from the namespace, on every instance (the client does not retry). */
  disconnect(target: Target): void;
  /**
   * Run `fn`, whose emits must reach Redis as one block: the per-class emits of one event, so that no
   * other instance's emit lands between them and every client sees one order. The block gets one seq
   * (the room's next: every room event payload carries it as `seq`, sequenceLog.ts); `replay` is what the
   * room's log keeps of it for reconnecting clients. `onSeq` hears the seq of the block's first
   * namespace once it has one (the room's: webhooks carry it, events/record.ts); never for a block
   * given up or refused as already sent.
   */
  atomically(fn: () => void, replay?: ReplayEntry, onSeq?: (seq: number) => void): void;
  /** The rooms' counters and logs, as this broadcaster numbers them. */
  readonly sequence: SequenceReader;
  /**
   * Resolves true once every block made so far for `namespace` reached its subscribers' Redis (at once
   * in process), false when they were given up (kept past the limit while Redis was away).
   */
  whenSent(namespace: string): Promise<boolean>;
}

const SEQUENCED: ReadonlySet<string> = new Set(Object.values(RoomEvents).filter((e) => e !== RoomEvents.ReplayRequired));

/** Whether an emit of `event` to `namespace` carries the block's `seq` in its payload: room events of room namespaces. */
export function carriesSeq(namespace: string, event: string, payload: unknown): payload is Record<string, unknown> {
  return SEQUENCED.has(event) && ROOM_NAMESPACE.test(namespace) && isObjectPayload(payload);
}

/** A payload that is an object (not an array): the kind that can carry a `seq` beside its fields. */
export function isObjectPayload(payload: unknown): payload is Record<string, unknown> {
  return typeof payload === 'object' && payload !== null && !Array.isArray(payload);
}
