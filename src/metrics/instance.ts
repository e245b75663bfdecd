import type { Server } from 'socket.io';
import type { Database } from '../db';
import { subscribe } from '../events/bus';
import type { Metrics } from './index';
import { observeSockets } from './realtime';

/**
 * What the metrics read from the rest of the instance: committed rolls (from the domain events, so no
 * command needs to know about metrics), sockets and rooms, and the database pools (read on scrape).
 * Answers a function that stops listening to the domain events.
 */
export function observeInstance(metrics: Metrics, parts: { io: Server; database: Database }): () => void {
  const unsubscribe = subscribe((event) => {
    if (event.type === 'roll.created') metrics.rollsCreated.inc();
  });
  observeSockets(metrics, parts.io);
  metrics.gauge('dice_db_pool_connections', 'Database connections by pool and state (in_use, idle)', ['pool', 'state'] as const, (set) => {
    for (const [pool, stats] of Object.entries(parts.database.pools())) {
      set({ pool, state: 'in_use' }, stats.inUse);
      set({ pool, state: 'idle' }, stats.idle);
    }
  });
  metrics.gauge(
    'dice_db_pool_waiting',
    'Callers waiting for a database connection (on SQLite: write transactions waiting for the writer)',
    ['pool'] as const,
    (set) => {
      for (const [pool, stats] of Object.entries(parts.database.pools())) set({ pool }, stats.waiting);
    },
  );
  return () => void unsubscribe();
}
