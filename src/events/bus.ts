import { perApp } from '../lib/appContext';

/**
 * Domain events: what changed, by id, published by commands only after their transaction commits.
 * The realtime layer listens and turns each into Socket.IO events presented per viewer; other
 * listeners (tests, webhooks later) can subscribe too. Payloads carry ids, not presented data,
 * because every viewer must get its own presentation.
 */
export type DomainEvent =
  /** `participant`: the participant whose arrival, change or departure this is (webhooks' participant.* events). */
  /**
   * `key` (record.ts eventKey): the event was recorded in its change's transaction (recordInTransaction)
   * under ids derived from it; without, nothing recorded it (a room's creation: nobody follows it yet).
   */
  | { type: 'room.updated'; roomId: number; slug: string; participant?: { id: number; userId: number; change: 'joined' | 'updated' | 'left' }; key?: string }
  | { type: 'room.deleted'; roomId: number; slug: string; key?: string }
  /** Someone lost access (removed participant, changed passcode): their sockets must go. */
  | { type: 'room.access_revoked'; roomId: number; slug: string; userIds?: number[]; allButOwner?: boolean }
  /**
   * `loaded`: the roll as its command assembled it for its answer (user, values, whispers with their
   * participants), in-process only, so that this instance's fan-out does not read back what was just
   * written. Opaque here (the bus imports no feature): only the rolls fan-out reads it, as the rolls
   * store's record. Listeners must not change it; the fan-out re-reads the room (membership decides
   * who gets the roll and may have changed since the command read it).
   */
  /**
   * `outboxId`: the roll's row in the outbox (src/outbox), deleted once its event is published (a roll
   * in a room); `recordedWith`: rows written with the roll by its recorder (webhook deliveries,
   * src/rolls/store/write.ts); `userId`: its roller.
   */
  | {
      type: 'roll.created';
      rollId: number;
      roomId: number | null;
      slug: string | null;
      loaded?: object;
      outboxId?: number | null;
      recordedWith?: number;
      userId?: number;
    }
  | { type: 'roll.updated'; rollIds: number[]; roomId: number | null; slug: string | null; key?: string }
  /** `audience`: who could see the roll (its roller and whisper recipients), or null for the whole room. */
  | { type: 'roll.deleted'; rolls: { uuid: string; audience: number[] | null }[]; roomId: number; slug: string; key?: string }
  /** API keys revoked: the sockets opened with them must go (realtime/connection/accessRechecks.ts). */
  | { type: 'keys.revoked'; keyIds: number[] }
  | { type: 'dicebox.created'; userId: number; themeId: number }
  | { type: 'dicebox.deleted'; userId: number; themeSlug: string };

type Listener = (event: DomainEvent) => void | Promise<void>;

/** This server's listeners, and what it does when one fails (lib/appContext.ts). */
const bus = perApp(() => ({
  listeners: new Set<Listener>(),
  onListenerError: ((err) => console.error('domain event listener failed', err)) as (err: unknown) => void,
}));

export function subscribe(listener: Listener): () => void {
  const { listeners } = bus();
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Announce a committed change. Never throws: a failing listener must not fail the request. */
export function publish(event: DomainEvent): void {
  const { listeners, onListenerError } = bus();
  for (const listener of listeners) {
    try {
      const result = listener(event);
      if (result && typeof (result as Promise<void>).catch === 'function') (result as Promise<void>).catch(onListenerError);
    } catch (err) {
      onListenerError(err);
    }
  }
}

export function setListenerErrorHandler(handler: (err: unknown) => void) {
  bus().onListenerError = handler;
}
