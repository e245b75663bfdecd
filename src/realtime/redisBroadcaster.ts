import { randomUUID } from 'node:crypto';
import type { RedisClient as Redis } from '../lib/redis';
import type { Logger } from '../logger';
import type { PublishObserver } from '../metrics/realtime';
import { carriesSeq, type Broadcaster, type LocalBroadcaster, type Target } from './broadcaster';
import type { ReplayEntry } from './sequence';
import { forgetLog, RedisSequence, sendBlock, SEQ_PLACEHOLDER, type BlockId } from './sequenceRedis';
import type { Publication, WireFormat } from './wire';

/** What a RedisBroadcaster could not publish while Redis was away: the namespaces, and when it last failed. */
export interface LostEmits {
  /** null: too many to name in one control message (resync every room). */
  namespaces: string[] | null;
  /** Every namespace concerned, named or not: their logs are cut (forgetLogs). */
  all: string[];
  lastFailureAt: number;
}

/** Namespaces named in a lost-emits report at most; past this, every room is resynced. */
const MAX_LOST_NAMESPACES = 1000;

/** Blocks kept for sending again while Redis is away, at most; past this they are dropped and reported lost. */
export const MAX_PENDING_BLOCKS = 5000;

/** How often the blocks kept are tried again while Redis is away (besides the publishing connection's `ready`). */
const RETRY_MS = 500;

interface Block {
  id: BlockId;
  namespace: string;
  entries: Array<[string, Buffer | string]>;
  replay?: ReplayEntry;
  /** Run once, at the block's first failure (a kick's local eviction). */
  fallbacks: Array<() => void>;
  failed?: boolean;
}

export interface RedisBroadcasterOptions {
  /** This instance's sockets, for evictions that cannot go through Redis. */
  local?: LocalBroadcaster;
  /** Told the latency and outcome of each block sent (metrics), when given. */
  observer?: PublishObserver;
  maxPending?: number;
}

/**
 * Emits through Redis: every instance, this one included, receives each emit from the same Redis
 * channel, in the same order (emitting locally first and remotely second, what `nsp.emit` does with the
 * adapter, would let clients on two instances see two events of one room in different orders).
 *
 * The wire format (wire.ts: the classic adapter's or the sharded one's, and PUBLISH or SPUBLISH)
 * encodes the messages; they are sent by one script per block (sequenceRedis.ts sendBlock), which
 * numbers the block in its room and logs it for replay.
 *
 * A block that fails (Redis away) is kept and sent again, in order, once Redis answers: the blocks of
 * this instance always reach Redis in the order they were made (later blocks queue behind a kept one),
 * and the script recognises a block it already ran (a reply lost with the connection) by this
 * instance's id and the block's number, so none is sent twice. Past MAX_PENDING_BLOCKS the kept blocks
 * are dropped: their rooms' logs are cut (a replay from before them falls back to `since`) and their
 * sockets resynced, as when nothing was kept (index.ts).
 */
export class RedisBroadcaster implements Broadcaster {
  readonly sequence: RedisSequence;
  private readonly instance = randomUUID();
  private blockNumber = 0;
  /** While a block is being made: its messages by namespace, its replay entry, its fallbacks. */
  private making: { byNamespace: Map<string, Array<[string, Buffer | string]>>; replay?: ReplayEntry; fallbacks: Array<() => void> } | null = null;
  /** Blocks not yet acknowledged by Redis after a failure, in the order made, and everything made after them. */
  private pending: Block[] = [];
  private draining = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private failing = false;
  /** Namespaces whose blocks were dropped, until takeLost() hands them over. */
  private lost = new Set<string>();
  private lastFailureAt = 0;
  private readonly maxPending: number;
  /** Called when a block is acknowledged after failures (index.ts then reports what was lost). */
  onRecovered?: () => void;

  constructor(
    private readonly redis: Redis,
    /** How messages are written for the adapter the instances run, and the command that carries them. */
    private readonly format: WireFormat,
    /** The adapter's channel prefix: the rooms' sequence keys are tagged with their channels. */
    private readonly key: string,
    private readonly logger: Logger,
    private readonly options: RedisBroadcasterOptions = {},
  ) {
    this.maxPending = options.maxPending ?? MAX_PENDING_BLOCKS;
    this.sequence = new RedisSequence(redis, key);
    redis.on('ready', this.onReady);
  }

  private readonly onReady = () => void this.drain();

  /** Stop retrying (shutdown). */
  close() {
    this.redis.off('ready', this.onReady);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  atomically(fn: () => void, replay?: ReplayEntry) {
    if (this.making) {
      this.making.replay ??= replay;
      return fn();
    }
    const making = (this.making = { byNamespace: new Map(), replay, fallbacks: [] as Array<() => void> });
    try {
      fn();
    } finally {
      this.making = null;
    }
    let first = true;
    for (const [namespace, entries] of making.byNamespace) {
      this.send({ id: { instance: this.instance, n: ++this.blockNumber }, namespace, entries, replay: first ? making.replay : undefined, fallbacks: first ? making.fallbacks : [] });
      first = false;
    }
  }

  /** Add `publication` to the block being made (one is opened for a lone emit), as an emit of `namespace`. */
  private within(namespace: string, make: () => Publication) {
    this.atomically(() => {
      const making = this.making!;
      let list = making.byNamespace.get(namespace);
      if (!list) making.byNamespace.set(namespace, (list = []));
      const { channel, message } = make();
      list.push([channel, message]);
    });
  }

  emit(target: Target, event: string, payload: unknown) {
    const sent = carriesSeq(target.namespace, event, payload) ? { ...payload, seq: SEQ_PLACEHOLDER } : payload;
    this.within(target.namespace, () => this.format.encodeFor(target, event, sent));
  }

  /**
   * Through Redis, so that it lands in its place among the room's events on every instance. When
   * that fails, this instance's own sockets are dropped at once; the other instances' go when the
   * block is sent again, or when they resync or re-validate (index.ts, access.ts).
   */
  disconnect(target: Target) {
    this.within(target.namespace, () => {
      this.making!.fallbacks.push(() => this.options.local?.disconnect(target));
      return this.format.encodeDisconnect(target);
    });
  }

  private send(block: Block) {
    if (this.pending.length) {
      // Queued behind blocks Redis has not taken: it cannot travel now either, so what must happen
      // here at once when it cannot (a kick's local eviction) happens now, not when it reaches the
      // head of the queue (CI caught a kick queued behind its room's participant event, never applied).
      this.fail(block);
      return this.keep(block);
    }
    void this.attempt(block).then((sent) => {
      if (!sent) this.keep(block);
    });
  }

  /** Send one block; answers whether Redis has it (now or from an earlier attempt). */
  private async attempt(block: Block): Promise<boolean> {
    const start = this.options.observer ? performance.now() : 0;
    try {
      await sendBlock(this.redis, this.key, this.format.command, block.namespace, block.entries, block.id, block.replay);
      this.options.observer?.published((performance.now() - start) / 1000, true);
      if (this.failing) {
        this.failing = false;
        this.onRecovered?.();
      }
      return true;
    } catch (err) {
      this.options.observer?.published((performance.now() - start) / 1000, false);
      if (!this.failing) this.logger.warn({ err: (err as Error).message }, 'realtime publish failed: Redis unreachable; keeping the events to send again');
      this.failing = true;
      this.lastFailureAt = Date.now();
      this.fail(block);
      return false;
    }
  }

  /** Run the block's fallbacks, once: it could not be sent. */
  private fail(block: Block) {
    if (block.failed) return;
    block.failed = true;
    for (const fallback of block.fallbacks) fallback();
  }

  /** Keep `block` for sending again, in the order blocks were made. */
  private keep(block: Block) {
    let at = this.pending.length;
    while (at > 0 && this.pending[at - 1]!.id.n > block.id.n) at--;
    this.pending.splice(at, 0, block);
    if (this.pending.length > this.maxPending) this.dropPending();
    this.scheduleRetry();
  }

  /** Too much kept: give it up, and have its rooms resynced (their logs cut) once Redis is back. */
  private dropPending() {
    const dropped = this.pending.splice(0);
    this.logger.warn({ blocks: dropped.length }, 'realtime events kept while Redis is away exceed the limit: dropped, their rooms will be resynced');
    for (const block of dropped) this.lost.add(block.namespace);
  }

  private scheduleRetry() {
    if (this.retryTimer || !this.pending.length) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.drain();
    }, RETRY_MS);
    this.retryTimer.unref();
  }

  /** Send the kept blocks in order, stopping at the first that fails (tried again later). */
  private async drain() {
    if (this.draining || !this.pending.length) return;
    this.draining = true;
    let sent = 0;
    try {
      while (this.pending.length) {
        const block = this.pending[0]!;
        if (!(await this.attempt(block))) break;
        // dropPending() may have emptied the queue meanwhile.
        if (this.pending[0] === block) this.pending.shift();
        sent++;
      }
    } finally {
      this.draining = false;
      if (sent) this.logger.info({ blocks: sent, left: this.pending.length }, 'realtime events kept while Redis was away sent');
      this.scheduleRetry();
    }
  }

  /** Blocks kept for sending again (tests, metrics). */
  get pendingBlocks(): number {
    return this.pending.length;
  }

  /** What was lost since the last call (null when nothing was), and forget it. */
  takeLost(): LostEmits | null {
    if (!this.lost.size) return null;
    const all = [...this.lost];
    const report = { namespaces: all.length > MAX_LOST_NAMESPACES ? null : all, all, lastFailureAt: this.lastFailureAt };
    this.lost.clear();
    return report;
  }

  /** Put back a report that could not be passed on (Redis failed again). */
  restoreLost(report: LostEmits) {
    for (const namespace of report.all) this.lost.add(namespace);
    this.lastFailureAt = Math.max(this.lastFailureAt, report.lastFailureAt);
  }

  /** Cut the logs of rooms whose events were dropped: a replay from before now falls back to `since`. */
  forgetLogs(namespaces: string[]): Promise<unknown> {
    return Promise.all(namespaces.map((namespace) => forgetLog(this.redis, this.key, namespace)));
  }
}
