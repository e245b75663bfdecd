import type { RequestHandler } from 'express';
import { UnauthorizedError } from '../errors';
import { authenticate } from '../commands/apiKeys';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The bearer key from a header value, or null. */
export function bearerKey(header: string | undefined): string | null {
  if (!header) return null;
  return BEARER.exec(header)?.[1] ?? null;
}

/** Require `Authorization: Bearer <key>` naming a live key; sets req.user. */
export const auth: RequestHandler = async (req, _res, next) => {
  const key = bearerKey(req.headers.authorization);
  if (!key) return next(new UnauthorizedError());
  const found = await authenticate(key);
  if (!found) return next(new UnauthorizedError('The API key is unknown or has been revoked.'));
  req.user = found.user;
  req.apiKey = found.apiKey;
  next();
};
