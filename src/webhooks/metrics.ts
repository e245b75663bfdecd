import { Counter, Gauge, Histogram } from 'prom-client';
import type { Metrics } from '../metrics';
import { queueDepth } from './store/deliveries';

/** The webhook instruments (docs/operations.md), registered with the instance's metrics when they are on. */
export interface WebhookMetrics {
  /** An attempt's outcome: delivered, retry, failed, skipped, refused (SSRF rule). */
  attempt(outcome: string, seconds: number): void;
  /** Seconds from the event (its row's creation) to its delivery. */
  delivered(latencySeconds: number): void;
}

const NONE: WebhookMetrics = { attempt: () => undefined, delivered: () => undefined };

export function webhookMetrics(metrics: Metrics | null | undefined): WebhookMetrics {
  if (!metrics) return NONE;
  const registers = [metrics.registry];
  const attempts = new Counter({
    name: 'dice_webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome (delivered, retry, failed, skipped, refused)',
    labelNames: ['outcome'] as const,
    registers,
  });
  const duration = new Histogram({
    name: 'dice_webhook_attempt_duration_seconds',
    help: 'Time of one webhook attempt, request to answer',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const latency = new Histogram({
    name: 'dice_webhook_delivery_latency_seconds',
    help: 'Time from an event to its successful delivery (retries included)',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 120, 600, 3600, 43200],
    registers,
  });
  new Gauge({
    name: 'dice_webhook_queue_depth',
    help: 'Webhook deliveries waiting (pending), all instances',
    registers,
    async collect() {
      this.set((await queueDepth()).pending);
    },
  });
  new Gauge({
    name: 'dice_webhook_oldest_pending_seconds',
    help: 'Age of the oldest webhook delivery still waiting',
    registers,
    async collect() {
      this.set((await queueDepth()).oldestAgeMs / 1000);
    },
  });
  return {
    attempt(outcome, seconds) {
      attempts.inc({ outcome });
      if (outcome !== 'skipped') duration.observe(seconds);
    },
    delivered(seconds) {
      latency.observe(seconds);
    },
  };
}
