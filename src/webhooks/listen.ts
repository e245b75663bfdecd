import { subscribe, type DomainEvent } from '../events/bus';
import { eventIdsOf, onRecordInTransaction, onSequenced, rollCreatedEventId } from '../events/record';
import type { Logger } from '../logger';
import { gateOutboxRelease } from '../outbox/sweeper';
import { readOutbox } from '../outbox/store';
import { loadRolls } from '../rolls/store/load';
import { ROLL_CREATED } from '../rolls/store/write';
import { anyRecorded, dueOf, noteRecorded, noteRecording, recordEventIn, takeNumbered } from './record';
import { enqueueEvent, setSeq } from './store/deliveries';
import { wakeDeliveries } from './worker';

/** Recordings under way (any event), for webhookRecordingsSettled(). */
const inFlight = new Set<Promise<unknown>>();

/** Resolves once the events heard so far are recorded (tests that count statements, shutdown). */
export async function webhookRecordingsSettled(): Promise<void> {
  while (inFlight.size) await Promise.allSettled([...inFlight]);
}

/**
 * Committed events and their seqs (docs/webhooks.md, "Never lost"):
 * - a roll made in a room has its outbox row (src/outbox), written in the roll's own transaction; that
 *   row is not deleted before the roll's deliveries are recorded (gateOutboxRelease): recorded by this
 *   listener right after the commit, or, when the instance died first, from the row itself when another
 *   instance's sweep announces it. A process killed at any moment loses no roll;
 * - every other event was recorded in its change's transaction (record.ts): here the worker is told;
 * - the seq the realtime layer gives each event's block is written to its deliveries (setSeq), which
 *   waited for it (record.ts SEQ_WAIT_MS).
 * Answers the undo.
 */
export function listenForWebhookEvents(logger: Logger): () => void {
  /** Recordings of rolls with an outbox row, in flight, by outbox id: the gate waits for them. */
  const recording = new Map<number, Promise<void>>();

  const rollCreated = async (rollId: number, roomId: number | null, rollerId?: number) => {
    const userId = rollerId ?? (await loadRolls([rollId]))[0]?.userId;
    if (userId === undefined) return;
    const eventId = rollCreatedEventId(rollId);
    const now = Date.now();
    if (!(await enqueueEvent({ eventId, type: 'roll.created', payload: { rollId }, audience: { roomId, rollerId: userId } }, now, dueOf(roomId !== null, now)))) return;
    noteRecorded([eventId], now);
    wakeDeliveries();
  };

  const listener = async (event: DomainEvent): Promise<void> => {
    if (event.type === 'roll.created' && event.outboxId) {
      const loaded = event.loaded as { userId?: number } | undefined;
      const done = rollCreated(event.rollId, event.roomId, loaded?.userId ?? event.userId);
      noteRecording(rollCreatedEventId(event.rollId), done);
      const id = event.outboxId;
      recording.set(id, done);
      // The gate deletes the entry; one whose row is never released must not stay forever.
      setTimeout(() => recording.delete(id), 60_000).unref();
      return done;
    }
    // Recorded in its transaction (record.ts): deliveries wait for the worker, which looks now.
    if (anyRecorded(eventIdsOf(event))) wakeDeliveries();
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

  const unrecord = onRecordInTransaction(recordEventIn);
  const unsequenced = onSequenced((ids, seq) => {
    const done = takeNumbered(ids)
      .then(async (numbered) => {
        if (numbered.length && (await setSeq(numbered, seq))) wakeDeliveries();
      })
      .catch((err: Error) => logger.warn({ err: err.message }, "webhooks: could not write an event's seq; its deliveries go without it after a wait"));
    inFlight.add(done);
    void done.finally(() => inFlight.delete(done));
  });

  return () => {
    unsubscribe();
    ungate();
    unrecord();
    unsequenced();
  };
}
