import type { RequestHandler } from 'express';
import { BadRequestError, type ErrorDetail } from '../errors';

/**
 * One rule for every path and query value, before any route reads one: the URL is ASCII with its other
 * characters percent-encoded as UTF-8, and each path segment and query key or value, once decoded,
 * is well-formed text without control characters and of bounded length. What passes can reach a
 * store without harming it: neither database takes U+0000 (PostgreSQL refuses it in text, and
 * Sequelize's SQLite dialect inlines strings into SQL, where it ends the statement), and no value
 * the API knows is longer. The routes' joi schemas then say what each parameter must be.
 *
 * Refused with a 400 `malformed_url` envelope, like a path the router cannot decode.
 */

/** A path segment's longest decoded form, in UTF-8 bytes: slugs, ids and uuids are far shorter. */
export const MAX_PATH_SEGMENT_BYTES = 1024;
/** A query key's or value's longest decoded form: the dice box's `ids` (a comma list) is the longest the API takes. */
export const MAX_QUERY_VALUE_BYTES = 10_000;

/** Printable ASCII without `%`: nothing to decode, nothing to refuse (the hot path's URLs). */
const PLAIN = /^[\x21-\x24\x26-\x7e]*$/;
const PRINTABLE_ASCII = /^[\x21-\x7e]*$/;
// C0 controls and DEL: no parameter of the API holds one, and U+0000 breaks both databases.
const CONTROL = /[\u0000-\u001f\u007f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function refuseMalformedUrls(): RequestHandler {
  return (req, _res, next) => {
    const url = req.url;
    if (url.length <= MAX_PATH_SEGMENT_BYTES && PLAIN.test(url)) return next();
    const problem = urlProblem(url);
    next(problem ? new BadRequestError(`The URL is not acceptable: ${problem.message}`, 'malformed_url', [problem]) : undefined);
  };
}

/** The first thing wrong with a request target (its path and query as sent), or null. */
export function urlProblem(url: string): ErrorDetail | null {
  if (!PRINTABLE_ASCII.test(url)) {
    return { path: 'url', message: 'the URL has a space, a control character or a character outside ASCII; percent-encode them as UTF-8 (%C3%A9 for é).' };
  }
  const mark = url.indexOf('?');
  const path = mark === -1 ? url : url.slice(0, mark);
  for (const segment of path.split('/')) {
    const problem = valueProblem(segment, MAX_PATH_SEGMENT_BYTES, false);
    if (problem) return { path: 'path', message: `a path segment ${problem}` };
  }
  if (mark === -1) return null;
  for (const pair of url.slice(mark + 1).split('&')) {
    const eq = pair.indexOf('=');
    const rawKey = eq === -1 ? pair : pair.slice(0, eq);
    const keyProblem = valueProblem(rawKey, MAX_QUERY_VALUE_BYTES, true);
    if (keyProblem) return { path: 'query', message: `a query parameter's name ${keyProblem}` };
    if (eq === -1) continue;
    const problem = valueProblem(pair.slice(eq + 1), MAX_QUERY_VALUE_BYTES, true);
    if (problem) return { path: `query.${printable(rawKey)}`, message: `the query parameter "${printable(rawKey)}" ${problem}` };
  }
  return null;
}

function valueProblem(raw: string, maxBytes: number, plusIsSpace: boolean): string | null {
  let text = plusIsSpace ? raw.replace(/\+/g, ' ') : raw;
  if (text.includes('%')) {
    try {
      text = decodeURIComponent(text);
    } catch {
      return 'is not valid percent-encoded UTF-8 (a "%" must start an escape such as %20, and escapes must spell UTF-8).';
    }
  }
  // decodeURIComponent refuses encoded surrogates and the ASCII check bars raw ones: kept as the rule's statement.
  if (LONE_SURROGATE.test(text)) return 'is not well-formed Unicode.';
  if (CONTROL.test(text)) return 'holds a control character (such as %00).';
  if (Buffer.byteLength(text, 'utf8') > maxBytes) return `is longer than ${maxBytes} bytes.`;
  return null;
}

/** A name for a message: decoded when possible, cut short. */
function printable(rawKey: string): string {
  let key = rawKey;
  try {
    key = decodeURIComponent(rawKey.replace(/\+/g, ' '));
  } catch {
    /* the raw form then */
  }
  return key.replace(/[^\x20-\x7e]/g, '?').slice(0, 64);
}
