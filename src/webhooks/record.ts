import { perApp } from '../lib/appContext';
import type { DomainEvent } from '../events/bus';
import { eventIdOf, roomEventsNumbered, type TxQuery } from '../events/record';
import type { Query } from '../db/sql';
import { enqueueIn, enqueueRollUpdatesIn, enqueueRoomEventsIn, type NewEvent } from './store/deliveries';

/**
 * Events recorded for delivery in the transaction of their change (events/record.ts: the command calls
 * recordInTransaction before its commit), and the seq each gets afterwards (docs/webhooks.md, "Never
 * lost" and "Order and seq"). A roll's creation is written by the roll's own statement instead
 * (listen.ts, recordWithEveryRoll), so the hot path pays no statement for it.
 */

/**
 * How long a room's event waits for the seq the realtime layer gives it before it is sent without one:
 * the number comes a few ms after the commit (the Redis round trip of its block); it never comes when
 * the instance died in between (another then sends the event after this wait) or the block was
 * refused or kept past this while Redis was away.
 */
export const SEQ_WAIT_MS = 5000;

/** Events with deliveries recorded by this process and not numbered yet, by id: until when they are remembered. */
const recorded = perApp(() => new Map<string, number>());

/** Forgotten after this: an event whose seq never came (its block was refused) or that has none (outside rooms). */
const REMEMBERED_MS = 60_000;

/** Events `ids` have deliveries: their seq, when it comes, is written to them. */
export function noteRecorded(ids: Iterable<string>, nowMs = Date.now()): void {
  for (const id of ids) recorded().set(id, nowMs + REMEMBERED_MS);
  if (recorded().size > 10_000) for (const [id, until] of recorded()) if (until < nowMs) recorded().delete(id);
}

/** Whether any of `ids` was recorded with deliveries by this process (and not numbered yet). */
export function anyRecorded(ids: readonly string[]): boolean {
  return ids.some((id) => recorded().has(id));
}

/** Of `ids`, those recorded with deliveries by this process, forgotten here: they take `seq` now. */
export function takeNumbered(ids: readonly string[]): string[] {
  return ids.filter((id) => recorded().delete(id));
}

/** When an event of a room (or not) recorded now may first be sent: a room's waits for its seq while the realtime layer runs here. */
export function dueOf(inRoom: boolean, nowMs: number): number {
  return inRoom && roomEventsNumbered() ? nowMs + SEQ_WAIT_MS : nowMs;
}

/** The in-transaction recorder (events/record.ts): one statement per event it has deliveries for, none read first. */
export async function recordEventIn(tx: TxQuery, event: DomainEvent): Promise<void> {
  const query = tx as Query;
  const now = Date.now();
  const one = async (e: NewEvent, inRoom: boolean) => {
    if (await enqueueIn(query, e, now, dueOf(inRoom, now))) noteRecorded([e.eventId], now);
  };
  switch (event.type) {
    case 'roll.created':
      // Recorded with the roll itself, in its statement (listen.ts, recordWithEveryRoll).
      return;
    case 'roll.updated':
      if (!event.key || !event.rollIds.length) return;
      return noteRecorded(await enqueueRollUpdatesIn(query, eventIdOf(event.key, ''), event.rollIds, now, (inRoom) => dueOf(inRoom, now)), now);
    case 'roll.deleted': {
      if (!event.key) return;
      const items = event.rolls.map(({ uuid, audience }, i) => ({ eventId: eventIdOf(event.key!, i), payload: { uuid, audience, roomId: event.roomId } }));
      return noteRecorded(await enqueueRoomEventsIn(query, 'roll.deleted', event.roomId, items, now, dueOf(true, now)), now);
    }
    case 'room.updated':
    case 'room.deleted': {
      if (!event.key) return;
      await one({ eventId: eventIdOf(event.key), type: event.type, payload: { roomId: event.roomId }, audience: { roomId: event.roomId } }, true);
      if (event.type === 'room.updated' && event.participant) {
        const { id, userId, change } = event.participant;
        await one(
          {
            eventId: eventIdOf(event.key, 'p'),
            type: `participant.${change}`,
            payload: { roomId: event.roomId, participantId: id, userId },
            audience: { roomId: event.roomId },
          },
          true,
        );
      }
      return;
    }
    default:
      return;
  }
}
