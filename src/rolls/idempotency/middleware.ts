import { createHash, randomUUID } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import { AppError, ValidationError } from '../../errors';
import type { Logger } from '../../logger';
import { completeKey, findKey, releaseKey, reserveKey, sweepExpiredKeys } from './store';

/**
 * The `Idempotency-Key` request header (IETF httpapi "The Idempotency-Key HTTP Header Field"): a client
 * that may send a request twice (a retry after a lost answer) sends a key of its choosing with it.
 *
 * - The first request with a key runs; when it succeeds (2xx), its status and body are kept 24 hours.
 * - The same key with the same request (method, path and validated body) within those 24 hours answers
 *   the kept status and body again, with `Idempotent-Replayed: true`, and runs nothing.
 * - The same key with another request: 422 `idempotency_key_reused`.
 * - The same key while its first request is still running: 409 `idempotency_key_in_flight` (retry later).
 * - A request that fails (4xx, 5xx) changed nothing: its key is given back, a retry runs again.
 * Keys are per user (two users may use one key). Kept in the database: every instance agrees.
 * Mounted after validation, so a request refused as malformed never takes a key.
 */

export const KEY_HEADER = 'idempotency-key';
export const KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** A request holding its key longer than this died with its instance: a retry takes the key over. */
export const IN_FLIGHT_TIMEOUT_MS = 60 * 1000;
export const MAX_KEY_LENGTH = 255;
const SWEEP_EVERY_MS = 60 * 1000;
const SWEEP_BATCH = 1000;

/** 422: a key already used for another request. */
export class IdempotencyKeyReusedError extends AppError {
  constructor() {
    super(422, 'idempotency_key_reused', 'This Idempotency-Key was already used with another request: send a new key for a new request.');
  }
}

/** 409: the first request with this key has not answered yet. */
export class IdempotencyKeyInFlightError extends AppError {
  constructor() {
    super(409, 'idempotency_key_in_flight', 'A request with this Idempotency-Key is still being processed: retry in a moment.', undefined, {
      'Retry-After': '1',
    });
  }
}

export function idempotent(logger: Logger): RequestHandler {
  let lastSweep = 0;
  return async (req, res, next) => {
    const raw = req.get(KEY_HEADER);
    if (raw === undefined) return next();
    const key = parseKey(raw);
    const userId = req.user!.id;
    const fingerprint = fingerprintOf(req.method, req.baseUrl + req.path, req.body);
    const holder = randomUUID();
    const now = new Date();
    if (now.getTime() - lastSweep > SWEEP_EVERY_MS) {
      lastSweep = now.getTime();
      // Housekeeping, never in the request's way: a failed sweep is retried a minute later.
      sweepExpiredKeys(now, SWEEP_BATCH).catch(() => undefined);
    }
    const held = await reserveKey(
      userId,
      key,
      fingerprint,
      holder,
      now,
      new Date(now.getTime() + KEY_LIFETIME_MS),
      new Date(now.getTime() - IN_FLIGHT_TIMEOUT_MS),
    );
    if (!held) return replay(res, await findKey(userId, key), fingerprint, now);
    keepAnswer(res, userId, key, holder, logger);
    next();
  };
}

/** The header's value: a token or, as the draft writes it, a quoted string (sf-string). */
function parseKey(raw: string): string {
  const quoted = /^"(.*)"$/.exec(raw.trim());
  const key = quoted ? quoted[1]! : raw.trim();
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
    throw new ValidationError([
      { path: 'Idempotency-Key', message: `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} visible ASCII characters (a UUID is a good key).` },
    ]);
  }
  return key;
}

/** sha256 of the method, path and body (keys sorted: the same JSON written in another order is the same request). */
function fingerprintOf(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method} ${path}\n`).update(canonicalJson(body)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Another request holds the key (or held it and answered): answer as the draft says. */
function replay(res: Response, stored: Awaited<ReturnType<typeof findKey>>, fingerprint: string, now: Date): void {
  // Gone between our insert and this read (released by a failed first request): the client retries.
  if (!stored || stored.expiresAt <= now) throw new IdempotencyKeyInFlightError();
  if (stored.fingerprint !== fingerprint) throw new IdempotencyKeyReusedError();
  if (stored.status === null || stored.body === null) throw new IdempotencyKeyInFlightError();
  res.status(stored.status).set('Idempotent-Replayed', 'true').type('application/json').send(stored.body);
}

/**
 * Keep the answer of the request that holds the key before it is sent (a retry that arrives right after
 * the answer then finds it), or give the key back when the request failed.
 */
function keepAnswer(res: Response, userId: number, key: string, holder: string, log: Logger): void {
  const send = res.json.bind(res);
  res.json = (body: unknown) => {
    const status = res.statusCode;
    const done = status >= 200 && status < 300 ? completeKey(userId, key, holder, status, JSON.stringify(body)) : releaseKey(userId, key, holder);
    done.then(
      () => send(body),
      (err: unknown) => {
        // The answer goes out anyway; the key then stays in flight until IN_FLIGHT_TIMEOUT_MS.
        log.warn({ err: err instanceof Error ? err.message : String(err) }, 'idempotency key not updated');
        send(body);
      },
    );
    return res;
  };
}
