import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, BadRequestError, PayloadTooLargeError, ServiceUnavailableError, UnsupportedMediaTypeError, type ErrorDetail } from '../errors';
import { isDatabaseUnavailable } from '../db/errors';
import type { Logger } from '../logger';
import { loggedUrl } from './loggedUrl';

export function errorBody(err: AppError) {
  const data: { code: string; message: string; details?: ErrorDetail[] } = { code: err.code, message: err.message };
  if (err.details?.length) data.details = err.details;
  return { type: 'error', data };
}

const UPLOAD_TOO_LARGE: ReadonlyMap<string, string> = new Map([
  ['LIMIT_FILE_SIZE', 'a file is over its size limit'],
  ['LIMIT_FIELD_VALUE', 'a field is over its size limit'],
  ['LIMIT_FILE_COUNT', 'it has too many files'],
  ['LIMIT_PART_COUNT', 'it has too many parts'],
]);
const UPLOAD_REFUSED: ReadonlyMap<string, string> = new Map([
  ['LIMIT_UNEXPECTED_FILE', 'a file came in a field that takes none'],
  ['LIMIT_FIELD_KEY', 'a field name is too long'],
  ['LIMIT_FIELD_COUNT', 'it has too many fields'],
  ['MISSING_FIELD_NAME', 'a part has no field name'],
]);
const BODY_UNREADABLE: ReadonlyMap<string, string> = new Map([
  ['request.aborted', 'The request body ended before its announced length.'],
  ['request.size.invalid', 'The request body is not as long as its Content-Length says.'],
  ['stream.encoding.set', 'The request body could not be read.'],
  ['parameters.too.many', 'The request has too many parameters.'],
]);

/** Translate what libraries and the storage layer throw (body-parser, multer, db/errors.ts, the dice engine) into AppErrors. */
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
    // Our sentences, by multer's code: an answer never carries a library's or an exception's own text.
    const field = typeof e.field === 'string' ? ` (field "${e.field.slice(0, 100)}")` : '';
    const tooLarge = e.code ? UPLOAD_TOO_LARGE.get(e.code) : undefined;
    if (tooLarge) return new PayloadTooLargeError(`The upload is too large: ${tooLarge}${field}.`);
    return new BadRequestError(
      `The upload is not acceptable: ${(e.code && UPLOAD_REFUSED.get(e.code)) ?? 'a part of it cannot be taken'}${field}.`,
      'invalid_upload',
    );
  }
  // busboy's own parse errors ("Malformed part header", "Unexpected end of form") reach us through
  // multer, which marks every error it passes on with `storageErrors`: a broken upload, not a bug.
  if (Array.isArray((err as { storageErrors?: unknown }).storageErrors)) {
    return new BadRequestError(
      'The upload is not well-formed multipart/form-data: check its boundary, its part headers and that it is complete.',
      'invalid_upload',
    );
  }
  if (e.name === 'DiceError' && typeof e.status === 'number' && typeof e.code === 'string') {
    return new AppError(e.status, e.code, e.message ?? 'The dice are invalid.', e.details);
  }
  if (isDatabaseUnavailable(err)) return new ServiceUnavailableError('The database is unreachable: try again shortly.');
  // The router could not percent-decode a path parameter (`/room/%`): the URL is malformed, not our fault.
  if (err instanceof URIError && e.status === 400) {
    return new BadRequestError('The URL is not valid: a "%" must start an escape such as %20.', 'malformed_url');
  }
  // body-parser's other refusals (http-errors marked `expose`): our sentence by their type, never their text.
  if (typeof e.status === 'number' && e.status >= 400 && e.status < 500 && (err as { expose?: boolean }).expose) {
    return new AppError(e.status, 'bad_request', (e.type && BODY_UNREADABLE.get(e.type)) ?? 'The request could not be read.');
  }
  return null;
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const appError = toAppError(err);
    if (appError) {
      if (appError.status >= 500) logger.warn({ reqId: req.id, code: appError.code }, appError.message);
      res
        .status(appError.status)
        .set(appError.headers ?? {})
        .json(errorBody(appError));
      return;
    }
    logger.error({ reqId: req.id, err, method: req.method, url: loggedUrl(req.originalUrl) }, 'unhandled error');
    if (res.headersSent) return;
    res.status(500).json({ type: 'error', data: { code: 'internal_error', message: `Something went wrong on our side (request ${req.id}).` } });
  };
}

/** The path as the client sent it (the mount prefix kept, the query left out), for messages. */
const fullPath = (req: Parameters<RequestHandler>[0]) => req.originalUrl.split('?')[0]!.slice(0, 200);

export const notFoundRoute: RequestHandler = (req, res) => {
  res.status(404).json({ type: 'error', data: { code: 'route_not_found', message: `There is no ${req.method} ${fullPath(req)}.` } });
};
