import type { Namespace, Server, Socket } from 'socket.io';
import type { Broadcaster, Target } from '../realtime/transport/broadcaster';
import { MOVE_EVENT_NAMES, ROOM_NAMESPACE, RoomEvents, UserEvents } from '../realtime/names';
import type { Metrics } from './index';
import { namespacesOf } from '../realtime/socketioInternals';

/** The only event names used as label values; anything else is counted as "other". */
const EVENT_NAMES: readonly string[] = [...Object.values(RoomEvents), ...Object.values(UserEvents), ...MOVE_EVENT_NAMES, 'other'];

/** One counter child per known event name, made once: counting an event allocates nothing of ours. */
function byEventName(counter: Metrics['realtimePublished']): (event: unknown) => void {
  const children = new Map(EVENT_NAMES.map((name) => [name, counter.labels(name)]));
  const other = children.get('other')!;
  return (event) => (children.get(event as string) ?? other).inc();
}

/**
 * The broadcaster, counting what it emits (every realtime event of a domain change goes through it:
 * realtime/fanout/eventsToEmits.ts and rollEmits.ts, and the participants' connect and disconnect in
 * realtime/connection/welcome.ts and namespaces.ts).
 */
export function countingBroadcaster(inner: Broadcaster, metrics: Metrics | null | undefined): Broadcaster {
  if (!metrics) return inner;
  const count = byEventName(metrics.realtimePublished);
  return {
    emit(target: Target, event: string, payload: unknown) {
      count(event);
      inner.emit(target, event, payload);
    },
    disconnect: (target) => inner.disconnect(target),
    atomically: (fn, replay, onSeq) => inner.atomically(fn, replay, onSeq),
    sequence: inner.sequence,
    whenSent: (namespace) => inner.whenSent(namespace),
  };
}

/** What RedisBroadcaster reports about each PUBLISH it sends (realtime/transport/redisBroadcaster.ts). */
export interface PublishObserver {
  /** `seconds` from sending to Redis's answer; `ok` false when Redis did not acknowledge it. */
  published(seconds: number, ok: boolean): void;
  /** The numbering script refused a block as already sent by this instance. */
  refused?(): void;
}

export function publishObserver(metrics: Metrics | null | undefined): PublishObserver | undefined {
  if (!metrics) return undefined;
  return {
    published(seconds, ok) {
      metrics.redisPublishDuration.observe(seconds);
      if (!ok) metrics.redisPublishFailures.inc();
    },
    refused() {
      metrics.realtimeBlocksRefused.inc();
    },
  };
}

/**
 * Events reaching this instance's sockets, and its sockets and live rooms read on each scrape.
 * Deliveries are counted with Socket.IO's own `onAnyOutgoing`, which the adapter calls for every
 * socket a broadcast reaches (on every instance, whoever published) and `socket.emit()` for a
 * direct emit (the replay of missed rolls).
 */
export function observeSockets(metrics: Metrics, io: Server): void {
  const count = byEventName(metrics.realtimeDelivered);
  // `this` is the socket; the arguments are the packet's data: the event name first.
  const onOutgoing = (event: unknown) => count(event);
  const watch = (nsp: Namespace) => nsp.on('connection', (socket: Socket) => socket.onAnyOutgoing(onOutgoing));
  for (const nsp of namespacesOf(io).values()) watch(nsp);
  // Room namespaces are made on their first connection: this fires before that connection does.
  io.on('new_namespace', watch);

  metrics.gauge('dice_realtime_connections', 'Socket.IO connections to this instance (one per client, whatever namespaces it opened)', [], (set) => {
    set({}, io.engine.clientsCount);
  });
  metrics.gauge('dice_realtime_sockets', 'Sockets connected to this instance, by namespace kind', ['namespace'] as const, (set) => {
    let rooms = 0;
    for (const [name, nsp] of namespacesOf(io)) if (ROOM_NAMESPACE.test(name)) rooms += nsp.sockets.size;
    set({ namespace: 'room' }, rooms);
    set({ namespace: 'user' }, namespacesOf(io).get('/user')?.sockets.size ?? 0);
  });
  metrics.gauge('dice_realtime_rooms', 'Rooms with at least one socket connected to this instance', [], (set) => {
    let live = 0;
    for (const [name, nsp] of namespacesOf(io)) if (nsp.sockets.size > 0 && ROOM_NAMESPACE.test(name)) live++;
    set({}, live);
  });
}
