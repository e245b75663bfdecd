import type { AppDeps } from '../http/deps';
import { listenForWebhookEvents } from './listen';
import { webhookMetrics } from './metrics';
import { DeliveryWorker, setDeliveryWorker } from './worker';

export { webhookRoutes } from './routes';

/**
 * Webhooks on this instance: the listener that records committed events for delivery, and the worker
 * that delivers what the queue holds (whichever instance recorded it). Answers the stop.
 */
export function startWebhooks(deps: AppDeps): { stop(): Promise<void> } {
  const logger = deps.logger.child({ component: 'webhooks' });
  const stopListening = listenForWebhookEvents(logger);
  const worker = new DeliveryWorker(deps.config.webhooks, logger, webhookMetrics(deps.metrics));
  setDeliveryWorker(worker);
  worker.start();
  return {
    async stop() {
      stopListening();
      await worker.stop();
      setDeliveryWorker(null);
    },
  };
}
