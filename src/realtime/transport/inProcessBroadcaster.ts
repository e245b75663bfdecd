import type { Server } from 'socket.io';
import { MemorySequence, type ReplayEntry } from './sequenceLog';
import { namespacesOf } from '../socketioInternals';
import { carriesSeq, type Broadcaster, type Target } from './broadcaster';

/**
 * The broadcaster of one process without Redis: emits go straight into this server's namespaces,
 * numbered by the process itself (MemorySequence). The Redis broadcaster holds one too, for evictions
 * that cannot go through Redis (this instance's own sockets are dropped at once).
 */
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
  atomically(fn: () => void, replay?: ReplayEntry, onSeq?: (seq: number) => void) {
    if (this.block) return fn();
    const block = (this.block = { seqs: new Map<string, number>(), replay });
    try {
      fn();
    } finally {
      this.block = null;
    }
    const seq = block.seqs.values().next().value;
    if (onSeq && seq !== undefined) onSeq(seq);
  }
}
