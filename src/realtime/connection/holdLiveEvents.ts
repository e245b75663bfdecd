import type { Socket } from 'socket.io';
import { connectionWriter, outgoingNotifier, type EngineWrite, type OutgoingNotice } from '../socketioInternals';

/**
 * Live events that reach a socket while it is being welcomed, held back until the welcome is out, so a
 * socket hears, in this order: its RoomUpdateEvent, who is online, the rolls it missed (`since`), then
 * everything live, with nothing twice. Without it a roll committed during the replay reached the
 * socket before the older rolls being replayed, and a participant counted online during the welcome
 * was announced to the newcomer twice (once live, once in the list of who is online).
 *
 * How: everything a socket is sent goes through its connection's `client.writeToEngine()`, broadcasts
 * (socket.io-adapter) right after `socket.notifyOutgoingListeners(packet)` with the decoded packet.
 * While a hold is on, writes are queued with their packet, except those made inside `direct()` (the
 * welcome's own emits); `release()` writes the queue in order, leaving out what `skip` names. A
 * connection carries every namespace its client opened: their writes are held too (and never
 * skipped), for the moment the welcome lasts.
 *
 * The hooks last only as long as they are needed: once no hold is on and every `late` window is over,
 * the connection and its sockets get their own methods back (bench:fanout: a wrapped connection cost
 * about 1 ms of CPU per roll written to 1,000 sockets, docs/performance.md). The next welcome on the
 * connection wraps them again.
 */

interface Packet {
  nsp?: string;
  data?: unknown[];
}

type Write = EngineWrite;
type Notify = OutgoingNotice;

interface ClientHold {
  client: HoldableClient;
  original: Write;
  /** Whether the connection's writeToEngine is the hold's (false once the hooks are given back). */
  hooked: boolean;
  /** The sockets whose notifyOutgoingListeners is wrapped, with what it was before. */
  notifiers: Map<NotifiableSocket, Notify>;
  /** Gives the hooks back when the last `late` window ends. */
  timer: NodeJS.Timeout | null;
  holds: number;
  passing: number;
  /** the decoded packet of the broadcast being written (set by notifyOutgoingListeners, just before) */
  last: Packet | undefined;
  queue: Array<{ packets: unknown; opts: unknown; packet: Packet | undefined }>;
  /** what each namespace welcomed on this connection leaves out of the queue */
  skips: Map<string, (event: string, payload: unknown) => boolean>;
  /** what each namespace still leaves out after its welcome, until when (performance.now()) */
  late: Map<string, { skip: (event: string, payload: unknown) => boolean; until: number }>;
}

/**
 * How long after a welcome its `late` rule still applies. A roll is published after its commit, so
 * one committed before the replay's query (and replayed) can reach the socket live after the
 * welcome, later by the fan-out's own delay (its queue, the room's read, the numbering round trip).
 */
export const LATE_SKIP_MS = 30_000;

const HOLD = Symbol('welcomeHold');

type HoldableClient = { writeToEngine: Write; [HOLD]?: ClientHold };
// notifyOutgoingListeners: a private method of Socket, called by the adapter for every broadcast packet (socketioInternals.ts).
type NotifiableSocket = ReturnType<typeof outgoingNotifier>;

export interface WelcomeHold {
  /** Run `fn`, whose emits to the socket go out at once (the welcome's own). */
  direct<T>(fn: () => T): T;
  /**
   * Write what was held, in order, without the packets of this socket's namespace that `skip` names;
   * for LATE_SKIP_MS after, leave out those `late` names too (a rule that stays true of a packet
   * however late it comes: a replayed roll's creation, an event older than the welcome's snapshot).
   */
  release(skip?: (event: string, payload: unknown) => boolean, late?: (event: string, payload: unknown) => boolean): void;
}

export function holdLiveEvents(socket: Socket, lateMs = LATE_SKIP_MS): WelcomeHold {
  const client = connectionWriter<{ [HOLD]?: ClientHold }>(socket);
  let hold = client[HOLD];
  if (!hold) {
    const created: ClientHold = {
      client,
      original: client.writeToEngine,
      hooked: false,
      notifiers: new Map(),
      timer: null,
      holds: 0,
      passing: 0,
      last: undefined,
      queue: [],
      skips: new Map(),
      late: new Map(),
    };
    client[HOLD] = hold = created;
    // A closed connection writes nothing more: no timer keeps it in memory for its late window.
    socket.client.conn.once('close', () => {
      if (created.timer) clearTimeout(created.timer);
      created.timer = null;
    });
  }
  hook(hold, outgoingNotifier(socket));
  hold.holds++;
  let released = false;
  return {
    direct(fn) {
      hold.passing++;
      try {
        return fn();
      } finally {
        hold.passing--;
      }
    },
    release(skip, late) {
      if (released) return;
      released = true;
      if (skip) hold.skips.set(socket.nsp.name, skip);
      if (late) hold.late.set(socket.nsp.name, { skip: late, until: performance.now() + lateMs });
      hold.holds--;
      if (hold.holds > 0) return;
      const skips = new Map(hold.skips);
      hold.skips.clear();
      for (const { packets, opts, packet } of hold.queue.splice(0)) {
        const [event, payload] = packet?.data ?? [];
        const skipOf = packet?.nsp !== undefined ? skips.get(packet.nsp) : undefined;
        if (skipOf && typeof event === 'string' && skipOf(event, payload)) continue;
        hold.original.call(client, packets, opts);
      }
      unhookWhenDone(hold);
    },
  };
}

/** Wrap the connection's writeToEngine (once) and `socket`'s notifyOutgoingListeners (once per socket). */
function hook(hold: ClientHold, socket: NotifiableSocket) {
  if (!hold.hooked) {
    hold.hooked = true;
    hold.client.writeToEngine = function (packets, opts) {
      const packet = hold.last;
      hold.last = undefined;
      if (hold.holds > 0 && hold.passing === 0) hold.queue.push({ packets, opts, packet });
      else if (!lateSkipped(hold, packet)) hold.original.call(this, packets, opts);
    };
  }
  if (hold.notifiers.has(socket)) return;
  const notify = socket.notifyOutgoingListeners;
  hold.notifiers.set(socket, notify);
  socket.notifyOutgoingListeners = function (packet) {
    hold.last = packet;
    notify.call(this, packet);
  };
}

/**
 * Give the connection and its sockets their own methods back when nothing needs the hooks: no hold
 * on and no `late` window open; with windows open, try again when the last one ends. Assigned back
 * rather than deleted: deleting a property can turn an object's properties into a dictionary,
 * slower on every later access.
 */
function unhookWhenDone(hold: ClientHold) {
  if (hold.timer) clearTimeout(hold.timer);
  hold.timer = null;
  if (!hold.hooked || hold.holds > 0) return;
  const now = performance.now();
  let last = 0;
  for (const [nsp, { until }] of hold.late) {
    if (until <= now) hold.late.delete(nsp);
    else last = Math.max(last, until);
  }
  if (hold.late.size) {
    hold.timer = setTimeout(() => unhookWhenDone(hold), Math.ceil(last - now) + 1);
    hold.timer.unref();
    return;
  }
  hold.client.writeToEngine = hold.original;
  for (const [socket, notify] of hold.notifiers) socket.notifyOutgoingListeners = notify;
  hold.notifiers.clear();
  hold.hooked = false;
  hold.last = undefined;
}

/** Whether a broadcast packet written after its namespace's welcome is one that welcome's `late` rule leaves out. */
function lateSkipped(hold: ClientHold, packet: Packet | undefined): boolean {
  if (!hold.late.size || packet?.nsp === undefined) return false;
  const rule = hold.late.get(packet.nsp);
  if (!rule) return false;
  if (rule.until <= performance.now()) {
    hold.late.delete(packet.nsp);
    return false;
  }
  const [event, payload] = packet.data ?? [];
  return typeof event === 'string' && rule.skip(event, payload);
}

/**
 * Run `fn`, whose writes to `socket`'s connection go out now even while a welcome holds that
 * connection's live events (accessRechecks.ts: a socket told to reconnect and replay must hear it, and the
 * events held for it are moot: it replays them after reconnecting).
 */
export function unheld<T>(socket: Socket, fn: () => T): T {
  const hold = connectionWriter<{ [HOLD]?: ClientHold }>(socket)[HOLD];
  if (!hold) return fn();
  hold.passing++;
  try {
    return fn();
  } finally {
    hold.passing--;
  }
}
