import type { RequestHandler } from 'express';
import type Joi from 'joi';
import { UnsupportedMediaTypeError, ValidationError, type ErrorDetail } from '../errors';
import { jsonShapeProblem } from './jsonShape';

export interface RequestSchema {
  params?: Joi.Schema;
  query?: Joi.Schema;
  body?: Joi.Schema;
  /**
   * A cheaper check of the body, tried first: the value joi would answer for a body it can prove valid,
   * or undefined to let joi decide (so every error answer stays joi's).
   */
  bodyFastPath?: (body: unknown) => unknown;
}

/** `dice[0].type` from joi's path array. */
export function formatPath(path: (string | number)[], prefix = ''): string {
  let out = prefix;
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : out ? `.${part}` : part;
  return out;
}

export function joiDetails(error: Joi.ValidationError, prefix = ''): ErrorDetail[] {
  return error.details.map((d) => {
    const path = formatPath(d.path, prefix);
    // `any.custom` is what joi reports when a custom rule *throws*: its message carries the exception's
    // text ("failed custom validation because ..."), which is ours, not the client's, to read.
    if (d.type === 'any.custom') return { path, message: `${path || 'value'} is not valid` };
    return { path, message: d.message.replace(/^"[^"]*"/, path || 'value') };
  });
}

const options = {
  params: { abortEarly: false, convert: true, stripUnknown: false },
  query: { abortEarly: false, convert: true, stripUnknown: true },
  // Bodies are JSON: a string where a number belongs is a mistake worth reporting (no coercion).
  // Unknown fields are dropped, never an error: real clients send extras (docs/architecture.md, Wire conventions).
  body: { abortEarly: false, convert: false, stripUnknown: true },
} as const;

/**
 * Validate params, query and body against joi schemas (compiled once, at route definition),
 * reporting every bad field in one 400, and replace them with the validated values.
 */
export function validate(schema: RequestSchema, bodyOptions: Partial<Joi.ValidationOptions> = {}): RequestHandler {
  return (req, _res, next) => {
    const details: ErrorDetail[] = [];
    for (const part of ['params', 'query', 'body'] as const) {
      const s = schema[part];
      if (!s) continue;
      if (part === 'body' && req.body === undefined) return next(new UnsupportedMediaTypeError());
      // Before joi, which recurses: a value nested thousands deep would overflow its stack.
      if (part === 'body') {
        const problem = jsonShapeProblem(req.body);
        if (problem) return next(new ValidationError([problem]));
        const fast = schema.bodyFastPath?.(req.body);
        if (fast !== undefined) {
          req.body = fast;
          continue;
        }
      }
      const { error, value } = s.validate(req[part] ?? {}, { ...options[part], ...(part === 'body' ? bodyOptions : {}) }) as {
        error?: Joi.ValidationError;
        value: unknown;
      };
      if (error) details.push(...joiDetails(error, part === 'body' ? '' : part));
      // Express 5 exposes req.query as a getter: shadow it with the validated value.
      else if (part === 'query') Object.defineProperty(req, 'query', { value, writable: true, configurable: true });
      else req[part] = value;
    }
    if (!details.length) {
      for (const part of ['params', 'query', 'body'] as const) {
        const where = schema[part] ? nulPath(req[part], part === 'body' ? '' : part) : null;
        if (where !== null) details.push({ path: where, message: `${where || 'value'} must not contain the NUL character (\\u0000)` });
      }
    }
    if (details.length) return next(new ValidationError(details));
    next();
  };
}

/**
 * The path of the first string holding U+0000, or null. Neither database takes it: PostgreSQL refuses
 * it in text, and Sequelize's SQLite dialect inlines strings into SQL, where it ends the statement.
 */
function nulPath(value: unknown, path: string, depth = 0): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (!value || typeof value !== 'object' || depth > 64) return null;
  for (const [k, v] of Object.entries(value)) {
    const found = nulPath(v, Array.isArray(value) ? `${path}[${k}]` : path ? `${path}.${k}` : k, depth + 1);
    if (found !== null) return found;
  }
  return null;
}
