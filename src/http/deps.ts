import type { RedisClient } from '../lib/redis';
import type { Config } from '../config';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import type { RateLimitStore } from './rateLimit';

/** What the HTTP layer needs from the process; tests build their own. */
export interface AppDeps {
  config: Readonly<Config>;
  logger: Logger;
  rateLimitStore: RateLimitStore;
  /** Set in the production shape (REDIS_URL or REDIS_CLUSTER_NODES); readiness checks it. */
  redis: RedisClient | null;
  /** Set when metrics are on (METRICS_TOKEN or METRICS_PORT): instruments count into it. */
  metrics?: Metrics | null;
}
