import type { Namespace, Server, Socket } from 'socket.io';
import type { Logger } from '../../logger';
import { findParticipant, findRoomRef } from '../../rooms/store/read';
import { presentParticipant, type PresentedParticipant } from '../../rooms/present';
import { RoomEvents, ROOM_NAMESPACE, roomNamespace, USER_NAMESPACE, userChannel } from '../names';
import { errorFields, guarded } from '../callbackGuards';
import { connectError, roomHandshake, socketData, userHandshake, type HandshakeLimit, type SocketData } from './handshake';
import { attachMoveRelay, type MoveLimits } from '../fanout/draggedDice';
import { RoomLoads } from './roomSnapshots';
import { welcome, type WelcomeContext } from './welcome';
import { memberCount } from '../pusher/namespaceMembers';
import { createChildNamespace, forgetChildNamespace, handshakesUnderWay, namespacesOf } from '../socketioInternals';

/** What the connection stage shares: the welcome's part (welcome.ts) and the namespaces' own. */
export interface RealtimeContext extends WelcomeContext {
  io: Server;
  moveLimits?: MoveLimits;
  handshakeLimit?: HandshakeLimit;
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
    // Pusher subscriptions (pusher/namespaceMembers.ts) hold a namespace like sockets do.
    if (nsp.sockets.size > 0 || handshakesUnderWay(nsp) > 0 || memberCount(nsp) > 0) return;
    if (!forgetChildNamespace(io, parent, nsp)) return;
    nsp.removeAllListeners();
    // A Redis adapter unsubscribes here; with Redis down that fails, and the namespace is gone all the same.
    Promise.resolve(nsp.adapter.close()).catch((err: unknown) => logger.warn(errorFields(err), "closing a room namespace's adapter failed"));
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
    const {
      user,
      room: { slug },
    } = socketData(socket) as Required<SocketData>;
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
    socket.on(
      'disconnect',
      guarded(onDisconnect, (err) => log.error(errorFields(err), 'socket disconnect handling failed')),
    );
  });
}

/** How long a welcome waits before reading a room's seq a second time. */
const HEAD_RETRY_MS = 250;

/**
 * The room's latest seq for a welcome, read a second time after a pause when Redis fails the first
 * read: a cluster that is forming or failing over refuses commands for a moment, and a welcome without
 * a seq leaves its client nothing to resume from the log with later. A second failure leaves the
 * snapshot without one (roomSnapshots.ts).
 */
async function readHead(ctx: RealtimeContext, slug: string): Promise<number> {
  const namespace = roomNamespace(slug);
  try {
    return await ctx.broadcaster.sequence.head(namespace);
  } catch (err) {
    ctx.logger.warn({ err: (err as Error).message, room: slug }, "could not read the room's seq; reading it once more");
    await new Promise((resolve) => setTimeout(resolve, HEAD_RETRY_MS));
    return ctx.broadcaster.sequence.head(namespace);
  }
}

/** Wire `/room/{slug}` (auth, presence, moves, cleanup) and `/user` onto `io`. */
export function setupNamespaces(ctx: RealtimeContext) {
  const { io, logger } = ctx;
  ctx.rooms ??= new RoomLoads(undefined, (slug) => readHead(ctx, slug));
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
