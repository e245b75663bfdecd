import { subscribe, type DomainEvent } from '../events/bus';
import type { Logger } from '../logger';
import { loadRolls } from '../rolls/store/load';
import { recordWithEveryRoll } from '../rolls/store/write';
import { newEventId } from './manage';
import { enqueueEvent, enqueueEventIn, rollCreatedDeliveriesCte, type NewEvent } from './store/deliveries';
import { wakeDeliveries } from './worker';

/** Recordings under way (any event), for webhookRecordingsSettled(). */
const inFlight = new Set<Promise<unknown>>();

/** Resolves once the events heard so far are recorded (tests that count statements, shutdown). */
export async function webhookRecordingsSettled(): Promise<void> {
  while (inFlight.size) await Promise.allSettled([...inFlight]);
}

/**
 * Domain events become rows of the delivery queue (docs/webhooks.md, "Never lost"):
 * - a roll's creation records its deliveries in the roll's own statement or transaction
 *   (recordWithEveryRoll, src/rolls/store/write.ts): a process killed at any moment loses no roll, and
 *   the roll pays no round trip for them; after the commit the worker is woken;
 * - the other events (a roll's change, a table cleared, a room's or a participant's change) are recorded right after their
 *   commit: an instance killed in that moment loses that one event's webhooks.
 * Answers the undo.
 */
export function listenForWebhookEvents(logger: Logger): () => void {
  const record = async (events: NewEvent[]) => {
    let recorded = 0;
    for (const event of events) recorded += await enqueueEvent(event);
    if (recorded) wakeDeliveries();
  };

  const unrecord = recordWithEveryRoll({
    cte: (params, rollAlias, roll) => rollCreatedDeliveriesCte(params, rollAlias, newEventId(), roll.userId, roll.roomId ?? null, Date.now()),
    write: (query, roll) =>
      enqueueEventIn(query, { eventId: newEventId(), type: 'roll.created', payload: { rollId: roll.id }, audience: { roomId: roll.roomId ?? null, rollerId: roll.userId } }),
  });

  const listener = async (event: DomainEvent): Promise<void> => {
    switch (event.type) {
      case 'roll.created':
        // Recorded with the roll: the worker is woken only when the roll made deliveries.
        if (event.recordedWith) wakeDeliveries();
        return;
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

  return () => {
    unsubscribe();
    unrecord();
  };
}
