import { randomUUID } from 'node:crypto';
import type { RedisClient as Redis } from '../../lib/redis';
import type { Logger } from '../../logger';
import type { PublishObserver } from '../../metrics/realtime';
import { carriesSeq, isObjectPayload, type Broadcaster, type Target } from './broadcaster';
import type { LocalBroadcaster } from './inProcessBroadcaster';
import type { ReplayEntry } from './sequenceLog';
import { forgetLog, RedisSequence, sendBlock, SEQ_PLACEHOLDER, type BlockId } from './sequenceLogRedis';
import type { Publication, WireFormat } from './wireFormat';
import { preSerialize } from './preSerialized';

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

/** A room's blocks waiting their turn: sent one at a time (run), kept while Redis does not take them (stalled). */
interface RoomQueue {
  blocks: Block[];
  running: boolean;
  stalled: boolean;
}

interface Block {
  id: BlockId;
  namespace: string;
  entries: Array<[string, Buffer | string]>;
  replay?: ReplayEntry;
  /** Run once, at the block's first failure (a kick's local eviction). */
  fallbacks: Array<() => void>;
  failed?: boolean;
  /** Told true once Redis acknowledged this block (and so every earlier one of its room), false if it was dropped. */
  waiters?: Array<(sent: boolean) => void>;
  /** Told the block's seq once the script numbered it. */
  onSeq?: (seq: number) => void;
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
 * The wire format (wireFormat.ts: the classic adapter's or the sharded one's, and PUBLISH or SPUBLISH)
 * encodes the messages; they are sent by one script per block (sequenceLogRedis.ts sendBlock), which
 * numbers the block in its room and logs it for replay.
 *
 * A room's blocks go one at a time (the next once Redis acknowledged the previous one), so they reach
 * Redis in the order they were made whatever a cluster client re-sends after a failover. A block that
 * fails (Redis, or the room's master, away) is kept with those after it in its room and sent again,
 * in order, once Redis answers; the other rooms go on. The script recognises a block it already ran
 * (a reply lost with the connection) by this instance's id and the block's number, so none is sent
 * twice; a refusal is logged and counted. Past MAX_PENDING_BLOCKS the kept blocks are dropped: their
 * rooms' logs are cut (a replay from before them falls back to `since`) and their sockets resynced, as
 * when nothing was kept (realtime/index.ts).
 */
export class RedisBroadcaster implements Broadcaster {
  readonly sequence: RedisSequence;
  private readonly instance = randomUUID();
  private blockNumber = 0;
  /** While a block is being made: its messages by namespace, its replay entry, its fallbacks. */
  private making: {
    byNamespace: Map<string, Array<[string, Buffer | string]>>;
    replay?: ReplayEntry;
    fallbacks: Array<() => void>;
    onSeq?: (seq: number) => void;
  } | null = null;
  /** Each room's blocks not yet acknowledged, in the order made: the first is in flight, or kept after a failure. */
  private rooms = new Map<string, RoomQueue>();
  /** Blocks in kept rooms (those whose first block failed). */
  private kept = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private failing = false;
  /** Namespaces whose blocks were dropped, until takeLost() hands them over. */
  private lost = new Set<string>();
  private lastFailureAt = 0;
  private readonly maxPending: number;
  /** Called when a block is acknowledged after failures (realtime/index.ts then reports what was lost). */
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

  private readonly onReady = () => this.drain();

  /** Stop retrying (shutdown). */
  close() {
    this.redis.off('ready', this.onReady);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  atomically(fn: () => void, replay?: ReplayEntry, onSeq?: (seq: number) => void) {
    if (this.making) {
      this.making.replay ??= replay;
      this.making.onSeq ??= onSeq;
      return fn();
    }
    const making = (this.making = { byNamespace: new Map<string, Array<[string, Buffer | string]>>(), replay, fallbacks: [] as Array<() => void>, onSeq });
    try {
      fn();
    } finally {
      this.making = null;
    }
    let first = true;
    for (const [namespace, entries] of making.byNamespace) {
      this.send({
        id: { instance: this.instance, n: ++this.blockNumber },
        namespace,
        entries,
        replay: first ? making.replay : undefined,
        fallbacks: first ? making.fallbacks : [],
        onSeq: first ? making.onSeq : undefined,
      });
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
    // Objects cross Redis as their JSON text (preSerialized.ts), the seq placeholder beside it.
    const sent = isObjectPayload(payload) ? preSerialize(payload, carriesSeq(target.namespace, event, payload) ? SEQ_PLACEHOLDER : undefined) : payload;
    this.within(target.namespace, () => this.format.encodeFor(target, event, sent));
  }

  /**
   * Through Redis, so that it lands in its place among the room's events on every instance. When
   * that fails, this instance's own sockets are dropped at once; the other instances' go when the
   * block is sent again, or when they resync or re-validate (realtime/index.ts, connection/accessRechecks.ts).
   */
  disconnect(target: Target) {
    this.within(target.namespace, () => {
      this.making!.fallbacks.push(() => this.options.local?.disconnect(target));
      return this.format.encodeDisconnect(target);
    });
  }

  private send(block: Block) {
    let room = this.rooms.get(block.namespace);
    if (!room) this.rooms.set(block.namespace, (room = { blocks: [], running: false, stalled: false }));
    room.blocks.push(block);
    if (room.stalled) {
      // Queued behind blocks Redis has not taken: it cannot travel now either, so what must happen
      // here at once when it cannot (a kick's local eviction) happens now, not when it reaches the
      // head of the queue (CI caught a kick queued behind its room's participant event, never applied).
      this.fail(block);
      this.kept++;
      if (this.kept > this.maxPending) this.dropKept();
      return;
    }
    if (!room.running) void this.run(block.namespace, room);
  }

  /**
   * Send a room's blocks one at a time, each once the previous one is acknowledged: a client that
   * re-sends commands after a failover (ioredis retries MOVED, TRYAGAIN and CLUSTERDOWN after
   * delays of its own) could otherwise deliver a later block first, and the script, which recognises
   * a block sent again by this instance's highest block number in the room, would refuse the earlier
   * one. Stops at the first failure: the room's blocks are kept (stall) and tried again later.
   */
  private async run(namespace: string, room: RoomQueue) {
    room.running = true;
    try {
      while (room.blocks.length) {
        const block = room.blocks[0]!;
        if (!(await this.attempt(block))) return this.stall(room);
        // dropKept() may have emptied the queue meanwhile.
        if (room.blocks[0] === block) room.blocks.shift();
        for (const waiter of block.waiters ?? []) waiter(true);
      }
      if (this.rooms.get(namespace) === room) this.rooms.delete(namespace);
    } finally {
      room.running = false;
    }
  }

  /** Send one block; answers whether Redis has it (now or from an earlier attempt). */
  private async attempt(block: Block): Promise<boolean> {
    const start = this.options.observer ? performance.now() : 0;
    try {
      const seq = await sendBlock(this.redis, this.key, this.format.command, block.namespace, block.entries, block.id, block.replay);
      this.options.observer?.published((performance.now() - start) / 1000, true);
      if (seq > 0) block.onSeq?.(seq);
      if (seq === -1) {
        // Expected for a block sent again after its reply was lost (it ran the first time), and for a
        // roll's creation already published by another instance's outbox sweep. Any other refusal
        // would be an event lost: never quietly (dice_realtime_blocks_refused_total).
        this.options.observer?.refused?.();
        this.logger.warn({ namespace: block.namespace, block: block.id.n }, 'realtime block refused by the numbering script as already sent');
      }
      if (this.failing) {
        this.failing = false;
        this.onRecovered?.();
      }
      return true;
    } catch (err) {
      this.options.observer?.published((performance.now() - start) / 1000, false);
      if (!this.failing)
        this.logger.warn(
          { err: (err as Error).message, namespace: block.namespace },
          'realtime publish failed: Redis unreachable; keeping the events to send again',
        );
      this.failing = true;
      this.lastFailureAt = Date.now();
      return false;
    }
  }

  /** Run the block's fallbacks, once: it could not be sent. */
  private fail(block: Block) {
    if (block.failed) return;
    block.failed = true;
    for (const fallback of block.fallbacks) fallback();
  }

  /** A room's head block failed: keep its blocks for sending again, in order. */
  private stall(room: RoomQueue) {
    room.stalled = true;
    for (const block of room.blocks) this.fail(block);
    this.kept += room.blocks.length;
    if (this.kept > this.maxPending) this.dropKept();
    this.scheduleRetry();
  }

  /** Too much kept: give it up, and have its rooms resynced (their logs cut) once Redis is back. */
  private dropKept() {
    let dropped = 0;
    for (const [namespace, room] of this.rooms) {
      if (!room.stalled) continue;
      dropped += room.blocks.length;
      for (const block of room.blocks.splice(0)) for (const waiter of block.waiters ?? []) waiter(false);
      this.rooms.delete(namespace);
      this.lost.add(namespace);
    }
    this.kept = 0;
    this.logger.warn({ blocks: dropped }, 'realtime events kept while Redis is away exceed the limit: dropped, their rooms will be resynced');
  }

  private scheduleRetry() {
    if (this.retryTimer || !this.kept) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.drain();
    }, RETRY_MS);
    this.retryTimer.unref();
  }

  /** Try the kept rooms again, each from its first block (a room that fails again is kept again). */
  private drain() {
    if (!this.kept) return;
    const resumed = [...this.rooms].filter(([, room]) => room.stalled && !room.running);
    for (const [namespace, room] of resumed) {
      room.stalled = false;
      this.kept -= room.blocks.length;
      const count = room.blocks.length;
      void this.run(namespace, room).then(() => {
        if (!room.stalled) this.logger.info({ blocks: count, namespace }, 'realtime events kept while Redis was away sent');
      });
    }
    this.scheduleRetry();
  }

  whenSent(namespace: string): Promise<boolean> {
    const last = this.rooms.get(namespace)?.blocks.at(-1);
    if (!last) return Promise.resolve(true);
    return new Promise((resolve) => (last.waiters ??= []).push(resolve));
  }

  /** Blocks kept for sending again (tests, metrics). */
  get pendingBlocks(): number {
    return this.kept;
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
