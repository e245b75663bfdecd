import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from '../logger';

const SANE_ID = /^[\w.:-]{1,100}$/;

/**
 * Query parameters whose values are secrets, as some clients send them: a room's passcode
 * (`?passcode=`), and the API key dddice's integrations put in the stream address
 * (`/room/{slug}/stream?key=`). A name is compared once percent-decoded and lower-cased (and without a
 * `[...]` suffix), the way the query parsers read it, so no spelling of it slips into a log line.
 */
const SECRET_PARAMS = new Set(['passcode', 'key', 'api_key', 'apikey', 'token', 'secret']);

function paramName(raw: string): string {
  let name = raw.replace(/\+/g, ' ');
  try {
    name = decodeURIComponent(name);
  } catch {
    // A malformed escape: compared as written.
  }
  return name.split('[')[0]!.trim().toLowerCase();
}

/** A URL as it may be logged: the values of the secret query parameters above replaced by `[redacted]`. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const parts = url.slice(q + 1).split('&').map((part) => {
    const eq = part.indexOf('=');
    const raw = eq < 0 ? part : part.slice(0, eq);
    return eq >= 0 && SECRET_PARAMS.has(paramName(raw)) ? `${raw}=[redacted]` : part;
  });
  return `${url.slice(0, q + 1)}${parts.join('&')}`;
}

/** Give every request an id (echoed as X-Request-Id) and log one line when it finishes. */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const given = req.headers['x-request-id'];
    req.id = typeof given === 'string' && SANE_ID.test(given) ? given : randomUUID();
    res.setHeader('X-Request-Id', req.id);
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      const level = res.statusCode >= 500 ? 'error' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      logger[level]({ reqId: req.id, method: req.method, url: redactUrl(req.originalUrl), status: res.statusCode, ms: Math.round(ms * 10) / 10, user: req.user?.uuid }, 'request');
    });
    next();
  };
}
