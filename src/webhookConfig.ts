/**
 * The webhook variables (docs/webhooks.md): their rules, defaults and parsed shape. config.ts validates
 * them with the rest of the environment; src/webhooks uses them.
 */
import Joi from 'joi';

export interface WebhookConfig {
  /** Delays before the 2nd, 3rd, ... attempt (WEBHOOK_RETRY_SCHEDULE); once spent the event failed. */
  retryScheduleMs: readonly number[];
  /** `host` or `host:port` (lower case) that may be http and resolve to private addresses (WEBHOOK_ALLOWED_HOSTS). */
  allowedHosts: readonly string[];
  /** Any host may be http and private (WEBHOOK_ALLOW_PRIVATE): a self-hosted instance on a LAN, tests. */
  allowPrivate: boolean;
  /** Webhooks one user may have (WEBHOOKS_PER_USER). */
  perUser: number;
  /** One attempt's whole time, connection to last byte (WEBHOOK_TIMEOUT_MS). */
  timeoutMs: number;
  /** Requests in flight per instance at most (WEBHOOK_CONCURRENCY). */
  concurrency: number;
  /** How often an instance looks for due deliveries when it was not woken (WEBHOOK_POLL_MS). */
  pollMs: number;
  /** How long a claimed delivery is held before another instance may take it (lease; WEBHOOK_LEASE_MS). */
  leaseMs: number;
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "5s,30s,2m" to milliseconds; throws a sentence. */
export function parseRetrySchedule(text: string): number[] {
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (!parts.length || parts.length > 20) throw new Error('must list 1 to 20 delays such as 5s,30s,2m,10m,1h');
  return parts.map((part) => {
    const match = /^(\d{1,7})(ms|s|m|h|d)$/.exec(part);
    if (!match) throw new Error(`its part "${part}" is not a delay such as 30s, 2m or 1h`);
    const ms = Number(match[1]) * UNITS[match[2]!]!;
    if (ms > 7 * 86_400_000) throw new Error(`its part "${part}" is longer than 7 days`);
    return ms;
  });
}

const hostList = Joi.string()
  .empty('')
  .default(() => [])
  .custom((value: string, helpers) => {
    const hosts = value
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean);
    const bad = hosts.find((h) => !/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/.test(h));
    return bad ? helpers.message({ custom: `its entry "${bad}" is not a host or host:port` }) : hosts;
  });

export const WEBHOOK_VARIABLES = {
  WEBHOOK_RETRY_SCHEDULE: Joi.string()
    .empty('')
    .default('5s,30s,2m,10m,1h,6h,12h')
    .custom((value: string, helpers) => {
      try {
        return parseRetrySchedule(value);
      } catch (err) {
        return helpers.message({ custom: (err as Error).message });
      }
    }),
  WEBHOOK_ALLOWED_HOSTS: hostList,
  WEBHOOK_ALLOW_PRIVATE: Joi.boolean().default(false),
  WEBHOOKS_PER_USER: Joi.number().integer().min(0).max(10_000).default(10),
  WEBHOOK_TIMEOUT_MS: Joi.number().integer().min(100).max(60_000).default(10_000),
  WEBHOOK_CONCURRENCY: Joi.number().integer().min(1).max(1000).default(16),
  WEBHOOK_POLL_MS: Joi.number().integer().min(10).max(600_000).default(1000),
  WEBHOOK_LEASE_MS: Joi.number().integer().min(1000).max(3_600_000).default(60_000),
};

export function webhookConfigFrom(value: Record<string, unknown>): Readonly<WebhookConfig> {
  const schedule = value.WEBHOOK_RETRY_SCHEDULE;
  return Object.freeze({
    retryScheduleMs: Object.freeze(Array.isArray(schedule) ? [...(schedule as number[])] : parseRetrySchedule(String(schedule))),
    allowedHosts: Object.freeze([...(value.WEBHOOK_ALLOWED_HOSTS as string[])]),
    allowPrivate: Boolean(value.WEBHOOK_ALLOW_PRIVATE),
    perUser: Number(value.WEBHOOKS_PER_USER),
    timeoutMs: Number(value.WEBHOOK_TIMEOUT_MS),
    concurrency: Number(value.WEBHOOK_CONCURRENCY),
    pollMs: Number(value.WEBHOOK_POLL_MS),
    // The lease outlives an attempt (its timeout) by a margin: a slow attempt is not taken twice.
    leaseMs: Math.max(Number(value.WEBHOOK_LEASE_MS), Number(value.WEBHOOK_TIMEOUT_MS) * 3),
  });
}
