import { perApp } from '../lib/appContext';
import type { Logger } from '../logger';
import { claimDue, deleteOutbox, type OutboxEntry } from './store';

/**
 * Announcements left in the outbox by an instance that died between a commit and its announcement
 * (store.ts) are made by whichever instance sweeps first: every `intervalMs`, rows older than
 * `graceMs` (time enough for the instance that wrote one to announce it and delete it) are claimed
 * for a while and handed to the handler of their event. A handler announces; whoever announces
 * deletes the row once the announcement is made (releaseOutbox). An announcement made twice (the
 * writer was only slow) must be harmless: the realtime numbering script refuses a roll's creation
 * published twice (realtime/transport/sequenceLogRedis.ts).
 */
export type OutboxHandler = (entry: OutboxEntry) => void | Promise<void>;

/** This server's handlers, and the releases it has not written yet (lib/appContext.ts). */
const outbox = perApp(() => ({
  handlers: new Map<string, OutboxHandler>(),
  releasing: [] as number[],
  releaseScheduled: false,
  deleting: Promise.resolve() as Promise<unknown>,
}));

/** Say how entries of `event` are announced again; answers the undo. */
export function onOutbox(event: string, handler: OutboxHandler): () => void {
  const { handlers } = outbox();
  handlers.set(event, handler);
  return () => {
    if (handlers.get(event) === handler) handlers.delete(event);
  };
}

/** Rows claimed per sweep at most; the rest wait for the next. */
const SWEEP_LIMIT = 200;

export interface SweeperOptions {
  intervalMs: number;
  graceMs: number;
  logger: Logger;
}

export function startOutboxSweeper({ intervalMs, graceMs, logger }: SweeperOptions): () => void {
  let running = false;
  const { handlers } = outbox();
  const sweep = async () => {
    if (running) return;
    running = true;
    try {
      // Held long enough for the announcement to be made before another sweep takes the row again.
      const due = await claimDue(graceMs, Math.max(graceMs, 30_000), SWEEP_LIMIT);
      if (due.length) logger.warn({ entries: due.length }, 'outbox: announcing what an instance committed and did not announce');
      const unknown: number[] = [];
      for (const entry of due) {
        const handler = handlers.get(entry.event);
        if (!handler) unknown.push(entry.id);
        else
          await Promise.resolve(handler(entry)).catch((err: Error) =>
            logger.warn({ err: err.message, event: entry.event }, 'outbox: announcement failed; tried again later'),
          );
      }
      if (unknown.length) {
        logger.warn({ entries: unknown.length }, 'outbox: entries of an event nobody announces dropped');
        await deleteOutbox(unknown);
      }
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'outbox sweep failed; tried again at the next interval');
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void sweep(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * The announcement of these rows was made: delete them, batched (one DELETE for the rows released
 * in one turn of the event loop: a burst of rolls costs one statement, not one per roll). A failed
 * delete leaves the rows to the sweeper, whose second announcement is refused as a repeat.
 */
export function releaseOutbox(ids: readonly number[], logger?: Logger): void {
  if (!ids.length) return;
  const state = outbox();
  state.releasing.push(...ids);
  if (state.releaseScheduled) return;
  state.releaseScheduled = true;
  setImmediate(() => {
    const batch = state.releasing;
    state.releasing = [];
    state.releaseScheduled = false;
    state.deleting = deleteOutbox(batch).catch((err: Error) =>
      logger?.warn({ err: err.message, entries: batch.length }, 'outbox: could not delete announced entries; the sweeper will'),
    );
  });
}

/**
 * Resolves once the releases asked for so far are written (tests that count queries, shutdown): the
 * deletes are batched on the next turn of the event loop, after the announcement.
 */
export async function outboxReleasesSettled(): Promise<void> {
  const state = outbox();
  while (state.releaseScheduled) await new Promise((resolve) => setImmediate(resolve));
  await state.deleting;
}
