import type { RequestHandler } from 'express';
import { RateLimitError, UnauthorizedError } from '../errors';
import type { AppDeps } from '../http/deps';
import { authenticate } from './apiKeys';
import { failOpen } from '../http/rateLimit';
import type { UserRecord } from './store';

declare module 'express-serve-static-core' {
  interface Request {
    /** Request id: the caller's X-Request-Id when sane, else a fresh one. Echoed in the response. */
    id: string;
    /** The authenticated user (set by `auth`): the users store's plain record. */
    user?: UserRecord;
    /** The id of the API key it authenticated with. */
    apiKeyId?: number;
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The bearer key from a header value, or null. */
export function bearerKey(header: string | undefined): string | null {
  if (!header) return null;
  return BEARER.exec(header)?.[1] ?? null;
}

/**
 * Require `Authorization: Bearer <key>` naming a live key; sets req.user. Unknown or revoked keys count
 * against the client address: past `authFailuresPerMinute` in a minute they get 429 instead of 401, so
 * keys cannot be guessed at speed, while a good key from the same address keeps working.
 */
export function auth(deps: Pick<AppDeps, 'config' | 'logger' | 'rateLimitStore'>): RequestHandler {
  const limit = deps.config.authFailuresPerMinute;
  // A failing store (Redis away) answers null: the failed key goes uncounted, logged once per outage.
  const failures = failOpen(deps.rateLimitStore, deps.logger);
  return async (req, _res, next) => {
    const key = bearerKey(req.headers.authorization);
    if (!key) return next(new UnauthorizedError());
    const found = await authenticate(key);
    if (found) {
      req.user = found.user;
      req.apiKeyId = found.apiKeyId;
      return next();
    }
    const counted = await failures.hit(`authfail:${req.ip ?? 'unknown'}`, 60_000, limit);
    if (counted && counted.count > limit) return next(new RateLimitError(Math.max(1, Math.ceil(counted.resetMs / 1000))));
    next(new UnauthorizedError('The API key is unknown or has been revoked.'));
  };
}
