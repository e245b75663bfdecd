import type { Server } from 'socket.io';
import { RoomEvents, ROOM_NAMESPACE } from '../names';
import { MemorySequence, type ReplayEntry, type SequenceReader } from './sequenceLog';
import { namespacesOf } from '../socketioInternals';

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
   * (the room's next: every room event payload carries it as `seq`, sequence.ts); `replay` is what the
   * room's log keeps of it for reconnecting clients.
   */
  atomically(fn: () => void, replay?: ReplayEntry): void;
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
  return SEQUENCED.has(event) && ROOM_NAMESPACE.test(namespace) && typeof payload === 'object' && payload !== null && !Array.isArray(payload);
}

export class LocalBroadcaster implements Broadcaster {
  /** While atomically() runs: the seq each namespace's emits of the block carry, taken at its first emit. */
  private block: { seqs: Map<string, number>; replay?: ReplayEntry } | null = null;

  constructor(
    private readonly io: Server,
    readonly sequence: MemorySequence = new MemorySequence(),
  ) {}

  /**
   * Only namespaces that exist here: `io.of(name)` would create (and keep) an empty one. `local`: this
   * process's sockets only, even under the Redis adapter, whose own disconnectSockets() would only
   * publish a request (nothing at all while Redis is away, when the clustered shape falls back here).
   */
  private operator(target: Target) {
    const nsp = namespacesOf(this.io).get(target.namespace);
    if (!nsp) return null;
    return nsp.local.to(target.to ?? []).except(target.except ?? []);
  }

  emit(target: Target, event: string, payload: unknown) {
    if (!this.block) return this.atomically(() => this.emit(target, event, payload));
    const { seqs, replay } = this.block;
    let seq = seqs.get(target.namespace);
    if (seq === undefined) seqs.set(target.namespace, (seq = this.sequence.next(target.namespace, seqs.size ? undefined : replay)));
    this.operator(target)?.emit(event, carriesSeq(target.namespace, event, payload) ? { ...payload, seq } : payload);
  }

  disconnect(target: Target) {
    this.operator(target)?.disconnectSockets(false);
  }

  whenSent(): Promise<boolean> {
    return Promise.resolve(true);
  }

  // In process, emits are synchronous: nothing can land between them.
  atomically(fn: () => void, replay?: ReplayEntry) {
    if (this.block) return fn();
    this.block = { seqs: new Map(), replay };
    try {
      fn();
    } finally {
      this.block = null;
    }
  }
}

