import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, BadRequestError, PayloadTooLargeError, ServiceUnavailableError, UnsupportedMediaTypeError, type ErrorDetail } from '../errors';
import type { Logger } from '../logger';

export function errorBody(err: AppError) {
  const data: { code: string; message: string; details?: ErrorDetail[] } = { code: err.code, message: err.message };
  if (err.details?.length) data.details = err.details;
  return { type: 'error', data };
}

/** Translate what libraries throw (body-parser, multer, Sequelize, the dice engine) into AppErrors. */
export function toAppError(err: unknown): AppError | null {
  if (err instanceof AppError) return err;
  if (!err || typeof err !== 'object') return null;
  const e = err as { type?: string; code?: string; name?: string; status?: number; message?: string; details?: ErrorDetail[]; field?: string };
  switch (e.type) {
    case 'entity.parse.failed':
      return new BadRequestError('The request body is not valid JSON.', 'malformed_json');
    case 'entity.too.large':
      return new PayloadTooLargeError();
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new UnsupportedMediaTypeError('The request body uses an unsupported encoding or charset.');
  }
  if (e.name === 'MulterError') {
    if (e.code === 'LIMIT_FILE_SIZE' || e.code === 'LIMIT_FIELD_VALUE' || e.code === 'LIMIT_FILE_COUNT' || e.code === 'LIMIT_PART_COUNT') {
      return new PayloadTooLargeError(`The upload is too large (${e.field ? `field "${e.field}": ` : ''}${e.message}).`);
    }
    return new BadRequestError(`The upload is not acceptable: ${e.message}${e.field ? ` (field "${e.field}")` : ''}.`, 'invalid_upload');
  }
  // busboy's own parse errors ("Malformed part header", "Unexpected end of form") reach us through
  // multer, which marks every error it passes on with `storageErrors`: a broken upload, not a bug.
  if (Array.isArray((err as { storageErrors?: unknown }).storageErrors)) {
    return new BadRequestError(`The upload is not well-formed multipart/form-data (${e.message ?? 'unreadable'}).`, 'invalid_upload');
  }
  if (e.name === 'DiceError' && typeof e.status === 'number' && typeof e.code === 'string') {
    return new AppError(e.status, e.code, e.message ?? 'The dice are invalid.', e.details);
  }
  if (e.name === 'SequelizeConnectionError' || e.name === 'SequelizeConnectionRefusedError' || e.name === 'SequelizeConnectionAcquireTimeoutError' || e.name === 'SequelizeHostNotReachableError' || e.name === 'SequelizeConnectionTimedOutError') {
    return new ServiceUnavailableError('The database is unreachable: try again shortly.');
  }
  // The router could not percent-decode a path parameter (`/room/%`): the URL is malformed, not our fault.
  if (err instanceof URIError && e.status === 400) {
    return new BadRequestError('The URL is not valid: a "%" must start an escape such as %20.', 'malformed_url');
  }
  if (typeof e.status === 'number' && e.status >= 400 && e.status < 500 && e.message && (err as { expose?: boolean }).expose) {
    return new AppError(e.status, 'bad_request', e.message);
  }
  return null;
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const appError = toAppError(err);
    if (appError) {
      if (appError.status >= 500) logger.warn({ reqId: req.id, code: appError.code }, appError.message);
      res.status(appError.status).set(appError.headers ?? {}).json(errorBody(appError));
      return;
    }
    logger.error({ reqId: req.id, err, method: req.method, url: req.originalUrl }, 'unhandled error');
    if (res.headersSent) return;
    res.status(500).json({ type: 'error', data: { code: 'internal_error', message: `Something went wrong on our side (request ${req.id}).` } });
  };
}

/** The path as the client sent it (the mount prefix kept, the query left out), for messages. */
const fullPath = (req: Parameters<RequestHandler>[0]) => req.originalUrl.split('?')[0]!.slice(0, 200);

export const notFoundRoute: RequestHandler = (req, res) => {
  res.status(404).json({ type: 'error', data: { code: 'route_not_found', message: `There is no ${req.method} ${fullPath(req)}.` } });
};
