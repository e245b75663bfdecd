import type { Logger } from '../../logger';
import { readRoomBySlug } from '../../rooms/store/read';
import { presentRoom, roomMembers, roomViewerClass } from '../../rooms/present';
import type { DomainEvent } from '../../events/bus';
import { eventIdOf, eventIdsOf, rollCreatedEventId, sequenced, sequencedHeard } from '../../events/record';
import type { Broadcaster } from '../transport/broadcaster';
import { RoomEvents, roomNamespace, USER_NAMESPACE, UserEvents, userChannel } from '../names';
import { findThemeById } from '../../themes/store/themes';
import type { RollRecord as Roll } from '../../rolls/store/records';
import { presentOneTheme } from '../../themes/present';
import { KeyedThrottle } from './keyedThrottle';
import type { ReplayEntry } from '../transport/sequenceLog';
import { releaseOutbox } from '../../outbox/sweeper';

/** The roll side of the fan-out, filled in by rollEmits.ts (kept apart: it follows the rolls feature). */
export interface RollFeed {
  /**
   * Emit RollCreateEvent / RollUpdateEvent for these rolls of room `slug`, presented per viewer.
   * `loaded`: rolls this instance's commands already assembled (roll.created), by id: not read again.
   * `onSeq`: told each roll's seq once its block has one.
   */
  emitRolls(
    event: 'RollCreateEvent' | 'RollUpdateEvent',
    rollIds: number[],
    slug: string,
    loaded?: ReadonlyMap<number, Roll>,
    onSeq?: (rollId: number, seq: number) => void,
  ): Promise<void>;
}

export interface FanoutDeps {
  logger: Logger;
  broadcaster: Broadcaster;
  rolls?: RollFeed;
  /** Origin for asset URLs in presented themes (PUBLIC_URL); root-relative without it. */
  baseUrl?: string;
  /** room.updated of one room within this window after a RoomUpdateEvent fold into one (ROOM_UPDATE_WINDOW_MS). */
  roomUpdateWindowMs?: number;
}

/**
 * A RoomUpdateEvent presents the whole room (every participant) to every member: a burst of joins
 * to a room of n would cost n events of O(n) bytes to each of n members. So the room.updated of one
 * room are throttled: the first goes at once; those within this window after it fold into one,
 * emitted when the window closes, which presents the room as it is then (nothing is lost, the
 * intermediate states are skipped).
 */
export const ROOM_UPDATE_WINDOW_MS = 100;

/**
 * Emit to every viewer what `present(viewer)` gives it, presenting once per viewer class: viewers
 * that `classOf` puts in one class get one presentation (that of the class's first viewer) and one
 * emit, addressed to their users' channels. The adapter carries each emit to every instance, so
 * nothing is presented per socket or per instance, and no socket gets what its user may not see.
 * `classOf` answers undefined for a viewer who must get nothing.
 */
export function emitPerViewer(
  broadcaster: Broadcaster,
  namespace: string,
  event: string,
  viewers: Iterable<number>,
  classOf: (viewerId: number) => string | undefined,
  present: (viewerId: number) => unknown,
  replay?: ReplayEntry,
  onSeq?: (seq: number) => void,
) {
  const classes = new Map<string, { data: unknown; channels: string[] }>();
  for (const viewer of viewers) {
    const key = classOf(viewer);
    if (key === undefined) continue;
    let group = classes.get(key);
    if (!group) classes.set(key, (group = { data: present(viewer), channels: [] }));
    group.channels.push(userChannel(viewer));
  }
  broadcaster.atomically(
    () => {
      for (const { data, channels } of classes.values()) broadcaster.emit({ namespace, to: channels }, event, { data });
    },
    replay,
    onSeq,
  );
}

/**
 * Turns committed domain events into Socket.IO emits. Events of one room are handled one batch at a
 * time, in the order this instance heard them, so a RollUpdateEvent never overtakes its
 * RollCreateEvent; a burst of rolls queued meanwhile is loaded and emitted as one batch (a fixed
 * number of queries), so the queue does not fall behind.
 */
export class Fanout {
  private queues = new Map<string, { pending: DomainEvent[]; done: Promise<void> }>();
  private readonly roomUpdates: KeyedThrottle<DomainEvent>;
  /** Outbox rows of published rolls waiting for Redis to confirm the events before they are released. */
  private readonly releases = new Set<Promise<void>>();

  constructor(private readonly deps: FanoutDeps) {
    this.roomUpdates = new KeyedThrottle(deps.roomUpdateWindowMs ?? ROOM_UPDATE_WINDOW_MS, (event) => this.enqueue(event));
  }

  /**
   * Ids of the room events (record.ts eventIdsOf) heard and not emitted yet, by room: the next
   * RoomUpdateEvent (or RoomDeleteEvent) of the room presents them all, folded or not, and its seq is theirs.
   */
  private readonly roomEventIds = new Map<string, string[]>();

  /** The bus listener. */
  readonly listener = (event: DomainEvent): void => {
    if ((event.type === 'room.updated' || event.type === 'room.deleted') && event.key && sequencedHeard()) {
      const ids = this.roomEventIds.get(event.slug);
      if (ids) ids.push(...eventIdsOf(event));
      else this.roomEventIds.set(event.slug, eventIdsOf(event));
    }
    if (event.type === 'room.updated') this.roomUpdates.push(event.slug, event);
    else this.enqueue(event);
  };

  private enqueue(event: DomainEvent): void {
    const key = 'slug' in event && event.slug ? `room:${event.slug}` : 'userId' in event ? `user:${event.userId}` : null;
    if (!key) return;
    const queue = this.queues.get(key);
    if (queue) {
      // A room.updated still waiting its turn will load the room when it runs, after this change too.
      if (event.type === 'room.updated' && queue.pending.some((e) => e.type === 'room.updated')) return;
      queue.pending.push(event);
      return;
    }
    const fresh = { pending: [event], done: Promise.resolve() };
    this.queues.set(key, fresh);
    fresh.done = this.work(key, fresh);
  }

  private async work(key: string, queue: { pending: DomainEvent[] }) {
    // Let the events published with this one (by the same callback and the promise jobs it set off)
    // join the first batch. process.nextTick, not setImmediate: setImmediate waits for every other I/O
    // callback of this turn of the loop, one of which can be a whole room's broadcast of the previous
    // roll (500 socket writes, several ms), and the roll would wait for it (bench:fanout's pipeline).
    await new Promise((resolve) => process.nextTick(resolve));
    while (queue.pending.length) {
      const batch = queue.pending.splice(0);
      for (const group of coalesce(batch)) {
        try {
          await this.handle(group);
        } catch (err) {
          this.deps.logger.error({ err, event: group.type }, 'realtime fan-out failed');
        }
      }
    }
    this.queues.delete(key);
  }

  /** Resolves when every event heard so far has been emitted (tests, shutdown). */
  async drain() {
    this.roomUpdates.flush();
    while (this.queues.size) await Promise.all([...this.queues.values()].map((q) => q.done));
    await Promise.all([...this.releases]);
  }

  private async handle(event: Handled) {
    const { broadcaster } = this.deps;
    switch (event.type) {
      case 'room.updated':
      case 'room.deleted': {
        // Taken before the read: the room read presents every change whose event was heard by now.
        const ids = this.roomEventIds.get(event.slug);
        this.roomEventIds.delete(event.slug);
        const room = await readRoomBySlug(event.slug, { includeDeleted: event.type === 'room.deleted' });
        if (!room) return;
        const namespace = roomNamespace(event.slug);
        const name = event.type === 'room.updated' ? RoomEvents.RoomUpdate : RoomEvents.RoomDelete;
        emitPerViewer(
          broadcaster,
          namespace,
          name,
          roomMembers(room),
          roomViewerClass(room),
          (viewer) => presentRoom(room, viewer),
          undefined,
          ids && ((seq) => sequenced(ids, seq)),
        );
        if (event.type === 'room.deleted') broadcaster.disconnect({ namespace });
        return;
      }
      case 'room.access_revoked': {
        const namespace = roomNamespace(event.slug);
        if (event.userIds?.length) broadcaster.disconnect({ namespace, to: event.userIds.map(userChannel) });
        if (event.allButOwner) {
          const room = await readRoomBySlug(event.slug, { includeDeleted: true });
          if (room) broadcaster.disconnect({ namespace, except: [userChannel(room.userId)] });
        }
        return;
      }
      case 'rolls.created':
      case 'roll.updated': {
        if (!event.slug || !this.deps.rolls) return;
        if (event.type === 'rolls.created') {
          const onSeq = sequencedHeard() ? (rollId: number, seq: number) => sequenced([rollCreatedEventId(rollId)], seq) : undefined;
          await this.deps.rolls.emitRolls(RoomEvents.RollCreate, event.rollIds, event.slug, event.loaded, onSeq);
          // Published (or the roll is gone): their outbox rows go, once Redis has the events.
          const ids = event.outboxIds;
          if (ids.length) {
            const released: Promise<void> = broadcaster
              .whenSent(roomNamespace(event.slug))
              .then(
                (sent) => void (sent && releaseOutbox(ids, this.deps.logger)),
                () => undefined,
              )
              .finally(() => this.releases.delete(released));
            this.releases.add(released);
          }
        } else {
          const key = event.key;
          const onSeq = key && sequencedHeard() ? (rollId: number, seq: number) => sequenced([eventIdOf(key, rollId)], seq) : undefined;
          await this.deps.rolls.emitRolls(RoomEvents.RollUpdate, event.rollIds, event.slug, undefined, onSeq);
        }
        return;
      }
      case 'dicebox.created': {
        const theme = await findThemeById(event.themeId);
        if (!theme) return;
        const data = await presentOneTheme(theme, { baseUrl: this.deps.baseUrl ?? '' });
        broadcaster.emit({ namespace: USER_NAMESPACE, to: [userChannel(event.userId)] }, UserEvents.DiceBoxCreate, { data });
        return;
      }
      case 'dicebox.deleted': {
        // The theme is gone: its id (the slug) says which one.
        broadcaster.emit({ namespace: USER_NAMESPACE, to: [userChannel(event.userId)] }, UserEvents.DiceBoxDelete, { data: { id: event.themeSlug } });
        return;
      }
      case 'roll.deleted': {
        // The rolls are gone: only their uuids travel, each to whoever could see it (a whisper's audience).
        const namespace = roomNamespace(event.slug);
        broadcaster.atomically(
          () => {
            for (const { uuid, audience } of event.rolls) {
              broadcaster.emit(audience ? { namespace, to: audience.map(userChannel) } : { namespace }, RoomEvents.RollDelete, { data: { uuid } });
            }
            // `at`: the room's sockets hear it now; a participant who joins later was not told (toldOfClear).
          },
          { event: RoomEvents.RollDelete, rolls: event.rolls.map(({ uuid, audience }) => ({ uuid, audience: audience ?? null })), at: Date.now() },
          event.key && sequencedHeard() ? (seq) => sequenced(eventIdsOf(event), seq) : undefined,
        );
        return;
      }
      default:
        return;
    }
  }
}

/** What the fan-out handles: domain events, with runs of roll.created merged into one. */
type Handled =
  | Exclude<DomainEvent, { type: 'roll.created' }>
  | { type: 'rolls.created'; rollIds: number[]; slug: string | null; loaded: Map<number, Roll>; outboxIds: number[] };

/** Merge each run of consecutive roll.created events (one room) into one batch, keeping the order. */
function coalesce(events: DomainEvent[]): Handled[] {
  const out: Handled[] = [];
  for (const event of events) {
    if (event.type !== 'roll.created') {
      out.push(event);
      continue;
    }
    const last = out[out.length - 1];
    const batch =
      last?.type === 'rolls.created'
        ? last
        : { type: 'rolls.created' as const, rollIds: [], slug: event.slug, loaded: new Map<number, Roll>(), outboxIds: [] as number[] };
    if (batch !== last) out.push(batch);
    batch.rollIds.push(event.rollId);
    if (event.outboxId) batch.outboxIds.push(event.outboxId);
    // The rolls command's assembled record (events/bus.ts keeps it opaque).
    if (event.loaded) batch.loaded.set(event.rollId, event.loaded as Roll);
  }
  return out;
}
