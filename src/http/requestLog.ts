import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from '../logger';
import { loggedUrl } from './loggedUrl';

const SANE_ID = /^[\w.:-]{1,100}$/;

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
      logger[level](
        { reqId: req.id, method: req.method, url: loggedUrl(req.originalUrl), status: res.statusCode, ms: Math.round(ms * 10) / 10, user: req.user?.uuid },
        'request',
      );
    });
    next();
  };
}
