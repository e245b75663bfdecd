import express, { type Request, type RequestHandler } from 'express';
import { UnsupportedMediaTypeError } from '../errors';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * How much of a JSON body is parsed before the request's key is checked. No route before `auth` reads
 * a body (guest creation takes none), so this only has to be generous to clients that send `{}` or a
 * few fields anyway. Parsing is the expensive part: 300 keyless bodies of 949 KB, parsed before `auth`
 * answered 401, held /healthz at 100-200 ms for 9 s (test/hostile/flood.test.ts).
 */
export const UNAUTHENTICATED_BODY_BYTES = 16 * 1024;

/** Set on a request whose body is left for after `auth` (too large, or of unknown length). */
const DEFERRED = Symbol('json body deferred');
type MaybeDeferred = Request & { [DEFERRED]?: boolean };

export interface JsonBody {
  /** Mounted before the routes that need no key: parses bodies up to UNAUTHENTICATED_BODY_BYTES, defers larger ones. */
  beforeAuth: RequestHandler;
  /** Mounted after `auth` and the key's rate limit: parses what was deferred, up to `limit`. */
  afterAuth: RequestHandler;
}

/**
 * JSON bodies only, with two allowances for real clients: a body-less write (the dddice SDK sends
 * `application/x-www-form-urlencoded` with length 0) is `{}`, and multipart passes through to the
 * routes that take uploads (multer there, behind `auth`). Anything else with a body is a 415, told
 * from the headers without reading the body.
 *
 * A body is parsed before the key is checked only when its Content-Length says it is small; a larger
 * one (up to JSON_BODY_LIMIT) or a chunked one is parsed after `auth` accepted the key and the key's
 * rate limit let it through, so that no one without a key makes the service parse megabytes.
 */
export function jsonBody(limit: string): JsonBody {
  const parseSmall = express.json({ limit: UNAUTHENTICATED_BODY_BYTES, strict: false, type: () => true });
  const parseFull = express.json({ limit, strict: false, type: () => true });

  const beforeAuth: RequestHandler = (req, res, next) => {
    if (!WRITE_METHODS.has(req.method)) return next();
    const length = req.headers['content-length'];
    const chunked = Boolean(req.headers['transfer-encoding']);
    if (!chunked && (length === undefined || length === '0')) {
      req.body = {};
      return next();
    }
    const type = (req.headers['content-type'] ?? '').toLowerCase();
    if (type.startsWith('multipart/form-data')) return next();
    if (!(type === '' || type.startsWith('application/json') || /^application\/[\w.+-]*\+json/.test(type))) return next(new UnsupportedMediaTypeError());
    if (!chunked && Number(length) <= UNAUTHENTICATED_BODY_BYTES) return parseSmall(req, res, next);
    (req as MaybeDeferred)[DEFERRED] = true;
    // Refused before its body is read (no key, a bad key, over the key's limit), the connection is
    // closed after the answer instead of kept alive: keeping it would mean reading and discarding the
    // rest of the body. afterAuth takes this back once the body is wanted.
    res.setHeader('Connection', 'close');
    next();
  };

  const afterAuth: RequestHandler = (req, res, next) => {
    if (!(req as MaybeDeferred)[DEFERRED]) return next();
    (req as MaybeDeferred)[DEFERRED] = false;
    res.removeHeader('Connection');
    parseFull(req, res, next);
  };

  return { beforeAuth, afterAuth };
}
