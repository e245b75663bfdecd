import cors, { type CorsOptions } from 'cors';
import type { RequestHandler } from 'express';

/**
 * Where pages on other origins read or write: the API (its OpenAPI document, theme assets and room
 * backgrounds included) and, once it exists, the SDK's channel authorisation. One list, so a new
 * browser-facing path is one more entry.
 */
export const CORS_PATHS = ['/api/1.0', '/broadcasting/auth'];

/** Every method the API answers (HEAD is GET's; OPTIONS is the preflight itself). */
const METHODS = ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'];
/** Request headers a page may send: its key, JSON, the dddice SDK's extension header, and a key for safe retries. */
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'X-Extension', 'Idempotency-Key'];
/** Response headers a page may read: rate limits, where to retry, the request id to report, where a resource went, a replayed answer. */
export const EXPOSED_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', 'X-Request-Id', 'Location', 'Idempotent-Replayed'];
/** Seconds a browser may reuse a preflight (Chromium caps it at 7200, Firefox at 86400). */
export const PREFLIGHT_MAX_AGE = 7200;

/**
 * CORS for the REST API, mounted before authentication and rate limits, so that preflights need no
 * key and every answer (errors, 404s and 429s included) carries the headers a page needs to read it.
 *
 * `allowedOrigins` null: any origin. The allowed origin is always reflected (never `*`) together with
 * `Access-Control-Allow-Credentials: true`. The API reads no cookie and no HTTP authentication, only
 * the bearer key a page must already hold, so credentials give a page nothing; but a request in
 * credentials mode (the dddice SDK's `/broadcasting/auth` call) is refused by the browser unless its
 * answer, and its preflight's, name the origin and allow credentials. A preflight does not say whether
 * the request will carry credentials, so every answer to an allowed origin must.
 */
export function corsFor(allowedOrigins: readonly string[] | null): RequestHandler {
  const allowed = allowedOrigins ? new Set(allowedOrigins) : null;
  const base: CorsOptions = {
    methods: METHODS,
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE,
    optionsSuccessStatus: 204,
    preflightContinue: false,
  };
  const open: CorsOptions = { ...base, origin: true, credentials: true };
  // An origin outside the list gets no Access-Control-Allow-Origin, so the browser refuses the answer;
  // its preflight is still answered here (an empty list, not `false`, which would pass it on to auth).
  const closed: CorsOptions = { ...base, origin: [], credentials: false };
  return cors((req, callback) => {
    const origin = req.headers.origin;
    callback(null, !allowed || (origin !== undefined && allowed.has(origin)) ? open : closed);
  }) as RequestHandler;
}
