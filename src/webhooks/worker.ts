import { perApp } from '../lib/appContext';
import { Webhook as Signer } from 'standardwebhooks';
import type { Logger } from '../logger';
import type { WebhookConfig } from '../webhookConfig';
import type { WebhookMetrics } from './metrics';
import { buildBody } from './payload';
import { send, type SendResult } from './send';
import { checkUrlShape, RefusedUrlError, resolveTarget } from './ssrf';
import { claimDeliveries, extendLease, finishAttempt, nextDueMs, pruneDeliveries, type AttemptResult, type DeliveryRecord } from './store/deliveries';
import { disableWebhook, findWebhookById, findWebhooksByIds, recordOutcome, type WebhookRecord } from './store/webhooks';
import type { RollCache } from './payload';
import { loadRolls } from '../rolls/store/load';

/** What one claimed batch of deliveries shares. */
interface Batch {
  hooks: Map<number, WebhookRecord>;
  rolls: RollCache;
}

/** Events failed in a row after which a webhook is disabled (PATCH is_active: true enables it again). */
export const DISABLE_AFTER_FAILURES = 20;
/** How long finished deliveries stay in the log. */
export const LOG_KEEP_MS = 7 * 86_400_000;

/**
 * Delivers what the queue holds (store/deliveries.ts), on every instance: each claims due rows for a
 * lease (a row is held by one instance; one that dies lets its lease expire and another takes the
 * row), sends them with at most `concurrency` requests in flight, and writes each attempt's result.
 * Rows of one webhook go one after another, in the order they were recorded (per instance: across
 * instances, and after a failure, receivers order by the room's `seq` or the roll's times).
 */
export class DeliveryWorker {
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private inFlight = 0;
  private queued = 0;
  private readonly chains = new Map<number, Promise<void>>();
  private lastPruneMs = 0;

  private dueTimer: NodeJS.Timeout | null = null;

  /**
   * `shared`: other instances record and claim in the same tables (PostgreSQL), so this one polls every
   * `pollMs`. Alone (SQLite: one process holds the database) every event is recorded here and wakes it,
   * so it polls only when woken, and when the next retry or lease comes due: an idle server runs no
   * query for webhooks at all.
   */
  constructor(
    private readonly config: WebhookConfig,
    private readonly logger: Logger,
    private readonly metrics: WebhookMetrics,
    private readonly shared = true,
  ) {}

  start(): void {
    if (this.shared) {
      this.timer = setInterval(() => this.wake(), this.config.pollMs);
      this.timer.unref();
    }
    this.wake();
  }

  /** Alone: wake when the next pending delivery comes due. */
  private async scheduleNextDue(): Promise<void> {
    if (this.shared || this.stopped) return;
    const due = await nextDueMs();
    if (this.dueTimer) clearTimeout(this.dueTimer);
    this.dueTimer = null;
    if (due === null || this.stopped) return;
    this.dueTimer = setTimeout(() => this.wake(), Math.max(0, due - Date.now()) + 5);
    this.dueTimer.unref();
  }

  /** Look for due rows now (an event was just recorded, a webhook enabled). */
  wake(): void {
    if (this.stopped) return;
    if (this.polling) {
      this.again = true;
      return;
    }
    this.polling = this.poll().finally(() => {
      this.polling = null;
      if (this.again && !this.stopped) {
        this.again = false;
        this.wake();
      }
    });
  }

  private async poll(): Promise<void> {
    try {
      // Claim no more than can be sent soon: a claimed row waits only for the requests ahead of it.
      const room = this.config.concurrency * 2 - this.queued;
      if (room <= 0) return;
      const claimed = await claimDeliveries(room, this.config.leaseMs);
      // What the batch shares is read once: its webhooks, and each roll it sends (to several webhooks).
      const batch: Batch = { hooks: await findWebhooksByIds(claimed.map((d) => d.webhookId)), rolls: preloadRolls(claimed) };
      for (const delivery of claimed) this.enqueue(delivery, batch);
      if (claimed.length === room) this.again = true;
      await this.prune();
      // Rows claimed now are woken for by their own completion (enqueue below wakes on each).
      if (!claimed.length) await this.scheduleNextDue();
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'webhooks: could not claim deliveries; trying again at the next poll');
    }
  }

  private async prune(): Promise<void> {
    const now = Date.now();
    if (now - this.lastPruneMs < 3_600_000) return;
    this.lastPruneMs = now;
    await pruneDeliveries(now - LOG_KEEP_MS);
  }

  private enqueue(delivery: DeliveryRecord, batch: Batch): void {
    this.queued++;
    const previous = this.chains.get(delivery.webhookId) ?? Promise.resolve();
    const next = previous.then(() => this.attemptSafely(delivery, batch));
    this.chains.set(delivery.webhookId, next);
    void next.finally(() => {
      this.queued--;
      if (this.chains.get(delivery.webhookId) === next) this.chains.delete(delivery.webhookId);
      this.wake();
    });
  }

  private slots: (() => void)[] = [];

  private async slot(): Promise<() => void> {
    if (this.inFlight >= this.config.concurrency) await new Promise<void>((resolve) => this.slots.push(resolve));
    this.inFlight++;
    return () => {
      this.inFlight--;
      this.slots.shift()?.();
    };
  }

  private async attemptSafely(claimed: DeliveryRecord, batch: Batch): Promise<void> {
    const release = await this.slot();
    try {
      let delivery: DeliveryRecord | null = claimed;
      // Waited here long enough (slow receivers ahead) for the lease to run out mid-attempt: renewed
      // first, unless another instance took the row over meanwhile (then it is theirs).
      if (claimed.claimedUntilMs === null || claimed.claimedUntilMs - Date.now() < this.config.timeoutMs * 2) {
        delivery = await extendLease(claimed, this.config.leaseMs);
      }
      if (delivery) await this.attempt(delivery, batch);
    } catch (err) {
      this.logger.warn(
        { err: (err as Error).message, delivery: claimed.id },
        'webhooks: an attempt failed unexpectedly; the row is tried again when its lease expires',
      );
    } finally {
      release();
    }
  }

  private async attempt(delivery: DeliveryRecord, batch: Batch): Promise<void> {
    const started = performance.now();
    const hook = batch.hooks.get(delivery.webhookId) ?? (await findWebhookById(delivery.webhookId));
    if (!hook) return;
    const finish = async (result: AttemptResult, outcome: string) => {
      this.metrics.attempt(outcome, (performance.now() - started) / 1000);
      if (!(await finishAttempt(delivery, result))) return;
      if (result.status === 'delivered') {
        this.metrics.delivered((Date.now() - delivery.createdMs) / 1000);
        if (hook.failedInRow) await recordOutcome(hook.id, true, DISABLE_AFTER_FAILURES, '');
      } else if (result.status === 'failed') {
        const disabled = await recordOutcome(
          hook.id,
          false,
          DISABLE_AFTER_FAILURES,
          `Disabled after ${DISABLE_AFTER_FAILURES} events in a row failed to be delivered.`,
        );
        if (disabled) this.logger.info({ webhook: hook.uuid }, 'webhooks: disabled after repeated failures');
      }
    };
    const none = { statusCode: null, response: null, durationMs: null, nextAttemptMs: null };

    const built = delivery.body !== null ? { body: delivery.body } : await buildBody(delivery, hook, batch.rolls);
    if ('skip' in built) return finish({ ...none, status: 'skipped', error: built.skip, body: null, attempted: false }, 'skipped');

    let target;
    try {
      target = await resolveTarget(checkUrlShape(hook.url, this.config), this.config);
    } catch (err) {
      if (!(err instanceof RefusedUrlError)) throw err;
      // A name that does not resolve may resolve later; an address that is refused stays refused.
      const next = /does not resolve/.test(err.rule) ? this.retryOrFail(delivery, null) : { status: 'failed' as const, nextAttemptMs: null };
      return finish({ ...none, ...next, error: err.rule, body: built.body, attempted: true }, 'refused');
    }

    const id = delivery.eventId;
    const now = new Date();
    const headers = {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': signatures(hook, id, now, built.body),
    };
    const result = await send(target, hook.format === 'discord' ? {} : headers, built.body, this.config.timeoutMs);
    const base = { statusCode: result.status, response: result.body, durationMs: result.durationMs, body: built.body, attempted: true };
    if (result.status !== null && result.status >= 200 && result.status < 300) {
      return finish({ ...base, status: 'delivered', nextAttemptMs: null, error: null }, 'delivered');
    }
    if (result.status === 410) {
      await disableWebhook(hook.id, 'The receiver answered 410 Gone: the webhook was disabled.');
      return finish({ ...base, status: 'failed', nextAttemptMs: null, error: 'The receiver answered 410 Gone.' }, 'failed');
    }
    const error = result.error ?? `The receiver answered ${result.status}.`;
    if (retryable(result)) {
      const next = this.retryOrFail(delivery, result.retryAfterMs);
      return finish({ ...base, ...next, error }, next.status === 'pending' ? 'retry' : 'failed');
    }
    return finish(
      { ...base, status: 'failed', nextAttemptMs: null, error: result.status !== null && result.status < 400 ? `${error} Redirects are not followed.` : error },
      'failed',
    );
  }

  /** The next attempt after this one failed: the schedule's delay with jitter (Retry-After when longer), or failed once spent. */
  private retryOrFail(delivery: DeliveryRecord, retryAfterMs: number | null): { status: 'pending' | 'failed'; nextAttemptMs: number | null } {
    const schedule = this.config.retryScheduleMs;
    const made = delivery.attempts + 1;
    if (made > schedule.length) return { status: 'failed', nextAttemptMs: null };
    // ±20%: receivers that failed together are not all tried again at the same instant.
    const delay = schedule[made - 1]! * (0.8 + Math.random() * 0.4);
    return { status: 'pending', nextAttemptMs: Math.round(Date.now() + Math.max(delay, retryAfterMs ?? 0)) };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.dueTimer) clearTimeout(this.dueTimer);
    await this.polling;
    await Promise.allSettled([...this.chains.values()]);
  }
}

/** The rolls a batch will present, read in one query (a burst of rolls is one read, not one per delivery). */
function preloadRolls(claimed: readonly DeliveryRecord[]): RollCache {
  const ids = [
    ...new Set(
      claimed
        .filter((d) => d.body === null && d.eventType.startsWith('roll.') && Number.isSafeInteger(d.payload.rollId))
        .map((d) => d.payload.rollId as number),
    ),
  ];
  const cache: RollCache = new Map();
  if (!ids.length) return cache;
  const loading = loadRolls(ids).then((rolls) => new Map(rolls.map((r) => [r.id, r])));
  for (const id of ids) {
    const roll = loading.then((byId) => byId.get(id));
    // A failed read fails the attempts that await it (tried again later), never the process.
    roll.catch(() => undefined);
    cache.set(id, roll);
  }
  return cache;
}

/** Timeouts, connection errors, 429 and 5xx are tried again; other answers are final. */
function retryable(result: SendResult): boolean {
  return result.status === null || result.status === 429 || result.status >= 500;
}

/**
 * `v1,<sig>` with the secret, and beside it (space-separated, as Standard Webhooks allows) one with
 * the rotated-out secret while it still signs: a receiver that has either verifies.
 */
export function signatures(hook: Pick<WebhookRecord, 'secret' | 'previousSecret' | 'previousSecretUntilMs'>, id: string, at: Date, body: string): string {
  const out = [new Signer(hook.secret).sign(id, at, body)];
  if (hook.previousSecret && (hook.previousSecretUntilMs ?? 0) > at.getTime()) out.push(new Signer(hook.previousSecret).sign(id, at, body));
  return out.join(' ');
}

/** This server's worker (lib/appContext.ts). */
const running = perApp(() => ({ current: null as DeliveryWorker | null }));

/** The process's worker (server.ts starts it); routes and the event listener wake it. */
export function setDeliveryWorker(worker: DeliveryWorker | null): void {
  running().current = worker;
}

export function wakeDeliveries(): void {
  running().current?.wake();
}
