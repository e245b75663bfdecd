import type { Request, RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import { RateLimitError } from '../errors';
import type { Logger } from '../logger';

/** Counts hits in fixed windows. Shared through Redis when several instances run. */
export interface RateLimitStore {
  /** Count one hit for `key` in the current window; answers the count so far and ms until the window resets. */
  hit(key: string, windowMs: number): Promise<{ count: number; resetMs: number }>;
  /** Take one hit of the current window back (a counted attempt turned out not to be a failure). */
  unhit(key: string): Promise<void>;
}

export class MemoryRateLimitStore implements RateLimitStore {
  private windows = new Map<string, { count: number; resetAt: number }>();

  async hit(key: string, windowMs: number) {
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

// INCR, set the expiry on the first hit of a window, answer count and remaining ms: one round trip.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}`;

// DECR only a live window: a DECR on a key that expired meanwhile would create one without expiry.
const UNHIT_SCRIPT = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count > 0 then redis.call('DECR', KEYS[1]) end
return 0`;

type RateLimitRedis = Redis & { rateLimitHit(key: string, windowMs: number): Promise<[number, number]>; rateLimitUnhit(key: string): Promise<number> };

export class RedisRateLimitStore implements RateLimitStore {
  /** `prefix` (REDIS_PREFIX) starts every key, so that deployments sharing one Redis database keep their own counters. */
  constructor(
    private redis: Redis,
    private prefix: string,
  ) {
    // EVALSHA with the script's hash (ioredis loads the script once, on NOSCRIPT): not its text per request.
    if (!('rateLimitHit' in redis)) redis.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    if (!('rateLimitUnhit' in redis)) redis.defineCommand('rateLimitUnhit', { numberOfKeys: 1, lua: UNHIT_SCRIPT });
  }

  async hit(key: string, windowMs: number) {
    // While Redis is away, fail at once (the middleware then lets the request through) instead of
    // waiting in ioredis' offline queue for a reconnect: that wait was up to 2 s on every request.
    if (this.redis.status !== 'ready') throw new Error(`Redis is ${this.redis.status}`);
    const [count, ttl] = await (this.redis as unknown as RateLimitRedis).rateLimitHit(`${this.prefix}ratelimit:${key}`, windowMs);
    return { count, resetMs: ttl };
  }

  async unhit(key: string) {
    if (this.redis.status !== 'ready') throw new Error(`Redis is ${this.redis.status}`);
    await (this.redis as unknown as RateLimitRedis).rateLimitUnhit(`${this.prefix}ratelimit:${key}`);
  }
}

/** A store that answers `null` instead of failing: the caller lets the request through unlimited. */
export interface FailOpenStore {
  hit(key: string, windowMs: number): Promise<{ count: number; resetMs: number } | null>;
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
 * in realtime/handshake.ts), so they share one outage and one pair of lines. The logger of the first
 * call for a store is the one used.
 */
export function failOpen(store: RateLimitStore, logger: Logger): FailOpenStore {
  let wrapped = failOpenByStore.get(store);
  if (wrapped) return wrapped;
  let outage: { since: number; unlimited: number } | null = null;
  wrapped = {
    async hit(key, windowMs) {
      let result: { count: number; resetMs: number };
      try {
        result = await store.hit(key, windowMs);
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
  return async (req, res, next) => {
    const result = await limiter.hit(`${rule.name}:${rule.key(req)}`, rule.windowMs);
    if (!result) return next();
    const resetSeconds = Math.max(1, Math.ceil(result.resetMs / 1000));
    res.setHeader('RateLimit-Limit', String(rule.limit));
    res.setHeader('RateLimit-Remaining', String(Math.max(0, rule.limit - result.count)));
    res.setHeader('RateLimit-Reset', String(resetSeconds));
    if (result.count > rule.limit) return next(new RateLimitError(resetSeconds));
    next();
  };
}
