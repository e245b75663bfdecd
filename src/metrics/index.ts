import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Config } from '../config';

/**
 * Prometheus metrics of one server instance (docs/operations.md lists them). Each instance has a
 * registry of its own, so that two servers built in one process (tests) never share or clash.
 *
 * Label values come from fixed sets only (route patterns, event names, status codes, pool names),
 * never from a URL, a slug, a uuid or a key: every distinct value is a series kept forever.
 */
export class Metrics {
  readonly registry = new Registry();

  /** Requests by route pattern (http.ts), method and status. */
  readonly httpRequests = new Counter({
    name: 'dice_http_requests_total',
    help: 'HTTP requests answered, by route pattern ("unmatched" when no route answered), method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'dice_http_request_duration_seconds',
    help: 'Time from the request reaching Express to the last byte of the answer handed to the OS, by route pattern, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly rollsCreated = new Counter({
    name: 'dice_rolls_created_total',
    help: 'Rolls created through this instance (committed)',
    registers: [this.registry],
  });

  readonly realtimePublished = new Counter({
    name: 'dice_realtime_events_published_total',
    help: 'Realtime emits sent by this instance (one per viewer class of a domain event), by event name; with Redis each reaches every instance',
    labelNames: ['event'] as const,
    registers: [this.registry],
  });

  readonly realtimeDelivered = new Counter({
    name: 'dice_realtime_events_delivered_total',
    help: 'Realtime events handed to a socket connected to this instance (one per socket), by event name',
    labelNames: ['event'] as const,
    registers: [this.registry],
  });

  readonly redisPublishDuration = new Histogram({
    name: 'dice_redis_publish_duration_seconds',
    help: "Time from sending a realtime PUBLISH (or a MULTI of them) to Redis's answer or the failure",
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });

  readonly redisPublishFailures = new Counter({
    name: 'dice_redis_publish_failures_total',
    help: "PUBLISHes to Redis that failed (realtime emits, MULTIs of them, and the Socket.IO adapter's own): those events reached no instance",
    registers: [this.registry],
  });

  readonly realtimeBlocksRefused = new Counter({
    name: 'dice_realtime_blocks_refused_total',
    help: 'Realtime event blocks the numbering script refused as already sent by this instance (expected only when a block is sent again after its reply was lost)',
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** A gauge whose value is read when Prometheus scrapes (nothing is kept up to date in between). */
  gauge<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    read: (set: (labels: Partial<Record<L, string>>, value: number) => void) => void,
  ) {
    return new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      collect() {
        this.reset();
        read((labels, value) => this.set(labels, value));
      },
    });
  }

  /** The exposition text and its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** Metrics are collected only when something serves them (METRICS_TOKEN or METRICS_PORT). */
export function metricsEnabled(config: Pick<Config, 'metricsToken' | 'metricsPort'>): boolean {
  return config.metricsToken !== null || config.metricsPort !== null;
}
