import { announce } from '../lib/invalidation';
import type { Logger } from '../logger';
import { keysRevokedSince, latestKeyRevocation } from './store';

/**
 * Revocations made by another process that cannot tell this one: the operators' CLI (`key:revoke`)
 * when there is no Redis to carry its message, in the embedded shape where the CLI and the server
 * share the SQLite file (or a second instance on one PostgreSQL database without Redis). This
 * process polls the database for keys revoked since the latest revocation it saw, and announces each
 * new one exactly as its own revocations are announced (lib/invalidation.ts `announce`): the key
 * cache drops it, and the realtime layer's `keys.revoked` listener closes its Socket.IO sockets and
 * Pusher subscriptions. Revocations made here are seen again: announcing twice is harmless.
 *
 * Each poll is one range read on the index of `api_keys.revoked_at` returning the revocations of the
 * last few seconds (usually none), so it costs the same with ten keys or a million.
 */

/** How often the database is asked: a revocation takes effect within this plus one poll's read. */
export const REVOCATION_POLL_MS = 250;

/**
 * A revocation is looked for this far back before the latest one seen: a revocation stamped earlier
 * but committed later (two processes revoking at once on PostgreSQL; a clock stepped back) is still
 * found. SQLite commits one write transaction at a time, and the stamp is taken inside it, so there
 * stamps already follow commits.
 */
const LOOK_BACK_MS = 10_000;

export interface RevocationWatch {
  /** One poll now (the timer calls it; tests may too). */
  poll(): Promise<number>;
  /** No more polls; resolves once a poll in progress has ended (before the database closes). */
  stop(): Promise<void>;
}

export function watchRevocations(logger: Logger, intervalMs = REVOCATION_POLL_MS): RevocationWatch {
  /** Ids already announced, with their stamp: forgotten once they fall out of the look-back window. */
  const seen = new Map<number, number>();
  let since: Date | null = null;
  let primed = false;
  let running: Promise<number> | null = null;
  let failing = false;

  const pass = async (): Promise<number> => {
    if (!primed) {
      // What was revoked before this process started is not in any of its caches or sockets.
      const latest = await latestKeyRevocation();
      since = new Date((latest?.getTime() ?? 0) - LOOK_BACK_MS);
      for (const row of latest ? await keysRevokedSince(since) : []) seen.set(row.id, row.revokedAt.getTime());
      primed = true;
      return 0;
    }
    const rows = await keysRevokedSince(since!);
    const fresh = rows.filter((row) => !seen.has(row.id));
    if (!fresh.length) return 0;
    for (const row of fresh) seen.set(row.id, row.revokedAt.getTime());
    const newest = Math.max(...[...seen.values()]);
    since = new Date(newest - LOOK_BACK_MS);
    for (const [id, at] of seen) if (at < since.getTime()) seen.delete(id);
    const keyIds = fresh.map((row) => row.id);
    await announce({ keys: keyIds }, { type: 'keys.revoked', keyIds });
    logger.info({ keys: keyIds.length }, 'keys revoked by another process: dropped from the key cache, their sockets closed');
    return keyIds.length;
  };

  const poll = (): Promise<number> => {
    running ??= pass()
      .then(
        (n) => {
          if (failing) logger.info('reading key revocations works again');
          failing = false;
          return n;
        },
        (err: Error) => {
          if (!failing)
            logger.warn(
              { err: err.message },
              'could not read key revocations; trying again at each poll (a revocation by another process waits for CACHE_TTL_MS and REALTIME_REVALIDATE_MS meanwhile)',
            );
          failing = true;
          return 0;
        },
      )
      .finally(() => (running = null));
    return running;
  };

  const timer = setInterval(() => void poll(), intervalMs);
  timer.unref();
  void poll();
  return {
    poll,
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
