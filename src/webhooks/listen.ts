import { createHash } from 'node:crypto';
import { subscribe, type DomainEvent } from '../events/bus';
import type { Logger } from '../logger';
import { gateOutboxRelease } from '../outbox/sweeper';
import { readOutbox } from '../outbox/store';
import { loadRolls } from '../rolls/store/load';
import { ROLL_CREATED } from '../rolls/store/write';
import { newEventId } from './manage';
import { enqueueEvent, type NewEvent } from './store/deliveries';
import { wakeDeliveries } from './worker';

/** Recordings under way (any event), for webhookRecordingsSettled(). */
const inFlight = new Set<Promise<unknown>>();

/** Resolves once the events heard so far are recorded (tests that count statements, shutdown). */
export async function webhookRecordingsSettled(): Promise<void> {
  while (inFlight.size) await Promise.allSettled([...inFlight]);
}

/**
 * A roll's creation has one message id whoever records it (its command, or the outbox's net after a
 * crash): the unique (webhook, event) index makes the second recording a no-op.
 */
export function rollCreatedEventId(rollId: number): string {
  return `msg_${createHash('sha256').update(`roll.created:${rollId}`).digest('base64url').slice(0, 22)}`;
}

/**
 * Committed domain events become rows of the delivery queue (docs/webhooks.md, "Never lost"):
 * - a roll made in a room has its outbox row (src/outbox), written in the roll's own transaction; that
 *   row is not deleted before the roll's deliveries are recorded (gateOutboxRelease): recorded by this
 *   listener right after the commit, or, when the instance died first, from the row itself when another
 *   instance's sweep announces it. A process killed at any moment loses no roll;
 * - the other events (a roll's change, a table cleared, a room's or a participant's change) are recorded right after their
 *   commit: an instance killed in that moment loses that one event's webhooks.
 * Answers the undo.
 */
export function listenForWebhookEvents(logger: Logger): () => void {
  /** Recordings of rolls with an outbox row, in flight, by outbox id: the gate waits for them. */
  const recording = new Map<number, Promise<void>>();

  const record = async (events: NewEvent[]) => {
    let recorded = 0;
    for (const event of events) recorded += await enqueueEvent(event);
    if (recorded) wakeDeliveries();
  };

  const rollCreated = async (rollId: number, roomId: number | null, rollerId?: number) => {
    const userId = rollerId ?? (await loadRolls([rollId]))[0]?.userId;
    if (userId === undefined) return;
    await record([{ eventId: rollCreatedEventId(rollId), type: 'roll.created', payload: { rollId }, audience: { roomId, rollerId: userId } }]);
  };

  const listener = async (event: DomainEvent): Promise<void> => {
    switch (event.type) {
      case 'roll.created': {
        const loaded = event.loaded as { userId?: number } | undefined;
        const done = rollCreated(event.rollId, event.roomId, loaded?.userId);
        if (event.outboxId) {
          const id = event.outboxId;
          recording.set(id, done);
          // The gate deletes the entry; one whose row is never released must not stay forever.
          setTimeout(() => recording.delete(id), 60_000).unref();
        }
        return done;
      }
      case 'roll.updated': {
        const rolls = await loadRolls(event.rollIds);
        return record(rolls.map((roll) => ({ eventId: newEventId(), type: 'roll.updated', payload: { rollId: roll.id }, audience: { roomId: roll.roomId ?? null, rollerId: roll.userId } })));
      }
      case 'roll.deleted':
        return record(event.rolls.map(({ uuid, audience }) => ({ eventId: newEventId(), type: 'roll.deleted', payload: { uuid, audience, roomId: event.roomId }, audience: { roomId: event.roomId } })));
      case 'room.updated':
      case 'room.deleted': {
        const events: NewEvent[] = [{ eventId: newEventId(), type: event.type, payload: { roomId: event.roomId }, audience: { roomId: event.roomId } }];
        if (event.type === 'room.updated' && event.participant) {
          const { id, userId, change } = event.participant;
          events.push({ eventId: newEventId(), type: `participant.${change}`, payload: { roomId: event.roomId, participantId: id, userId }, audience: { roomId: event.roomId } });
        }
        return record(events);
      }
      default:
        return;
    }
  };
  const unsubscribe = subscribe((event) => {
    const done = listener(event).catch((err: Error) => logger.error({ err: err.message, event: event.type }, 'webhooks: could not record an event for delivery'));
    inFlight.add(done);
    void done.finally(() => inFlight.delete(done));
    return done;
  });

  const ungate = gateOutboxRelease(async (ids) => {
    const missing: number[] = [];
    await Promise.all(
      ids.map(async (id) => {
        const done = recording.get(id);
        recording.delete(id);
        if (!done) return void missing.push(id);
        // The listener logs its own failure; the row is read again below.
        await done.catch(() => missing.push(id));
      }),
    );
    if (!missing.length) return;
    // Rows this process did not record (announced by its sweep for an instance that died): from the row itself.
    for (const entry of await readOutbox(missing)) {
      if (entry.event !== ROLL_CREATED) continue;
      const { rollId, roomId } = entry.payload;
      if (!Number.isSafeInteger(rollId)) continue;
      await rollCreated(rollId as number, Number.isSafeInteger(roomId) ? (roomId as number) : null);
    }
  });

  return () => {
    unsubscribe();
    ungate();
  };
}
