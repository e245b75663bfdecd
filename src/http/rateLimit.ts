import type { Request, RequestHandler } from 'express';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterRes } from 'rate-limiter-flexible';
import type { RedisClient } from '../lib/redis';
import { RateLimitError } from '../errors';
import type { Logger } from '../logger';
import { LeaseTable } from './rateLimitLeases';

/** Counts hits in fixed windows. Shared through Redis when several instances run. */
export interface RateLimitStore {
  /**
   * Count one hit for `key` in the current window; answers the count so far (this hit's place in the
   * window: over `limit` means refused) and ms until the window resets. `limit` lets a shared store
   * reserve points in blocks (leases) without ever admitting more than it across instances.
   */
  hit(key: string, windowMs: number, limit: number): Promise<{ count: number; resetMs: number }>;
  /** Take one admitted hit of the current window back (a counted attempt turned out not to be a failure). */
  unhit(key: string): Promise<void>;
}

export class MemoryRateLimitStore implements RateLimitStore {
  private windows = new Map<string, { count: number; resetAt: number }>();

  async hit(key: string, windowMs: number, _limit: number) {
    const now = Date.now();
    let w = this.windows.get(key);
    if (!w || w.resetAt <= now) {
      if (this.windows.size > 100_000) this.sweep(now);
      w = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, w);
    }
    w.count += 1;
    return { count: w.count, resetMs: w.resetAt - now };
  }

  async unhit(key: string) {
    const w = this.windows.get(key);
    if (w && w.count > 0) w.count -= 1;
  }

  private sweep(now: number) {
    for (const [k, w] of this.windows) if (w.resetAt <= now) this.windows.delete(k);
  }
}

/** rate-limiter-flexible's windows are whole seconds. */
const seconds = (windowMs: number) => Math.max(1, Math.ceil(windowMs / 1000));

/** Points no window reaches: the limiters only count, each caller compares with its own limit. */
const UNBOUNDED = 2 ** 31 - 1;

/**
 * The insurance limiter: rate-limiter-flexible calls it instead of Redis while Redis fails (or is
 * not ready). It counts in this process's memory, and marks what it answered so the store can tell
 * an outage (and its end) apart from Redis's own answers.
 */
class InsuranceLimiter extends RateLimiterMemory {
  readonly answered = new WeakSet<RateLimiterRes>();

  constructor(private readonly onUse: () => void) {
    super({ points: UNBOUNDED, duration: 60 });
  }

  override async consume(key: string | number, points?: number, options?: { [key: string]: unknown }): Promise<RateLimiterRes> {
    this.onUse();
    const res = await super.consume(key, points, options);
    this.answered.add(res);
    return res;
  }

  override async reward(key: string | number, points?: number, options?: { [key: string]: unknown }): Promise<RateLimiterRes> {
    const res = await super.reward(key, points, options);
    this.answered.add(res);
    return res;
  }
}

/** Take one point back from a counter that still exists (its window has not ended). */
const DECREMENT_IF_LIVE = "if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('DECR', KEYS[1]) end return false";

/** How long a request waits for Redis to count a hit before counting it in memory (the insurance). */
export const REDIS_ANSWER_MS = 500;

/** RATE_LIMIT_LEASE_MAX when not configured: blocks of up to 64 points (src/http/rateLimitLeases.ts). */
export const DEFAULT_LEASE_MAX = 64;

/**
 * Fixed windows in Redis through `rate-limiter-flexible` (one key per counter, `<prefix>ratelimit:<name>:<who>`,
 * counted by one Lua script of one key: cluster-safe). While Redis is away, or not ready, each
 * instance counts in its own memory (the insurance limiter): limits still hold, per instance instead
 * of for the whole deployment, and the requests are not held waiting for a reconnection. The outage
 * is logged twice: a warning when the first hit goes to memory, and, at the first hit Redis answers
 * again, how many were counted in memory and for how long.
 *
 * Points are reserved in blocks and spent in this process (leases, src/http/rateLimitLeases.ts), so
 * that most hits send no command at all; `leaseMax` 1 counts every hit in Redis. Leases are spent
 * only while Redis is connected and no outage is under way: during one every hit is counted in
 * memory, as before.
 */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly limiter: RateLimiterRedis;
  private readonly insurance: InsuranceLimiter;
  private readonly leases: LeaseTable;
  private outage: { since: number; inMemory: number } | null = null;

  /** `prefix` (REDIS_PREFIX) starts every key, so that deployments sharing one Redis database keep their own counters. */
  constructor(
    private readonly redis: RedisClient,
    prefix: string,
    private readonly logger: Logger,
    leaseMax = DEFAULT_LEASE_MAX,
  ) {
    this.leases = new LeaseTable(
      {
        add: (key, points, windowMs) => this.add(key, points, windowMs),
        giveBackInMemory: async (key, points, windowMs) => {
          if (points > 0) await this.insurance.reward(key, points, { customDuration: seconds(windowMs) });
        },
        reachable: () => this.outage === null && this.redis.status === 'ready',
      },
      leaseMax,
    );
    this.insurance = new InsuranceLimiter(() => this.insured());
    this.limiter = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${prefix}ratelimit`,
      points: UNBOUNDED,
      duration: 60,
      // Straight to the insurance while the connection is not ready, instead of ioredis' offline
      // queue (that wait was up to 2 s on every request).
      rejectIfRedisNotReady: true,
      insuranceLimiter: this.insurance,
    });
  }

  private insured() {
    if (this.outage) {
      this.outage.inMemory += 1;
      return;
    }
    this.outage = { since: Date.now(), inMemory: 1 };
    this.logger.warn("rate limit store unavailable, counting in this instance's memory until Redis answers again");
  }

  /** An answer from Redis: the end of an outage, if there was one. */
  private fromRedis(res: RateLimiterRes) {
    if (this.insurance.answered.has(res) || !this.outage) return;
    this.logger.info({ inMemory: this.outage.inMemory, outageMs: Date.now() - this.outage.since }, 'rate limit store recovered');
    this.outage = null;
  }

  /** Leases held now (tests: the map stays bounded). */
  get leaseCount(): number {
    return this.leases.size;
  }

  /**
   * Add points to the counter: Redis's, or the insurance's in memory while Redis is away, or when it
   * does not answer within REDIS_ANSWER_MS (a command queued for a master that died waits for a
   * reconnection or the slot map's refresh: seconds). The late answer, if any, still counts the
   * points in Redis: a few more counted, never fewer.
   */
  private async add(key: string, points: number, windowMs: number) {
    const options = { customDuration: seconds(windowMs) };
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), REDIS_ANSWER_MS);
    });
    const counted = this.limiter.consume(key, points, options);
    counted.catch(() => undefined); // answered after the wait: nobody listens any more
    const res = (await Promise.race([counted, late]).finally(() => clearTimeout(timer))) ?? (await this.insurance.consume(key, points, options));
    this.fromRedis(res);
    return { count: res.consumedPoints, resetMs: Math.max(0, res.msBeforeNext), insured: this.insurance.answered.has(res) };
  }

  async hit(key: string, windowMs: number, limit: number) {
    return this.leases.hit(key, windowMs, limit);
  }

  async unhit(key: string) {
    if (this.leases.unhit(key)) return;
    if (this.outage || this.redis.status !== 'ready') {
      await this.insurance.reward(key, 1, {});
      return;
    }
    // Only a live window is given back, in one script: a reward on an expired window would open a new
    // one at -1 (a free hit), and deleting that afterwards could take another instance's fresh
    // reservation with it (its lease would then count in no window).
    // Not waited for longer than a hit would be: a request path never hangs on a dead master.
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, REDIS_ANSWER_MS);
    });
    const given = this.redis.eval(DECREMENT_IF_LIVE, 1, this.limiter.getKey(key)).catch(() => this.insurance.reward(key, 1, {}));
    await Promise.race([given, late]).finally(() => clearTimeout(timer));
  }
}

/** A store that answers `null` instead of failing: the caller lets the request through unlimited. */
export interface FailOpenStore {
  hit(key: string, windowMs: number, limit: number): Promise<{ count: number; resetMs: number } | null>;
  /** Best effort: a failure is ignored (the window expires anyway). */
  unhit(key: string): Promise<void>;
}

/** One per store: every caller of failOpen(store) shares the outage, so an outage is logged once per process. */
const failOpenByStore = new WeakMap<RateLimitStore, FailOpenStore>();

/**
 * The store, failing open: while it fails (Redis away) every hit answers `null` and is let through. An
 * outage is logged twice, not once per request: a warning at the first failure, then, at the first
 * success, how many hits went unlimited and for how long. The limiter middleware and failed-key
 * counting (auth.ts) go through this, and socket handshakes are meant to (`failOpen(limit.store, logger)`
 * in realtime/connection/handshake.ts), so they share one outage and one pair of lines. The logger of the first
 * call for a store is the one used.
 */
export function failOpen(store: RateLimitStore, logger: Logger): FailOpenStore {
  let wrapped = failOpenByStore.get(store);
  if (wrapped) return wrapped;
  let outage: { since: number; unlimited: number } | null = null;
  wrapped = {
    async hit(key, windowMs, limit) {
      let result: { count: number; resetMs: number };
      try {
        result = await store.hit(key, windowMs, limit);
      } catch (err) {
        if (outage) outage.unlimited += 1;
        else {
          outage = { since: Date.now(), unlimited: 1 };
          // The limit's name (`key`, `guest`, `authfail`, `socket`...), not the key: that holds addresses.
          logger.warn({ err: (err as Error).message, limit: key.split(':')[0] }, 'rate limit store unavailable, failing open');
        }
        return null;
      }
      if (outage) {
        logger.info({ unlimited: outage.unlimited, outageMs: Date.now() - outage.since }, 'rate limit store recovered');
        outage = null;
      }
      return result;
    },
    async unhit(key) {
      await store.unhit(key).catch(() => undefined);
    },
  };
  failOpenByStore.set(store, wrapped);
  return wrapped;
}

export interface RateLimitRule {
  name: string;
  limit: number;
  windowMs: number;
  key: (req: Request) => string;
}

/**
 * Fixed-window limit with the IETF `RateLimit-*` headers and `Retry-After` on 429.
 * When the store fails (Redis down) requests pass: a limiter must not take the API down with it.
 */
export function rateLimit(store: RateLimitStore, rule: RateLimitRule, logger: Logger): RequestHandler {
  const limiter = failOpen(store, logger);
  // The same on every answer: made once, not once per request.
  const limitHeader = String(rule.limit);
  return async (req, res, next) => {
    const result = await limiter.hit(`${rule.name}:${rule.key(req)}`, rule.windowMs, rule.limit);
    if (!result) return next();
    const resetSeconds = Math.max(1, Math.ceil(result.resetMs / 1000));
    res.setHeader('RateLimit-Limit', limitHeader);
    res.setHeader('RateLimit-Remaining', String(Math.max(0, rule.limit - result.count)));
    res.setHeader('RateLimit-Reset', String(resetSeconds));
    if (result.count > rule.limit) return next(new RateLimitError(resetSeconds));
    next();
  };
}
