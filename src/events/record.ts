import { perApp } from '../lib/appContext';
import { createHash, randomBytes } from 'node:crypto';
import type { DomainEvent } from './bus';

/**
 * What must be written in the transaction of the change that makes an event (webhooks' deliveries:
 * docs/webhooks.md, "Never lost"), and the ids those events go by. The bus (bus.ts) announces after
 * commit, which a process killed in between never does; a command therefore hands its events to
 * recordInTransaction() inside its transaction, and publishes the same events after the commit.
 * Consumers register here (webhooks), so commands depend on no consumer.
 */

/** One statement in the command's open transaction (db/sql.ts Query, whatever the command's store uses). */
export type TxQuery = <T = Record<string, unknown>>(text: string, params?: readonly unknown[]) => Promise<T[]>;

export type InTransactionRecorder = (tx: TxQuery, event: DomainEvent) => Promise<void>;

const recorders = perApp(() => new Set<InTransactionRecorder>());

/** Write what `recorder` keeps of every event recorded in a transaction; answers the undo. */
export function onRecordInTransaction(recorder: InTransactionRecorder): () => void {
  recorders().add(recorder);
  return () => recorders().delete(recorder);
}

/** In the command's transaction: every recorder writes what it keeps of `events` (a failure rolls the change back). */
export async function recordInTransaction(tx: TxQuery, ...events: DomainEvent[]): Promise<void> {
  for (const recorder of recorders()) for (const event of events) await recorder(tx, event);
}

/**
 * A fresh key for one event (its `key`): the ids of what it makes (eventIdOf) derive from it, so the
 * transaction that records the event and the realtime layer that numbers it after commit name it alike.
 */
export function eventKey(): string {
  return randomBytes(12).toString('base64url');
}

/** The id of an event keyed `key` (a Standard Webhooks message id), or of its part `part` (one roll of it, its participant). */
export function eventIdOf(key: string, part?: string | number): string {
  return part === undefined ? `msg_${key}` : `msg_${key}_${part}`;
}

/**
 * A roll's creation has one id whoever records it (its command, or the outbox's net after a crash):
 * derived from the roll, so that recording it twice is one row.
 */
export function rollCreatedEventId(rollId: number): string {
  return `msg_${createHash('sha256').update(`roll.created:${rollId}`).digest('base64url').slice(0, 22)}`;
}

/** The ids of the events `event` makes, each the realtime layer numbers in one block with its seq (sequenced()). */
export function eventIdsOf(event: DomainEvent): string[] {
  switch (event.type) {
    case 'roll.created':
      return [rollCreatedEventId(event.rollId)];
    case 'roll.updated':
      return event.key ? event.rollIds.map((id) => eventIdOf(event.key!, id)) : [];
    case 'roll.deleted':
      return event.key ? event.rolls.map((_, i) => eventIdOf(event.key!, i)) : [];
    case 'room.updated':
      return event.key ? (event.participant ? [eventIdOf(event.key), eventIdOf(event.key, 'p')] : [eventIdOf(event.key)]) : [];
    case 'room.deleted':
      return event.key ? [eventIdOf(event.key)] : [];
    default:
      return [];
  }
}

type SequencedListener = (eventIds: readonly string[], seq: number) => void;

const sequencedListeners = perApp(() => new Set<SequencedListener>());
/** Numberings of this server's in flight (lib/appContext.ts). */
const numberings = perApp(() => ({ inFlight: 0 }));

/** Hear the seq the realtime layer gave the block that carried these events (docs/realtime.md); answers the undo. */
export function onSequenced(listener: SequencedListener): () => void {
  sequencedListeners().add(listener);
  return () => sequencedListeners().delete(listener);
}

/** Whether anyone listens for seqs (the realtime layer skips naming its blocks' events otherwise). */
export function sequencedHeard(): boolean {
  return sequencedListeners().size > 0;
}

/** The realtime layer numbered a block carrying `eventIds` with `seq`. */
export function sequenced(eventIds: readonly string[], seq: number): void {
  if (!eventIds.length) return;
  for (const listener of sequencedListeners()) listener(eventIds, seq);
}

/**
 * Whether this process's realtime layer numbers room events (it runs): events of a room recorded
 * meanwhile wait a moment for their seq before they are sent. Answers the undo.
 */
export function startNumbering(): () => void {
  const numbering = numberings();
  numbering.inFlight++;
  let undone = false;
  return () => {
    if (!undone) numbering.inFlight--;
    undone = true;
  };
}

export function roomEventsNumbered(): boolean {
  return numberings().inFlight > 0;
}
