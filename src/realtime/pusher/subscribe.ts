import type { Namespace } from 'socket.io';
import { AppError, UnauthorizedError } from '../../errors';
import type { PresentedParticipant } from '../../rooms/present';
import { findUserByUuid } from '../../users/store';
import { RoomEvents, USER_NAMESPACE } from '../names';
import { errorFields } from '../callbackGuards';
import { announceDisconnect, releaseRoomNamespace, roomNamespaceFor, type RealtimeContext } from '../connection/namespaces';
import { grantChannel, liveKeyIdByRef, parseChannelData } from './grants';
import { addMember, removeMember } from './namespaceMembers';
import { encodeFrame, ErrorCode, errorFrame, parseChannel } from './protocol';
import { verifyChannel } from './signature';
import { Subscription, type FrameSink } from './subscription';

/** A connection as subscriptions see it: where frames go, and its channels. */
export interface SubscriberConnection extends FrameSink {
  readonly subscriptions: Map<string, Subscription | 'pending'>;
  readonly closed: boolean;
}

/** Channels one connection may hold: the SDK uses three. */
export const MAX_SUBSCRIPTIONS = 20;

export interface SubscribeContext {
  rt: RealtimeContext;
  secret: string;
}

/** A refused subscribe: what pusher-js hands the channel's error callback (the SDK's onConnectionError). */
function refuse(conn: FrameSink, channel: string, status: number, error: string): void {
  conn.send(encodeFrame('pusher:subscription_error', { type: 'AuthError', error, status }, channel));
}

/**
 * `pusher:subscribe`: the grant must be this server's, for this connection and channel (signature),
 * its key still live, and the channel rule (grants.ts) must still hold now, not only when the grant
 * was signed. Then the subscription joins its namespace, is counted present (presence channels),
 * announced, and answered with the members online on every instance.
 */
export async function subscribe(ctx: SubscribeContext, conn: SubscriberConnection, data: Record<string, unknown>): Promise<void> {
  const name = data.channel;
  // Not a name: there is no channel to answer on, so the answer is a connection-level pusher:error.
  if (typeof name !== 'string' || !name) return conn.send(errorFrame(ErrorCode.Generic, 'pusher:subscribe needs a channel (a channel name, as a string).'));
  if (conn.subscriptions.has(name)) return;
  if (conn.subscriptions.size >= MAX_SUBSCRIPTIONS) return refuse(conn, name, 403, `At most ${MAX_SUBSCRIPTIONS} channels per connection.`);
  const channel = parseChannel(name);
  if (!channel) return refuse(conn, name, 403, 'No such channel.');
  const channelData = typeof data.channel_data === 'string' ? data.channel_data : undefined;
  const claims = parseChannelData(channelData);
  if (!claims || !verifyChannel(ctx.secret, data.auth, conn.socketId, name, channelData)) return refuse(conn, name, 401, 'Invalid signature');

  conn.subscriptions.set(name, 'pending');
  let subscription: Subscription | null = null;
  try {
    const user = await findUserByUuid(claims.userUuid);
    const keyId = user ? await liveKeyIdByRef(ctx.secret, user.id, claims.keyRef) : null;
    if (!user || keyId === null) throw new UnauthorizedError('The API key of this authorisation has been revoked.');
    const grant = await grantChannel(user, name);
    if (conn.closed) return;
    const nsp = grant.room ? roomNamespaceFor(ctx.rt, grant.room.slug) : ctx.rt.io.of(USER_NAMESPACE);
    const onError = (err: unknown, event: string) =>
      ctx.rt.logger.warn({ ...errorFields(err), channel: name, event }, 'a Pusher subscription could not pass an event on; dropped');
    const sub = new Subscription(
      conn,
      { channel, nsp, user: { id: user.id, uuid: user.uuid }, keyId, room: grant.room, participant: grant.participant, onError },
      (s) => {
        endSubscription(ctx, conn, s, { status: 403, error: 'Access to this channel was withdrawn.' }).catch((err: unknown) => onError(err, 'evict'));
      },
    );
    subscription = sub;
    conn.subscriptions.set(name, sub);
    // A member from here: what the namespace hears from now on waits in the subscription, in order.
    addMember(nsp, sub);
    if (channel.kind !== 'presence-room') return sub.succeed();
    sub.succeed(await joinPresence(ctx.rt, sub));
  } catch (err) {
    if (subscription) await endSubscription(ctx, conn, subscription);
    else if (conn.subscriptions.get(name) === 'pending') conn.subscriptions.delete(name);
    if (err instanceof AppError && err.status < 500) return refuse(conn, name, err.status, err.message);
    ctx.rt.logger.warn({ err: (err as Error).message, channel: name }, 'pusher subscribe failed');
    refuse(conn, name, 503, 'The subscription could not be completed; try again.');
  }
}

/**
 * Count the subscription present, announce the user when it is their first connection anywhere
 * (Socket.IO or Pusher: one presence per user, as connection/welcome.ts and namespaces.ts count a socket), and answer the members
 * online: the room's participants with a connection on any instance, the subscriber included.
 */
async function joinPresence(rt: RealtimeContext, sub: Subscription): Promise<Map<string, PresentedParticipant>> {
  const slug = sub.room!.slug;
  sub.present = true;
  let first = false;
  try {
    first = await rt.presence.join(slug, sub.user.id);
  } catch (err) {
    rt.logger.warn({ err: (err as Error).message, room: slug }, 'presence join failed; continuing without it');
  }
  const room = await rt.rooms!.load(slug);
  if (first && sub.participant) rt.broadcaster.emit({ namespace: sub.nsp.name }, RoomEvents.ParticipantConnect, { data: sub.participant });
  const online = new Set(await rt.presence.users(slug).catch(() => [] as number[]));
  online.add(sub.user.id);
  const members = new Map<string, PresentedParticipant>();
  for (const userId of room?.participantUserIds() ?? []) {
    const participant = online.has(userId) ? room!.participant(userId) : undefined;
    if (participant) members.set(participant.user.uuid, participant);
  }
  if (sub.participant) members.set(sub.user.uuid, sub.participant);
  return members;
}

/**
 * End a subscription (unsubscribe, eviction, the connection closing): leave the namespace, count the
 * user out and announce them gone when it was their last connection, and, for an eviction, tell the
 * client with a `pusher:subscription_error` (pusher-js hands it to the channel's error callback).
 */
export async function endSubscription(
  ctx: SubscribeContext,
  conn: SubscriberConnection,
  sub: Subscription,
  evicted?: { status: number; error: string },
): Promise<void> {
  if (sub.ended) return;
  sub.end();
  if (conn.subscriptions.get(sub.channel.name) === sub) conn.subscriptions.delete(sub.channel.name);
  removeMember(sub.nsp, sub.sid);
  if (evicted && !conn.closed) refuse(conn, sub.channel.name, evicted.status, evicted.error);
  if (sub.room) releaseRoomNamespace(ctx.rt, sub.nsp as Namespace);
  if (!sub.present) return;
  sub.present = false;
  const slug = sub.room!.slug;
  try {
    if (await ctx.rt.presence.leave(slug, sub.user.id)) await announceDisconnect(ctx.rt, slug, sub.user.id, sub.participant);
  } catch (err) {
    ctx.rt.logger.warn({ err: (err as Error).message, room: slug }, 'presence leave failed');
  }
}
