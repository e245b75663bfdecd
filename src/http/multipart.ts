import type { RequestHandler } from 'express';
import { AppError, BadRequestError } from '../errors';

/**
 * A multer middleware whose every failure that is not ours becomes a 400 `invalid_upload`. busboy
 * refuses some bodies by throwing synchronously, before multer can pass an error on (a
 * multipart/form-data header without a boundary), and passes others to the callback (a cut or
 * malformed body): both are the client's mistake, never a 500. Size limits stay multer's errors
 * (the error handler makes them 413s).
 */
export function multipart(middleware: RequestHandler): RequestHandler {
  // Not the error's own text: whatever threw (busboy, or anything else) is not the client's to read.
  const refuse = () => new BadRequestError('The multipart body is malformed: check its boundary, its part headers and that it is complete.', 'invalid_upload');
  return (req, res, next) => {
    const done = (err?: unknown) => {
      if (err && !(err instanceof AppError) && (err as Error).name !== 'MulterError') return next(refuse());
      next(err);
    };
    try {
      void middleware(req, res, done);
    } catch (err) {
      done(err);
    }
  };
}
