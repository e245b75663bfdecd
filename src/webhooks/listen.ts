import { perApp } from '../lib/appContext';
import { subscribe, type DomainEvent } from '../events/bus';
import { eventIdsOf, onRecordInTransaction, onSequenced, rollCreatedEventId } from '../events/record';
import type { Logger } from '../logger';
import { recordWithEveryRoll } from '../rolls/store/write';
import { anyRecorded, dueOf, noteRecorded, recordEventIn, takeNumbered } from './record';
import { enqueueIn, rollCreatedDeliveriesCte, setSeq } from './store/deliveries';
import { wakeDeliveries } from './worker';

/** Recordings under way (any event), for webhookRecordingsSettled(). */
const inFlight = perApp(() => new Set<Promise<unknown>>());

/** Resolves once the events heard so far are recorded (tests that count statements, shutdown). */
export async function webhookRecordingsSettled(): Promise<void> {
  while (inFlight().size) await Promise.allSettled([...inFlight()]);
}

/**
 * Committed events and their seqs (docs/webhooks.md, "Never lost"):
 * - a roll's creation records its deliveries in the roll's own statement or transaction
 *   (recordWithEveryRoll, src/rolls/store/write.ts): a process killed at any moment loses no roll, and
 *   the roll pays no round trip for them;
 * - every other event is recorded in its change's transaction (record.ts);
 * - here, after the commit, the worker is told, and the seq the realtime layer gives each event's
 *   block is written to its deliveries (setSeq), which waited for it (record.ts SEQ_WAIT_MS).
 * Answers the undo.
 */
export function listenForWebhookEvents(logger: Logger): () => void {
  const unrecordRolls = recordWithEveryRoll({
    cte: (params, rollAlias, roll) => {
      const now = Date.now();
      return rollCreatedDeliveriesCte(params, rollAlias, roll.userId, roll.roomId ?? null, now, dueOf(roll.roomId != null, now));
    },
    write: (query, roll) => {
      const now = Date.now();
      const event = {
        eventId: rollCreatedEventId(roll.id),
        type: 'roll.created',
        payload: { rollId: roll.id },
        audience: { roomId: roll.roomId ?? null, rollerId: roll.userId },
      };
      return enqueueIn(query, event, now, dueOf(roll.roomId != null, now));
    },
  });

  const listener = (event: DomainEvent): void => {
    if (event.type === 'roll.created') {
      // Recorded with the roll: remembered for its seq, and the worker woken, only when it made deliveries.
      if (!event.recordedWith) return;
      noteRecorded([rollCreatedEventId(event.rollId)]);
      return wakeDeliveries();
    }
    // Recorded in its transaction (record.ts): deliveries wait for the worker, which looks now.
    if (anyRecorded(eventIdsOf(event))) wakeDeliveries();
  };
  const unsubscribe = subscribe((event) => {
    try {
      listener(event);
    } catch (err) {
      logger.error({ err: (err as Error).message, event: event.type }, 'webhooks: could not note an event for delivery');
    }
  });

  const unrecord = onRecordInTransaction(recordEventIn);
  const unsequenced = onSequenced((ids, seq) => {
    const numbered = takeNumbered(ids);
    if (!numbered.length) return;
    const done = setSeq(numbered, seq)
      .then((written) => {
        if (written) wakeDeliveries();
      })
      .catch((err: Error) => logger.warn({ err: err.message }, "webhooks: could not write an event's seq; its deliveries go without it after a wait"));
    inFlight().add(done);
    void done.finally(() => inFlight().delete(done));
  });

  return () => {
    unsubscribe();
    unrecordRolls();
    unrecord();
    unsequenced();
  };
}
