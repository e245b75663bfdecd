import type { Namespace } from 'socket.io';
import type { PresentedParticipant } from '../../rooms/present';
import { RoomEvents } from '../names';
import { isRecord } from '../shapeChecks';
import type { NamespaceMember } from './namespaceMembers';
import { encodeFrame, type ChannelRef } from './protocol';
import { APP_EVENTS, appEventFrame, CLIENT_RELAY_EVENT, type RelayedClientEvent } from './translate';

/** The side of a connection a subscription writes to. */
export interface FrameSink {
  readonly socketId: string;
  send(frame: string): void;
}

export interface SubscriptionInit {
  channel: ChannelRef;
  nsp: Namespace;
  user: { id: number; uuid: string };
  keyId: number;
  room?: { id: number; slug: string };
  participant?: PresentedParticipant;
  /** An event this subscription failed to pass on (it came through Redis: it may be malformed). */
  onError?: (err: unknown, event: string) => void;
}

/** Adapter rooms of Pusher members only (Socket.IO sockets never join a `pusher:` room). */
export const pusherRooms = {
  /** Every presence subscription of a room namespace. */
  presence: 'pusher:presence',
  user: (userId: number) => `pusher:user:${userId}`,
  socket: (socketId: string) => `pusher:socket:${socketId}`,
  channel: (name: string) => `pusher:channel:${name}`,
};

/**
 * One channel of one connection, listening to a Socket.IO namespace as a member of its adapter
 * (namespaceMembers.ts): what the namespace's sockets of the same user hear, this subscription hears, said
 * the Pusher way (translate.ts), once. Until its `subscription_succeeded` is out, what it hears
 * waits in order, so a client never gets an event on a channel before the channel's own answer.
 */
export class Subscription implements NamespaceMember {
  readonly sid: string;
  readonly rooms: ReadonlySet<string>;
  readonly channel: ChannelRef;
  readonly nsp: Namespace;
  readonly user: { id: number; uuid: string };
  readonly keyId: number;
  readonly room?: { id: number; slug: string };
  readonly participant?: PresentedParticipant;
  private readonly onError?: (err: unknown, event: string) => void;
  /** Counted in the room's presence (presence-room only): counted out exactly once. */
  present = false;
  private state: 'pending' | 'live' | 'ended' = 'pending';
  private queue: Array<[string, unknown]> = [];
  /** presence-room: the user ids its client holds as members (pusher-js Members), to send each change once. */
  private known = new Set<string>();

  constructor(
    private readonly sink: FrameSink,
    init: SubscriptionInit,
    /** Called when the namespace evicts this subscription (its user lost access, the room went). */
    private readonly onEvict: (subscription: Subscription) => void,
  ) {
    this.channel = init.channel;
    this.nsp = init.nsp;
    this.user = init.user;
    this.keyId = init.keyId;
    this.room = init.room;
    this.participant = init.participant;
    this.onError = init.onError;
    this.sid = `pusher:${sink.socketId}:${init.channel.name}`;
    const rooms = [pusherRooms.socket(sink.socketId), pusherRooms.channel(init.channel.name), `user:${init.user.id}`];
    // Room-wide emits go to `members` (fanout/rollEmits.ts): only the presence channel carries room events.
    if (init.channel.kind === 'presence-room') rooms.push('members', pusherRooms.presence, pusherRooms.user(init.user.id));
    this.rooms = new Set(rooms);
  }

  get ended(): boolean {
    return this.state === 'ended';
  }

  /** Never throws: it runs inside the adapter's delivery to every socket of the namespace (namespaceMembers.ts). */
  deliver(event: string, payload: unknown): void {
    if (this.state === 'ended') return;
    if (this.state === 'pending') this.queue.push([event, payload]);
    else this.sayGuarded(event, payload);
  }

  private sayGuarded(event: string, payload: unknown): void {
    try {
      this.say(event, payload);
    } catch (err) {
      this.onError?.(err, event);
    }
  }

  evict(): void {
    if (this.state !== 'ended') this.onEvict(this);
  }

  /** Send `subscription_succeeded` (with the presence hash of the members online), then what waited. */
  succeed(members?: Map<string, PresentedParticipant>): void {
    if (this.state !== 'pending') return;
    let data: unknown = {};
    if (members) {
      this.known = new Set(members.keys());
      data = { presence: { ids: [...members.keys()], hash: Object.fromEntries(members), count: members.size } };
    }
    this.sink.send(encodeFrame('pusher_internal:subscription_succeeded', data, this.channel.name));
    this.state = 'live';
    const waiting = this.queue;
    this.queue = [];
    for (const [event, payload] of waiting) this.sayGuarded(event, payload);
  }

  end(): void {
    this.state = 'ended';
    this.queue = [];
  }

  private say(event: string, payload: unknown): void {
    const channel = this.channel.name;
    if (event === CLIENT_RELAY_EVENT) {
      const relayed = relayedClientEvent(payload);
      if (!relayed || relayed.channel !== channel) return;
      this.sink.send(encodeFrame(relayed.event, relayed.payload, channel, this.channel.kind === 'presence-room' ? relayed.userUuid : undefined));
      return;
    }
    // Room events travel on the presence channel only, dice box events on the user's channel only:
    // the SDK binds each name on all three channels, so anything sent on two arrives twice.
    if (this.channel.kind === 'private-room') return;
    if (this.channel.kind === 'presence-room' && (event === RoomEvents.ParticipantConnect || event === RoomEvents.ParticipantDisconnect)) {
      this.sayMember(event, (payload as { data?: PresentedParticipant } | undefined)?.data);
      return;
    }
    if (!APP_EVENTS.has(event)) return;
    const userLevel = event.startsWith('DiceBox');
    if (userLevel !== (this.channel.kind === 'private-user')) return;
    this.sink.send(appEventFrame(event, payload, channel));
  }

  /** member_added on a user's first connection anywhere, member_removed on its last: each once, never about the subscriber itself. */
  private sayMember(event: string, participant: PresentedParticipant | undefined): void {
    const uuid = isRecord(participant) && isRecord(participant.user) ? participant.user.uuid : undefined;
    if (typeof uuid !== 'string' || !uuid || uuid === this.user.uuid) return;
    if (event === RoomEvents.ParticipantConnect) {
      if (this.known.has(uuid)) return;
      this.known.add(uuid);
      this.sink.send(encodeFrame('pusher_internal:member_added', { user_id: uuid, user_info: participant }, this.channel.name));
    } else {
      if (!this.known.delete(uuid)) return;
      this.sink.send(encodeFrame('pusher_internal:member_removed', { user_id: uuid }, this.channel.name));
    }
  }
}

/** A relayed client event as the adapter handed it over, or null when it is not one (it crossed Redis). */
function relayedClientEvent(payload: unknown): RelayedClientEvent['data'] | null {
  const data = isRecord(payload) ? payload.data : undefined;
  if (!isRecord(data)) return null;
  const { event, channel, userUuid } = data;
  if (typeof event !== 'string' || typeof channel !== 'string' || typeof userUuid !== 'string') return null;
  return { event, channel, userUuid, payload: data.payload };
}
