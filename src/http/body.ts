import express, { type RequestHandler } from 'express';
import { UnsupportedMediaTypeError } from '../errors';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * JSON bodies only, with two allowances for real clients: a body-less write (the dddice SDK sends
 * `application/x-www-form-urlencoded` with length 0) is `{}`, and multipart passes through to the
 * routes that take uploads (multer there). Anything else with a body is a 415.
 */
export function jsonBody(limit: string): RequestHandler {
  const parse = express.json({ limit, strict: false, type: () => true });
  return (req, res, next) => {
    if (!WRITE_METHODS.has(req.method)) return next();
    const length = req.headers['content-length'];
    if (!req.headers['transfer-encoding'] && (length === undefined || length === '0')) {
      req.body = {};
      return next();
    }
    const type = (req.headers['content-type'] ?? '').toLowerCase();
    if (type.startsWith('multipart/form-data')) return next();
    if (type === '' || type.startsWith('application/json') || /^application\/[\w.+-]*\+json/.test(type)) return parse(req, res, next);
    next(new UnsupportedMediaTypeError());
  };
}
