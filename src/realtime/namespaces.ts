import type { Namespace, Server, Socket } from 'socket.io';
import type { Logger } from '../logger';
import { findParticipant, findRoomRef } from '../rooms/store/read';
import { presentParticipant, type PresentedParticipant } from '../rooms/present';
import type { Broadcaster } from './broadcaster';
import { holdLiveEvents, type WelcomeHold } from './welcomeHold';
import { MEMBERS_CHANNEL, RoomEvents, ROOM_NAMESPACE, roomNamespace, USER_NAMESPACE, userChannel } from './events';
import { errorFields, guarded } from './guard';
import { connectError, roomHandshake, socketData, userHandshake, type HandshakeLimit, type SocketData } from './handshake';
import { attachMoveRelay, type MoveLimits } from './moves';
import type { PresenceStore } from './presence';
import { RoomLoads } from './roomLoads';
import { sendEncoded } from './preEncoded';
import { memberCount } from './pusher/members';
import type { LoggedEntry } from './sequence';
import { createChildNamespace, forgetChildNamespace, handshakesUnderWay, namespacesOf } from './socketioInternals';

export interface RealtimeContext {
  io: Server;
  logger: Logger;
  broadcaster: Broadcaster;
  presence: PresenceStore;
  moveLimits?: MoveLimits;
  handshakeLimit?: HandshakeLimit;
  /**
   * Sends what a reconnecting socket missed, oldest first: the logged events after `auth.since_seq`
   * when `logged` has them (the log covers it), or else the rolls after `auth.since`. Answers the roll
   * uuids sent as RollCreateEvent, or null when there was nothing to replay from (no since, unknown since).
   */
  replay?: (socket: Socket, send: (event: string, payload: unknown) => void, logged: readonly LoggedEntry[] | null) => Promise<Set<string> | null>;
  /** Fresh room loads shared by sockets connecting together; setupNamespaces makes one if absent. */
  rooms?: RoomLoads;
  /** The parent of the `/room/{slug}` namespaces (set by setupNamespaces). */
  roomParent?: Namespace;
}

/**
 * Dynamic namespaces are created on the first connection attempt and must go when their last
 * socket does, or each leaves Redis subscriptions behind. Socket.IO's own
 * `cleanupEmptyChildNamespaces` closes a namespace as soon as its connected sockets reach zero,
 * even while another socket is still in its handshake (a reloaded tab: the old socket leaves while
 * the new one authenticates); that socket then lands in a closed namespace and hears nothing from
 * other instances. So: check on the next turn of the event loop, and only close a namespace that
 * has neither connected sockets nor handshakes under way.
 */
function scheduleCleanup(io: Server, parent: Namespace, nsp: Namespace, logger: Logger) {
  setImmediate(() => {
    // Pusher subscriptions (pusher/members.ts) hold a namespace like sockets do.
    if (nsp.sockets.size > 0 || handshakesUnderWay(nsp) > 0 || memberCount(nsp) > 0) return;
    if (!forgetChildNamespace(io, parent, nsp)) return;
    nsp.removeAllListeners();
    // A Redis adapter unsubscribes here; with Redis down that fails, and the namespace is gone all the same.
    Promise.resolve(nsp.adapter.close()).catch((err: unknown) => logger.warn(errorFields(err), 'closing a room namespace\'s adapter failed'));
  });
}

/**
 * The namespace of room `slug` for a listener that is not a Socket.IO socket (the Pusher gateway),
 * created as the parent would create it for a socket: a child of `/room/{slug}`'s parent, with its
 * middleware, so that a socket connecting to it later still goes through the handshake. (`io.of(name)`
 * would make a plain namespace that sockets enter without one.)
 */
export function roomNamespaceFor(ctx: RealtimeContext, slug: string): Namespace {
  const name = roomNamespace(slug);
  const existing = namespacesOf(ctx.io).get(name);
  if (existing) return existing;
  return createChildNamespace(ctx.roomParent!, name);
}

/** Close `nsp` on the next turn if nothing holds it any more (no socket, handshake or Pusher subscription). */
export function releaseRoomNamespace(ctx: RealtimeContext, nsp: Namespace): void {
  if (ctx.roomParent) scheduleCleanup(ctx.io, ctx.roomParent, nsp, ctx.logger);
}

/** How many child namespaces exist on this instance (for tests and health). */
export function roomNamespaceCount(io: Server): number {
  let n = 0;
  for (const name of namespacesOf(io).keys()) if (ROOM_NAMESPACE.test(name)) n++;
  return n;
}

/**
 * A socket's first moments, in an order that loses nothing: join the user's channel and the room's
 * members channel (room and roll events are addressed to them), count it present, then load the room afresh and
 * send it, announce the participant, and replay what it missed. A change committed before the
 * fresh load or the replay query is in them; one committed after is announced after the socket
 * joined its channel, so it arrives live.
 */
async function welcome(ctx: RealtimeContext, socket: Socket): Promise<void> {
  // Live events reaching the socket meanwhile wait until the welcome is out (welcomeHold.ts).
  const hold = holdLiveEvents(socket);
  const told = new Set<number>();
  const position: Position = { head: null, replayed: null };
  try {
    await welcomeInOrder(ctx, socket, hold, told, position);
  } finally {
    const { head, replayed } = position;
    // What the welcome already gave, however late its live copy comes (welcomeHold.ts LATE_SKIP_MS):
    // a roll is published after its commit, so one the replay read may reach the socket live after it.
    const given = (event: string, payload: unknown) => {
      const { data, seq } = (payload as { data?: { uuid?: string }; seq?: unknown } | undefined) ?? {};
      // Published before the room's seq was read: the welcome's snapshot holds it, and the replay, when
      // one ran, the roll events (without one, a roll of that moment still goes out, late but not lost).
      if (head !== null && typeof seq === 'number' && seq <= head && (replayed !== null || !ROLL_EVENTS.has(event))) return true;
      return event === RoomEvents.RollCreate && data?.uuid !== undefined && replayed !== null && replayed.has(data.uuid);
    };
    hold.release((event, payload) => {
      // Counted online in the welcome's list: not announced again (only while held: a later
      // ParticipantConnectEvent of the same participant is a new connection).
      if (event === RoomEvents.ParticipantConnect) {
        const id = (payload as { data?: { id?: number } } | undefined)?.data?.id;
        return id !== undefined && told.has(id);
      }
      return given(event, payload);
    }, given);
  }
}

const ROLL_EVENTS: ReadonlySet<string> = new Set([RoomEvents.RollCreate, RoomEvents.RollUpdate, RoomEvents.RollDelete]);

/** Where a welcome left a socket: the seq its snapshot was read at, and the uuids replayed (null: no replay ran). */
interface Position {
  head: number | null;
  replayed: Set<string> | null;
}

/**
 * The welcome itself; its own emits go out through `hold.direct`, everything else waits. Sets
 * `position.head` to the room's seq its snapshot was read at (live events up to it are left out).
 */
async function welcomeInOrder(ctx: RealtimeContext, socket: Socket, hold: WelcomeHold, told: Set<number>, position: Position): Promise<void> {
  const data = socketData(socket);
  const { user, room: { slug } } = data as Required<SocketData>;
  await socket.join([userChannel(user.id), MEMBERS_CHANNEL]);
  // Counted from here (the store remembers it even when Redis is away, and restores it later).
  data.present = true;
  let first = false;
  try {
    first = await withinPresenceWait(ctx.presence.join(slug, user.id));
  } catch (err) {
    ctx.logger.warn({ err: (err as Error).message, room: slug }, 'presence join failed; continuing without it');
  }
  // Read, presented and let go: the socket keeps ids only (handshake.ts SocketData). Sockets that
  // connect together share one load and its presentations (roomLoads.ts).
  const room = await ctx.rooms!.load(slug);
  const participant = room?.participant(user.id);
  if (!room || !participant) {
    // Gone, or removed since the handshake admitted it: the removal's disconnect may have gone out
    // before this socket joined its channel, so it would stay, hearing the room's moves and presence.
    socket.disconnect(true);
    return;
  }
  // The log after the client's last seq, when it covers it (sequence.ts); null: replay by `since`.
  const { head } = room;
  position.head = head;
  let logged: LoggedEntry[] | null = null;
  if (head !== null && data.sinceSeq !== undefined && data.sinceSeq !== null) {
    logged = await ctx.broadcaster.sequence.read(socket.nsp.name, data.sinceSeq, head).catch((err: Error) => {
      ctx.logger.warn({ err: err.message, room: slug }, 'could not read the room log; replaying by since');
      return null;
    });
  }
  // Its seq says where this socket's stream goes on from: the client's own when the log replays what
  // follows it, else the snapshot's (everything up to it is in the room as sent).
  const seq = head === null ? undefined : logged ? data.sinceSeq! : head;
  hold.direct(() => sendEncoded(socket, room.encodedRoomUpdate(socket, user.id, seq)));
  data.participant = participant;
  if (first) {
    ctx.broadcaster.emit({ namespace: socket.nsp.name }, RoomEvents.ParticipantConnect, { data: participant });
  }
  // Tell the newcomer who is already here, in the same words (and not again if that arrives live).
  const online = new Set(await withinPresenceWait(ctx.presence.users(slug)).catch(() => [] as number[]));
  for (const userId of room.participantUserIds()) {
    if (userId === user.id || !online.has(userId)) continue;
    const other = room.participant(userId);
    const encoded = room.encodedParticipantConnect(socket, userId);
    if (!other || !encoded) continue;
    hold.direct(() => sendEncoded(socket, encoded));
    told.add(other.id);
  }
  if (ctx.replay) position.replayed = await ctx.replay(socket, (event, payload) => hold.direct(() => socket.emit(event, payload)), logged);
}

/**
 * A welcome waits for presence at most this long: a Redis master that died and is not yet replaced
 * would hold every new socket of its rooms for seconds. Presence is then what the store restores later.
 */
const PRESENCE_WAIT_MS = 2000;

function withinPresenceWait<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  promise.catch(() => undefined);
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`presence did not answer within ${PRESENCE_WAIT_MS} ms`)), PRESENCE_WAIT_MS);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Someone's last socket left the room (here, or on an instance that died): tell the room. */
export async function announceDisconnect(ctx: RealtimeContext, slug: string, userId: number, last?: PresentedParticipant) {
  // The room's id, deleted or not: the participant is all that is presented (not the whole room).
  const room = await findRoomRef(slug, { includeDeleted: true });
  const participant = room ? await findParticipant(room.id, userId) : null;
  // A participant removed from the room still goes offline in the others' eyes: as it last was.
  const data = participant ? presentParticipant(participant) : last;
  if (!data) return;
  ctx.broadcaster.emit({ namespace: roomNamespace(slug) }, RoomEvents.ParticipantDisconnect, { data });
}

/** A connection listener that cannot throw past itself: a failure is logged and disconnects that socket only. */
function guardedConnection(ctx: RealtimeContext, listener: (socket: Socket) => void) {
  return guarded(listener, (err, socket) => {
    ctx.logger.error({ ...errorFields(err), socket: socket.id, namespace: socket.nsp.name }, 'socket connection handler failed; disconnected');
    socket.disconnect(true);
  });
}

function onRoomConnection(ctx: RealtimeContext, parent: Namespace) {
  return guardedConnection(ctx, (socket: Socket) => {
    const { user, room: { slug } } = socketData(socket) as Required<SocketData>;
    const log = ctx.logger.child({ socket: socket.id, user: user.id, room: slug });
    const ready = welcome(ctx, socket).catch((err: unknown) => {
        log.warn(errorFields(err), 'socket welcome failed');
      });
    attachMoveRelay(socket, log, ctx.moveLimits);
    const onDisconnect = async () => {
      scheduleCleanup(ctx.io, parent, socket.nsp, ctx.logger);
      // Leave only what was joined, and after it was joined.
      await ready;
      if (!socketData(socket).present) return;
      try {
        if (await ctx.presence.leave(slug, user.id)) await announceDisconnect(ctx, slug, user.id, socketData(socket).participant);
      } catch (err) {
        log.warn(errorFields(err), 'presence leave failed');
      }
    };
    socket.on('disconnect', guarded(onDisconnect, (err) => log.error(errorFields(err), 'socket disconnect handling failed')));
  });
}

/** Wire `/room/{slug}` (auth, presence, moves, cleanup) and `/user` onto `io`. */
export function setupNamespaces(ctx: RealtimeContext) {
  const { io, logger } = ctx;
  ctx.rooms ??= new RoomLoads(undefined, (slug) => ctx.broadcaster.sequence.head(roomNamespace(slug)));
  const parent = io.of(ROOM_NAMESPACE);
  ctx.roomParent = parent;
  const handshake = roomHandshake(logger, ctx.handshakeLimit);
  parent.use((socket, next) => {
    // The handshake reads the client's auth and query (handshake.ts) and answers every failure
    // through `next`; this catch is the boundary for anything it did not foresee.
    handshake(socket, (err?: Error) => {
      next(err);
      if (err) scheduleCleanup(io, parent, socket.nsp, logger);
    }).catch((err: unknown) => {
      logger.error(errorFields(err), 'socket handshake failed');
      next(connectError('service_unavailable', 'The service is temporarily unavailable: try again shortly.'));
    });
  });
  parent.on('connection', onRoomConnection(ctx, parent));

  const users = io.of(USER_NAMESPACE);
  const userHandshakeOf = userHandshake(logger, ctx.handshakeLimit);
  users.use((socket, next) => {
    userHandshakeOf(socket, next).catch((err: unknown) => {
      logger.error(errorFields(err), 'socket handshake failed');
      next(connectError('service_unavailable', 'The service is temporarily unavailable: try again shortly.'));
    });
  });
  users.on(
    'connection',
    guardedConnection(ctx, (socket) => {
      void socket.join(userChannel(socketData(socket).user.id));
    }),
  );
}
