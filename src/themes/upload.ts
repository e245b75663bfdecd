import type { Request, RequestHandler } from 'express';
import multer from 'multer';
import { PayloadTooLargeError, UnsupportedMediaTypeError, type ErrorDetail } from '../errors';
import type { ThemeUpload } from './publish';
import { multipart } from '../http/multipart';
import { MAX_ASSET_BYTES, MAX_ASSETS, MAX_TEXT_BYTES, MAX_THEME_BYTES } from './manifest/limits';

const TEXT_FIELDS = { manifest: 'manifest', frag_shader: 'fragShader', vert_shader: 'vertShader' } as const;
type TextField = keyof typeof TEXT_FIELDS;
const ASSET_FIELD = /^assets(?:\[\d*\])?$/;
const mib = (bytes: number) => `${bytes / 1024 / 1024} MiB`;

/** Bytes received so far per request, across all its files. */
const received = new WeakMap<Request, number>();

/**
 * Files are kept in memory (they go to the database), with a running total per request so that a theme
 * over MAX_THEME_BYTES is refused while it streams in, not after.
 */
const memoryWithTotal: multer.StorageEngine = {
  _handleFile(req, file, cb) {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    file.stream.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      const total = (received.get(req) ?? 0) + chunk.length;
      received.set(req, total);
      if (total > MAX_THEME_BYTES) {
        failed = true;
        file.stream.resume();
        cb(new PayloadTooLargeError(`The files of one theme version may total ${mib(MAX_THEME_BYTES)} at most.`));
        return;
      }
      chunks.push(chunk);
    });
    file.stream.on('error', (err) => {
      if (failed) return;
      failed = true;
      cb(err);
    });
    file.stream.on('end', () => {
      if (!failed) cb(null, { buffer: Buffer.concat(chunks, size), size });
    });
  },
  _removeFile(_req, file, cb) {
    (file as Partial<Express.Multer.File>).buffer = undefined;
    cb(null);
  },
};

const parser = multipart(
  multer({
    storage: memoryWithTotal,
    // utf8: browsers send file names as raw UTF-8 in Content-Disposition.
    defParamCharset: 'utf8',
    // Keep the name as sent, so that one with folder parts is refused rather than silently cut down.
    preservePath: true,
    limits: {
      fileSize: MAX_ASSET_BYTES,
      files: MAX_ASSETS + 3,
      fields: 20,
      fieldSize: MAX_TEXT_BYTES,
      fieldNameSize: 100,
      parts: MAX_ASSETS + 23,
      headerPairs: 20,
    },
  }).any(),
);

/** Parse `multipart/form-data` (a 415 for anything else); the handler then calls `themeUpload(req)`. */
export const parseThemeForm: RequestHandler = (req, res, next) => {
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  if (!type.startsWith('multipart/form-data')) {
    return next(new UnsupportedMediaTypeError('Create themes with a multipart/form-data body: a "manifest" field (JSON) and the "assets" files.'));
  }
  // busboy's own errors (a cut or malformed body, no boundary) are the client's: a 400, never a 500.
  void parser(req, res, next);
};

/** The parsed form as the command takes it. Text fields may also arrive as files (a Blob of JSON). */
export function themeUpload(req: Request): ThemeUpload {
  const problems: ErrorDetail[] = [];
  const upload: ThemeUpload = { assets: [], problems };
  const body = (req.body ?? {}) as Record<string, unknown>;
  const setText = (field: TextField, value: unknown) => {
    const key = TEXT_FIELDS[field];
    if (upload[key] !== undefined || Array.isArray(value)) {
      problems.push({ path: field, message: `${field} must be sent once` });
      return;
    }
    if (typeof value === 'string') upload[key] = value;
  };
  for (const field of Object.keys(TEXT_FIELDS) as TextField[]) if (body[field] !== undefined) setText(field, body[field]);
  const files = (req.files ?? []) as Express.Multer.File[];
  for (const file of files) {
    if (ASSET_FIELD.test(file.fieldname)) upload.assets.push({ name: file.originalname, data: file.buffer });
    else if (Object.hasOwn(TEXT_FIELDS, file.fieldname)) {
      if (file.size > MAX_TEXT_BYTES) throw new PayloadTooLargeError(`${file.fieldname} may be ${MAX_TEXT_BYTES / 1024} KiB at most.`);
      setText(file.fieldname as TextField, file.buffer.toString('utf8'));
    } else problems.push({ path: file.fieldname, message: `unexpected file field "${file.fieldname}": send files in "assets"` });
  }
  return upload;
}
