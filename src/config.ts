import Joi from 'joi';

/** Everything the process reads from its environment, parsed once and frozen. */
export interface Config {
  port: number;
  host: string;
  databaseUrl: string | null;
  /** PostgreSQL connections per pool (each instance has two: the models' and the hot paths'). */
  databasePoolSize: number;
  redisUrl: string | null;
  /**
   * Start of every Redis key and Socket.IO channel this deployment uses, so that two deployments can
   * share one Redis (pub/sub channels are shared by all of a server's databases, so a database
   * number alone does not separate them).
   */
  redisPrefix: string;
  dataDir: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  allowGuests: boolean;
  publicUrl: string | null;
  /** Requests per key (or per address when unauthenticated) per rate window. */
  rateLimitPerMinute: number;
  /** Guest accounts one client address may create per hour. */
  guestsPerHour: number;
  /** Unknown or revoked keys one client address may present per minute before answers turn to 429. */
  authFailuresPerMinute: number;
  jsonBodyLimit: string;
  shutdownTimeoutMs: number;
  trustProxy: boolean;
  /** What one user may hold (src/quotas.ts); past a limit a creation answers 409 quota_exceeded. */
  quotas: Quotas;
}

/** Per-user quotas: each bounds what one key can make the service store, whatever its request rate. */
export interface Quotas {
  /** Live rooms the user owns (ROOMS_PER_USER). */
  roomsOwned: number;
  /** Live rooms of others the user is a participant of (ROOMS_JOINED_PER_USER). */
  roomsJoined: number;
  /** Theme ids the user owns (THEMES_PER_USER). */
  themesOwned: number;
  /** Versions of one theme id (VERSIONS_PER_THEME). */
  versionsPerTheme: number;
  /** Bytes of theme files and room backgrounds the user's themes and live rooms store (ASSET_BYTES_PER_USER). */
  assetBytes: number;
  /** Share requests not revoked, whatever their state (SHARE_REQUESTS_PER_USER). */
  shareRequests: number;
}

/** Sensible for a person (never reached in play), small enough that one key cannot flood the database. */
export const DEFAULT_QUOTAS: Readonly<Quotas> = Object.freeze({
  roomsOwned: 100,
  roomsJoined: 500,
  themesOwned: 100,
  versionsPerTheme: 100,
  assetBytes: 256 * 1024 ** 2,
  shareRequests: 100,
});

const BYTE_UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** A size in bytes: a number of bytes, or a number followed by kb, mb or gb ("256mb"); parsed to bytes. */
const byteSize = Joi.string()
  .trim()
  .custom((value: string, helpers) => {
    const match = /^(\d{1,16})\s*(b|kb|mb|gb)?$/i.exec(value);
    const bytes = match ? Number(match[1]) * BYTE_UNITS[(match[2] ?? 'b').toLowerCase()]! : NaN;
    if (!Number.isSafeInteger(bytes) || bytes < 1) return helpers.message({ custom: 'must be a positive number of bytes, or a number followed by kb, mb or gb, such as 256mb' });
    return bytes;
  });

const quota = (fallback: number) => Joi.number().integer().min(1).max(1_000_000).default(fallback);

const schema = Joi.object({
  PORT: Joi.number().integer().min(0).max(65535).default(3000),
  HOST: Joi.string().default('0.0.0.0'),
  DATABASE_URL: Joi.string()
    .uri({ scheme: ['postgres', 'postgresql'] })
    .empty('')
    .default(null),
  REDIS_URL: Joi.string()
    .uri({ scheme: ['redis', 'rediss'] })
    .empty('')
    .default(null),
  REDIS_PREFIX: Joi.string().pattern(/^[\w.:-]{1,64}$/).default('dice:'),
  DATABASE_POOL_SIZE: Joi.number().integer().min(1).max(500).default(10),
  DATA_DIR: Joi.string().default('./data'),
  LOG_LEVEL: Joi.string()
    .valid('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent')
    .default('info'),
  ALLOW_GUESTS: Joi.boolean().truthy('1', 'yes', 'on').falsy('0', 'no', 'off').default(true),
  PUBLIC_URL: Joi.string().uri({ scheme: ['http', 'https'] }).empty('').default(null),
  RATE_LIMIT_PER_MINUTE: Joi.number().integer().min(1).default(1200),
  GUESTS_PER_HOUR: Joi.number().integer().min(1).default(60),
  AUTH_FAILURES_PER_MINUTE: Joi.number().integer().min(1).default(60),
  JSON_BODY_LIMIT: Joi.string().pattern(/^\d+(b|kb|mb)$/i).default('1mb'),
  SHUTDOWN_TIMEOUT_MS: Joi.number().integer().min(0).default(10000),
  TRUST_PROXY: Joi.boolean().truthy('1', 'yes', 'on').falsy('0', 'no', 'off').default(false),
  ROOMS_PER_USER: quota(DEFAULT_QUOTAS.roomsOwned),
  ROOMS_JOINED_PER_USER: quota(DEFAULT_QUOTAS.roomsJoined),
  THEMES_PER_USER: quota(DEFAULT_QUOTAS.themesOwned),
  VERSIONS_PER_THEME: quota(DEFAULT_QUOTAS.versionsPerTheme),
  ASSET_BYTES_PER_USER: byteSize.default(DEFAULT_QUOTAS.assetBytes),
  SHARE_REQUESTS_PER_USER: quota(DEFAULT_QUOTAS.shareRequests),
}).unknown(true);

export class ConfigError extends Error {}

/** Parse the environment; throws ConfigError with one sentence per bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  const { error, value } = schema.validate(env, { abortEarly: false, convert: true });
  if (error) {
    const sentences = error.details.map((d) => {
      const name = String(d.path[0]);
      return `${name} is invalid (${d.message.replace(/^"[^"]+" /, '')}; got ${JSON.stringify(env[name])}).`;
    });
    throw new ConfigError(`Invalid configuration: ${sentences.join(' ')}`);
  }
  return Object.freeze({
    port: value.PORT,
    host: value.HOST,
    databaseUrl: value.DATABASE_URL,
    databasePoolSize: value.DATABASE_POOL_SIZE,
    redisUrl: value.REDIS_URL,
    redisPrefix: value.REDIS_PREFIX,
    dataDir: value.DATA_DIR,
    logLevel: value.LOG_LEVEL,
    allowGuests: value.ALLOW_GUESTS,
    publicUrl: value.PUBLIC_URL ? String(value.PUBLIC_URL).replace(/\/+$/, '') : null,
    rateLimitPerMinute: value.RATE_LIMIT_PER_MINUTE,
    guestsPerHour: value.GUESTS_PER_HOUR,
    authFailuresPerMinute: value.AUTH_FAILURES_PER_MINUTE,
    jsonBodyLimit: value.JSON_BODY_LIMIT,
    shutdownTimeoutMs: value.SHUTDOWN_TIMEOUT_MS,
    trustProxy: value.TRUST_PROXY,
    quotas: Object.freeze({
      roomsOwned: value.ROOMS_PER_USER,
      roomsJoined: value.ROOMS_JOINED_PER_USER,
      themesOwned: value.THEMES_PER_USER,
      versionsPerTheme: value.VERSIONS_PER_THEME,
      assetBytes: value.ASSET_BYTES_PER_USER,
      shareRequests: value.SHARE_REQUESTS_PER_USER,
    }),
  });
}
