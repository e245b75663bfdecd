import type { Namespace } from 'socket.io';
import { livePayload } from '../transport/preSerialized';
import { adapterInternals, type AdapterInternals, type AdapterSocketShape, type BroadcastOptions } from '../socketioInternals';

/**
 * Pusher subscriptions as members of Socket.IO namespaces, so that they hear exactly what the
 * namespace's sockets hear, through the same adapter, in the same order, from the same per-viewer
 * emits (fanout/eventsToEmits.ts, fanout/rollEmits.ts): nothing is presented a second time for Pusher, and nothing reaches
 * a subscription that the same user's socket would not get.
 *
 * A member joins the adapter's rooms (`user:{id}`, `members`, ...) under a sid of its own: the Redis
 * adapter then keeps receiving the channels it is in (it drops messages for rooms it does not hold),
 * and computes `except` over it like over any socket. Every adapter (in memory, Redis, sharded)
 * delivers a broadcast through `this.apply(opts, callback)` after matching rooms; `apply` is wrapped
 * here to hand the members that match a stand-in for a socket, whose `notifyOutgoingListeners(packet)`
 * (called with the decoded packet before any socket write) delivers the event to the subscription,
 * and whose `disconnect()` (disconnectSockets: evictions, a deleted room) ends it.
 */
export interface NamespaceMember {
  /** Unique in the namespace; never a Socket.IO socket id. */
  readonly sid: string;
  readonly rooms: ReadonlySet<string>;
  /** A Socket.IO event reached this member: `payload` is shared with every other receiver, do not change it. */
  deliver(event: string, payload: unknown, volatile: boolean): void;
  /** The namespace's sockets matching this member are being disconnected (evicted). */
  evict(): void;
}

interface Packet {
  data?: unknown[];
}
type PatchedAdapter = AdapterInternals<{ [MEMBERS]?: Map<string, NamespaceMember> }>;

const MEMBERS = Symbol('pusher members');

/** What `apply` callers may touch on a socket: the broadcast path, disconnects, and fetchSockets' fields. */
function standIn(member: NamespaceMember, flags: BroadcastOptions['flags']): AdapterSocketShape {
  return {
    id: member.sid,
    handshake: {},
    data: {},
    rooms: member.rooms,
    connected: true,
    notifyOutgoingListeners(packet: Packet) {
      const [event, payload] = packet.data ?? [];
      if (typeof event === 'string') member.deliver(event, livePayload(payload), Boolean(flags?.volatile));
    },
    client: { writeToEngine() {} },
    disconnect() {
      member.evict();
    },
    join() {},
    leave() {},
  };
}

function membersOf(nsp: Namespace): Map<string, NamespaceMember> {
  const adapter: PatchedAdapter = adapterInternals(nsp);
  let members = adapter[MEMBERS];
  if (members) return members;
  members = new Map();
  adapter[MEMBERS] = members;
  const all = members;
  const original = adapter.apply.bind(adapter);
  adapter.apply = (opts, callback) => {
    original(opts, callback);
    if (!all.size) return;
    for (const member of [...all.values()]) {
      if (opts.rooms.size && !someIn(member.rooms, opts.rooms)) continue;
      if (opts.except?.size && someIn(member.rooms, opts.except)) continue;
      callback(standIn(member, opts.flags));
    }
  };
  return members;
}

function someIn(rooms: ReadonlySet<string>, wanted: ReadonlySet<string>): boolean {
  for (const room of rooms) if (wanted.has(room)) return true;
  return false;
}

export function addMember(nsp: Namespace, member: NamespaceMember): void {
  membersOf(nsp).set(member.sid, member);
  adapterInternals(nsp).addAll(member.sid, new Set(member.rooms));
}

export function removeMember(nsp: Namespace, sid: string): void {
  const members = adapterInternals<PatchedAdapter>(nsp)[MEMBERS];
  if (!members?.delete(sid)) return;
  adapterInternals(nsp).delAll(sid);
}

/** How many Pusher members a namespace holds (connection/namespaces.ts keeps a namespace that has some). */
export function memberCount(nsp: Namespace): number {
  return adapterInternals<PatchedAdapter>(nsp)[MEMBERS]?.size ?? 0;
}
