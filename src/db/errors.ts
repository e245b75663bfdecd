/**
 * Storage errors that know nothing of HTTP: the stores and the SQL helpers throw these, and
 * src/http/errorHandler.ts maps them to answers (unreachable: 503; a unique index: the use case
 * decides, usually 409).
 */

/** The database cannot be reached (connection refused, dropped, timed out, too many clients). */
export class DatabaseUnavailableError extends Error {
  constructor(cause?: unknown) {
    super('database unavailable', { cause });
    this.name = 'DatabaseUnavailableError';
  }
}

/** A unique index refused a row (both dialects). */
export class UniqueViolationError extends Error {
  constructor(cause: unknown) {
    super('unique constraint violated', { cause });
    this.name = 'UniqueViolationError';
  }
}

const SEQUELIZE_CONNECTION_ERRORS = new Set([
  'SequelizeConnectionError',
  'SequelizeConnectionRefusedError',
  'SequelizeConnectionAcquireTimeoutError',
  'SequelizeHostNotReachableError',
  'SequelizeConnectionTimedOutError',
]);

/** Whether `err` is the database being away, whichever driver or layer threw it. */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (err instanceof DatabaseUnavailableError) return true;
  const name = (err as { name?: unknown } | null)?.name;
  return typeof name === 'string' && SEQUELIZE_CONNECTION_ERRORS.has(name);
}

/**
 * A Sequelize write, its unique-index refusal (both dialects) turned into UniqueViolationError: the one
 * translator the stores share (plain SQL translates in db/sql.ts).
 */
export async function uniquely<T>(write: Promise<T> | (() => Promise<T>)): Promise<T> {
  try {
    return await (typeof write === 'function' ? write() : write);
  } catch (err) {
    if ((err as Error | null)?.name === 'SequelizeUniqueConstraintError') throw new UniqueViolationError(err);
    throw err;
  }
}
