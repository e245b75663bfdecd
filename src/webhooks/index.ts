import type { AppDeps } from '../http/deps';
import { db } from '../db';
import { listenForWebhookEvents, webhookRecordingsSettled } from './listen';
import { webhookMetrics } from './metrics';
import { DeliveryWorker, setDeliveryWorker } from './worker';

export { webhookRoutes } from './routes';
export { webhookRecordingsSettled } from './listen';

/**
 * Webhooks on this instance: the listener that records committed events for delivery, and the worker
 * that delivers what the queue holds (whichever instance recorded it). Answers the stop.
 */
export function startWebhooks(deps: AppDeps): { stop(): Promise<void> } {
  const logger = deps.logger.child({ component: 'webhooks' });
  const stopListening = listenForWebhookEvents(logger);
  // SQLite is the embedded shape: one process holds the database, and hears every event itself.
  const worker = new DeliveryWorker(deps.config.webhooks, logger, webhookMetrics(deps.metrics), db().dialect === 'postgres');
  setDeliveryWorker(worker);
  worker.start();
  return {
    async stop() {
      stopListening();
      await webhookRecordingsSettled();
      await worker.stop();
      setDeliveryWorker(null);
    },
  };
}
