import calculateSlot from 'cluster-key-slot';
import { isCluster, type RedisClient } from '../../lib/redis';

/**
 * What ioredis 5.11 keeps of a Cluster's sharded subscribers (ClusterSubscriberGroup, created by
 * `shardedSubscribers: true`): one subscriber connection per master, and the slot map they follow.
 * Internal to ioredis: read here only, and test/faults/clusterFaults.test.ts fails if it changes shape
 * (no room would be resynced after a failover).
 */
interface SubscriberGroup {
  shardedSubscribers: Map<string, { subscriberStatus?: string }>;
  clusterSlots: string[][];
}

function groupOf(sub: RedisClient): SubscriberGroup | null {
  const group = (sub as unknown as { shardedSubscribers?: Partial<SubscriberGroup> }).shardedSubscribers;
  if (!group || !(group.shardedSubscribers instanceof Map) || !Array.isArray(group.clusterSlots)) return null;
  return group as SubscriberGroup;
}

/**
 * Calls `resync(namespaces)` with the live room namespaces whose shard channel is now subscribed over
 * another connection than before: its slot changed owner (a failover, a slot migrated) or the
 * subscriber connection of its master was made again (the old one ended). Events published between
 * the old subscription's end and the new one's start reached no socket of this instance, and the
 * sockets' seqs do not show it; once the new subscription delivers, a client's seq would be past
 * them and `since_seq` could not bring them back. ioredis emits `subscribersReady` right after it
 * sent the new SSUBSCRIBEs, before any of their messages can be read: the sockets resynced then
 * reconnect with the seq they had before the gap and replay it from the room's log.
 *
 * On one Redis server (no sharded subscriber group) this does nothing: the subscriber's `ready`
 * resyncs every room (realtime/index.ts). Answers the stop function.
 */
export function watchShardSubscriptions(
  sub: RedisClient,
  channelOf: (namespace: string) => string,
  namespaces: () => Iterable<string>,
  resync: (namespaces: string[]) => void,
): () => void {
  if (!isCluster(sub)) return () => undefined;
  let last = snapshot(groupOf(sub));
  /** Per room: the connection its channel was last heard on (null: none was connected then). */
  const carriers = new Map<string, object | null>();
  const onReady = () => {
    const group = groupOf(sub);
    if (!group) return;
    const now = snapshot(group);
    const moved: string[] = [];
    const live = new Set(namespaces());
    for (const namespace of live) {
      const slot = calculateSlot(channelOf(namespace));
      // A room first seen now subscribed through what served its slot at the previous map (connected
      // since, when it was still connecting: ioredis starts a master's subscriber at its first channel).
      const before = carriers.has(namespace) ? carriers.get(namespace)! : (last.anySubscriberOf(slot) ?? null);
      const current = now.subscriberOf(slot);
      if (current === undefined) {
        // Not connected (its master is down and not yet replaced): resynced once a connection carries it.
        carriers.set(namespace, before);
        continue;
      }
      if (before !== current) moved.push(namespace);
      carriers.set(namespace, current);
    }
    for (const namespace of carriers.keys()) if (!live.has(namespace)) carriers.delete(namespace);
    last = now;
    if (moved.length) resync(moved);
  };
  sub.on('subscribersReady', onReady);
  return () => sub.off('subscribersReady', onReady);
}

function snapshot(group: SubscriberGroup | null) {
  const owners = group ? group.clusterSlots.map((nodes) => nodes?.[0]) : [];
  const subscribers = new Map(group?.shardedSubscribers ?? []);
  const of = (slot: number) => {
    const owner = owners[slot];
    return owner === undefined ? undefined : subscribers.get(owner);
  };
  return {
    /** The connection the slot's subscriptions go through at this moment, connected or not yet. */
    anySubscriberOf: (slot: number): object | undefined => of(slot),
    /** The same, when it is connected (a subscriber made for a master that is down carries nothing). */
    subscriberOf: (slot: number): object | undefined => {
      const subscriber = of(slot);
      return subscriber?.subscriberStatus === 'connected' ? subscriber : undefined;
    },
  };
}
