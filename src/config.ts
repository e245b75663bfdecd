import { QUOTA_VARIABLES, quotasFrom, type Quotas } from './quotaConfig';
import { WEBHOOK_VARIABLES, webhookConfigFrom, type WebhookConfig } from './webhookConfig';
import Joi from 'joi';
import { randomBytes } from 'node:crypto';
import { DEFAULT_ALLOWED_HOSTS, HOST_PATTERN } from './hostsConfig';
import { parseTrustProxy, type TrustProxy } from './trustProxyConfig';

/** Longest time an entry of any of the hot paths' caches may live (CACHE_TTL_MS, src/lib/invalidation.ts); 0 turns caching off. */
export const MAX_CACHE_TTL_MS = 10_000;
import { BUILT_IN_THEME_IDS } from './themes/defaultTheme';

/** Everything the process reads from its environment, parsed once and frozen. */
export interface Config {
  port: number;
  host: string;
  databaseUrl: string | null;
  /** PostgreSQL connections per pool (each instance has two: the models' and the hot paths'). */
  databasePoolSize: number;
  redisUrl: string | null;
  /**
   * The seed nodes of a Redis Cluster (REDIS_CLUSTER_NODES), instead of REDIS_URL: the client learns
   * the rest of the cluster from them. Null without a cluster.
   */
  redisClusterNodes: readonly RedisNode[] | null;
  /**
   * Start of every Redis key and Socket.IO channel this deployment uses, so that two deployments can
   * share one Redis (pub/sub channels are shared by all of a server's databases, so a database
   * number alone does not separate them).
   */
  redisPrefix: string;
  /**
   * How Socket.IO travels between instances (src/realtime/transport/pubsubMode.ts): `sharded` (Redis 7 sharded
   * pub/sub, cost per event independent of the live rooms), `classic` (pattern subscriptions, for
   * Redis < 7), or `auto`: sharded when the server is Redis 7 or newer.
   */
  redisPubsub: 'auto' | 'sharded' | 'classic';
  dataDir: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** What one user may hold (quotaConfig.ts, users/quotas.ts); past a limit a creation answers 409 quota_exceeded. */
  quotas: Readonly<Quotas>;
  /** Webhook delivery (webhookConfig.ts, docs/webhooks.md). */
  webhooks: Readonly<WebhookConfig>;
  allowGuests: boolean;
  /** Whether /signup makes accounts (the operators' CLI always can). */
  allowSignup: boolean;
  /** Wrong passwords per account per hour on the sign-in page, then 429 (accounts/signInAttempts.ts). */
  signinFailuresPerHour: number;
  /** Wrong passwords per client address per hour, across every username it tries. */
  signinAddressFailuresPerHour: number;
  /** Activation codes (POST /api/1.0/activate) one client address may ask for per hour (src/activation). */
  activationsPerHour: number;
  /** Codes typed at /activate that match no code, per account per hour, then 429. */
  activationFailuresPerHour: number;
  /** The same per client address, across the accounts it uses. */
  activationAddressFailuresPerHour: number;
  publicUrl: string | null;
  /**
   * Hosts (name or name:port) whose Host header may stand in stored links when PUBLIC_URL is not set
   * (src/http/origin.ts); by default the loopback names.
   */
  allowedHosts: readonly string[];
  /** Requests per key (or per address when unauthenticated) per rate window. */
  rateLimitPerMinute: number;
  /**
   * The largest block of points one instance reserves at once in the shared (Redis) rate-limit counter
   * and spends locally (src/http/rateLimitLeases.ts); 1 counts every request in Redis.
   */
  rateLimitLeaseMax: number;
  /** Guest accounts one client address may create per hour. */
  guestsPerHour: number;
  /** Unknown or revoked keys one client address may present per minute before answers turn to 429. */
  authFailuresPerMinute: number;
  /** Wrong passcodes one user may give for one room per hour before answers turn to 429. */
  passcodeFailuresPerHour: number;
  /** Largest JSON body of an authenticated request; bodies without a valid key are read only up to UNAUTHENTICATED_BODY_LIMIT (http/body.ts). */
  jsonBodyLimit: string;
  /** Largest Socket.IO packet a client may send (Socket.IO's maxHttpBufferSize); a bigger one closes its connection. */
  socketMaxPacketBytes: number;
  /** Bytes per second one Socket.IO connection may send on average (bursts of 1 s, or two of the largest packets); past it the connection is closed. */
  socketBytesPerSecond: number;
  /**
   * Bytes the server may hold for one connection (Socket.IO or Pusher) that it has not yet been able to
   * write out, because the client reads slower than it is sent to; past it the connection is closed
   * (src/realtime/connection/slowReaders.ts), so a client that stops reading costs at most this much memory.
   */
  socketMaxBufferedBytes: number;
  shutdownTimeoutMs: number;
  /** With Redis: how long an instance may stay silent before the others count its sockets out (realtime/connection/presence.ts). */
  presenceTtlMs: number;
  /**
   * How long an idle keep-alive connection stays open (src/lib/httpKeepAlive.ts): longer than any load
   * balancer in front keeps one, so that it is always the balancer that closes an idle connection.
   */
  httpKeepAliveTimeoutMs: number;
  /** Which proxies in front of the service may say who the client is (http/clientAddress.ts). */
  trustProxy: TrustProxy;
  /**
   * How often each instance re-checks that its open sockets may still hear their rooms (key not
   * revoked, still a participant, room not deleted): the bound on how long a missed eviction lasts.
   */
  realtimeRevalidateMs: number;
  /**
   * Realtime event blocks an instance keeps while Redis is away, to send again once it answers; past
   * it they are dropped and their rooms resynced (src/realtime/transport/redisBroadcaster.ts).
   */
  realtimeMaxKeptBlocks: number;
  /**
   * A roll committed but not announced after this long (its instance died between the two) is
   * announced by another instance's outbox sweep, run every `outboxSweepMs` (src/outbox).
   */
  outboxGraceMs: number;
  outboxSweepMs: number;
  /**
   * How long an entry of the in-process caches (API key -> user, a room as rolls see it, dice-box
   * pins) lives: the bound on a stale answer when an invalidation push is lost (lib/invalidation.ts).
   * 0 turns the caches off.
   */
  cacheTtlMs: number;
  /** Origins whose pages may call the REST API (CORS); null: any origin. */
  corsOrigins: readonly string[] | null;
  /**
   * Sites that may show the dice board (`/board/{slug}`) in a frame besides this server's own pages
   * (FRAME_ANCESTORS, CSP `frame-ancestors` sources); null: any site. The overlay is framable by any.
   */
  frameAncestors: readonly string[] | null;
  /** Bearer token that opens GET /metrics on the main port; null: not served there. */
  metricsToken: string | null;
  /** A listener of its own for GET /metrics (no token); null: none. Metrics are collected when either is set. */
  metricsPort: number | null;
  /** The Pusher-protocol gateway for the stock dddice SDK (src/realtime/pusher/, docs/sdk.md). */
  pusher: Readonly<PusherConfig>;
  /**
   * What a roll naming a theme its roller may not roll with uses instead (UNKNOWN_THEME): a built-in
   * theme's id, whose look it rolls in (the values' `theme` says so); null refuses it (422 unknown_theme).
   */
  unknownTheme: string | null;
}

export interface RedisNode {
  host: string;
  port: number;
}

export interface PusherConfig {
  /** App keys accepted at /app/{key} besides the SDK's built-in one (PUSHER_APP_KEYS). */
  appKeys: readonly string[];
  /** Signs channel authorisations; shared by every instance (PUSHER_APP_SECRET). */
  secret: string;
  /** True when no PUSHER_APP_SECRET was given and one was generated (the embedded shape only). */
  secretGenerated: boolean;
  /** Seconds of silence before either side pings (sent to clients in the handshake). */
  activityTimeoutS: number;
  /** Client events (dragged dice) one connection may send per second. */
  clientEventsPerSecond: number;
}

/**
 * CORS_ORIGINS: `*` or empty for any origin, else comma-separated origins as browsers send them in
 * `Origin` (`https://app.example.com`, `http://localhost:8080`): a scheme, a host, an optional port,
 * nothing after (a trailing slash is forgiven). Answers the list, or an error message for joi.
 */
function parseOrigins(value: string): string[] | null | { error: string } {
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!items.length || (items.length === 1 && items[0] === '*')) return null;
  const origins: string[] = [];
  for (const item of items) {
    let url: URL | null;
    try {
      url = new URL(item);
    } catch {
      url = null;
    }
    const origin = url && /^https?:$/.test(url.protocol) ? url.origin : null;
    if (!origin || item.replace(/\/$/, '').toLowerCase() !== origin)
      return { error: `each entry must be an origin such as https://app.example.com (a scheme, a host, an optional port, no path), not "${item}"` };
    origins.push(origin);
  }
  return origins;
}

/**
 * FRAME_ANCESTORS: `*` alone for any site, else origins (`https://vtt.example.com`, a port allowed) or
 * every subdomain of one (`https://*.example.com`), separated by commas or spaces. Each entry becomes a
 * source of the board page's CSP `frame-ancestors`, so it is held to that shape strictly: a quote, a
 * semicolon or a path would change the policy's meaning. Answers the list (null: any site), or an error
 * message for joi.
 */
function parseFrameAncestors(value: string): string[] | null | { error: string } {
  const items = value.split(/[\s,]+/).filter(Boolean);
  if (items.length === 1 && items[0] === '*') return null;
  const sources: string[] = [];
  for (const item of items) {
    const match = /^(https?):\/\/(\*\.)?([a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(:\d{1,5})?\/?$/i.exec(item);
    if (!match || Number(match[4]?.slice(1) ?? 1) > 65535)
      return {
        error: `each entry must be an origin such as https://vtt.example.com, or https://*.example.com for its subdomains (a scheme, a host, an optional port, no path), or * alone for any site; "${item}" is not one`,
      };
    sources.push(`${match[1]!.toLowerCase()}://${match[2] ?? ''}${match[3]!.toLowerCase()}${match[4] ?? ''}`);
  }
  return sources;
}

/**
 * REDIS_CLUSTER_NODES: `host:port` entries, comma-separated (IPv6 hosts in brackets: `[::1]:7000`).
 * Answers the nodes, or an error message for joi.
 */
function parseClusterNodes(value: string): RedisNode[] | { error: string } {
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const nodes: RedisNode[] = [];
  for (const item of items) {
    const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(item);
    const port = match ? Number(match[2]) : 0;
    if (!match || port < 1 || port > 65535) return { error: `each entry must be host:port, comma-separated ("${item}" is not one)` };
    nodes.push({ host: match[1]!.replace(/^\[|\]$/g, ''), port });
  }
  if (!nodes.length) return { error: 'must name at least one node as host:port' };
  return nodes;
}

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
  REDIS_CLUSTER_NODES: Joi.string()
    .empty('')
    .default(null)
    .custom((value: string, helpers) => {
      const parsed = parseClusterNodes(value);
      return 'error' in parsed ? helpers.message({ custom: parsed.error }) : parsed;
    }),
  REDIS_PREFIX: Joi.string()
    .pattern(/^[\w.:-]{1,64}$/)
    .default('dice:'),
  REDIS_PUBSUB: Joi.string().lowercase().valid('auto', 'sharded', 'classic').empty('').default('auto'),
  DATABASE_POOL_SIZE: Joi.number().integer().min(1).max(500).default(10),
  DATA_DIR: Joi.string().default('./data'),
  LOG_LEVEL: Joi.string().valid('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent').default('info'),
  ...QUOTA_VARIABLES,
  ALLOW_GUESTS: Joi.boolean().truthy('1', 'yes', 'on').falsy('0', 'no', 'off').default(true),
  ALLOW_SIGNUP: Joi.boolean()
    .truthy('1', 'yes', 'on')
    .falsy('0', 'no', 'off')
    .default(true)
    .messages({ 'boolean.base': 'must be true or false (also 1/0, yes/no, on/off)' }),
  SIGNIN_FAILURES_PER_HOUR: Joi.number().integer().min(1).max(1000).default(10),
  SIGNIN_ADDRESS_FAILURES_PER_HOUR: Joi.number().integer().min(1).max(100000).default(100),
  ACTIVATIONS_PER_HOUR: Joi.number().integer().min(1).max(100000).default(30),
  ACTIVATION_FAILURES_PER_HOUR: Joi.number().integer().min(1).max(1000).default(10),
  ACTIVATION_ADDRESS_FAILURES_PER_HOUR: Joi.number().integer().min(1).max(100000).default(50),
  // Bounded so that a stored link (origin + a background's path) fits its column (rooms.bg_file_path, 512).
  PUBLIC_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .max(200)
    .empty('')
    .default(null),
  ALLOWED_HOSTS: Joi.string()
    .custom((value: string, helpers) => {
      const hosts = value
        .split(',')
        .map((h) => h.trim())
        .filter(Boolean);
      const bad = hosts.find((h) => !HOST_PATTERN.test(h) || h.length > 261);
      if (bad !== undefined) return helpers.message({ custom: `must be host names or host:port, comma-separated ("${bad}" is not one)` });
      return hosts;
    })
    .empty('')
    .default([...DEFAULT_ALLOWED_HOSTS]),
  RATE_LIMIT_PER_MINUTE: Joi.number().integer().min(1).default(1200),
  RATE_LIMIT_LEASE_MAX: Joi.number().integer().min(1).max(10_000).default(64),
  GUESTS_PER_HOUR: Joi.number().integer().min(1).default(60),
  AUTH_FAILURES_PER_MINUTE: Joi.number().integer().min(1).default(60),
  PASSCODE_FAILURES_PER_HOUR: Joi.number().integer().min(1).default(20),
  JSON_BODY_LIMIT: Joi.string()
    .pattern(/^\d+(b|kb|mb)$/i)
    .default('1mb'),
  SOCKET_MAX_PACKET_BYTES: Joi.number()
    .integer()
    .min(1024)
    .max(100 * 1024 * 1024)
    .default(16 * 1024),
  SOCKET_BYTES_PER_SECOND: Joi.number()
    .integer()
    .min(1024)
    .default(64 * 1024),
  // At least the largest burst a reading client is sent at once (a welcome of a 1,000-participant room
  // is about 430 KiB, then up to 500 replayed rolls); at most 1 GiB, which no client needs queued.
  SOCKET_MAX_BUFFERED_BYTES: Joi.number()
    .integer()
    .min(256 * 1024)
    .max(1024 * 1024 * 1024)
    .default(4 * 1024 * 1024)
    .messages({
      'number.base': 'must be a whole number of bytes',
      'number.integer': 'must be a whole number of bytes',
      'number.min': 'must be at least 262144 bytes (256 KiB): less would close clients that read at a normal pace while a room is welcomed',
      'number.max': 'must be at most 1073741824 bytes (1 GiB): it bounds the memory one slow client may hold',
    }),
  SHUTDOWN_TIMEOUT_MS: Joi.number().integer().min(0).default(10000),
  // An instance silent this long is dead and the others count its sockets out; it beats three times
  // in that span. Below 3 s a busy event loop could miss a beat and be reaped while alive.
  PRESENCE_TTL_MS: Joi.number().integer().min(3000).max(600_000).default(30_000),
  // Whole seconds from 1 s: Node advertises `Keep-Alive: timeout=<seconds, rounded down>`, and a client
  // told 0 does not reuse the connection. Up to an hour (GCP's load balancer keeps 600 s).
  HTTP_KEEP_ALIVE_TIMEOUT_MS: Joi.number().integer().min(1000).max(3_600_000).default(65_000),
  // A hop count or the proxies' addresses; `true` (trust every hop) is refused with a sentence saying why.
  TRUST_PROXY: Joi.string()
    .empty('')
    .default(() => ({ hops: 0 }))
    .custom((value: string, helpers) => {
      try {
        return parseTrustProxy(value);
      } catch (err) {
        return helpers.message({ custom: (err as Error).message });
      }
    }),
  REALTIME_REVALIDATE_MS: Joi.number().integer().min(100).max(3_600_000).default(30_000),
  REALTIME_MAX_KEPT_BLOCKS: Joi.number().integer().min(0).max(1_000_000).default(5000),
  ...WEBHOOK_VARIABLES,
  OUTBOX_GRACE_MS: Joi.number().integer().min(100).max(3_600_000).default(10_000),
  OUTBOX_SWEEP_MS: Joi.number().integer().min(100).max(3_600_000).default(5000),
  CACHE_TTL_MS: Joi.number().integer().min(0).max(MAX_CACHE_TTL_MS).default(5000),
  CORS_ORIGINS: Joi.string()
    .empty('')
    .default(null)
    .custom((value: string, helpers) => {
      const parsed = parseOrigins(value);
      return parsed && 'error' in parsed ? helpers.message({ custom: parsed.error }) : parsed;
    }),
  FRAME_ANCESTORS: Joi.string()
    .empty('')
    .default(() => [])
    .custom((value: string, helpers) => {
      const parsed = parseFrameAncestors(value);
      return parsed && 'error' in parsed ? helpers.message({ custom: parsed.error }) : parsed;
    }),
  // Long enough not to be guessed over HTTP, and printable (it travels in a header).
  METRICS_TOKEN: Joi.string()
    .min(16)
    .max(256)
    .pattern(/^[\x21-\x7e]+$/, 'printable ASCII without spaces')
    .empty('')
    .default(null),
  METRICS_PORT: Joi.number().integer().min(0).max(65535).empty('').default(null),
  PUSHER_APP_KEYS: Joi.string()
    .custom((value: string, helpers) => {
      const keys = value
        .split(',')
        .map((k) => k.trim())
        .filter(Boolean);
      const bad = keys.find((k) => !/^[\w-]{1,128}$/.test(k));
      if (bad !== undefined) return helpers.message({ custom: `must be app keys (letters, digits, _ and -), comma-separated ("${bad}" is not one)` });
      return keys;
    })
    .empty('')
    .default([]),
  PUSHER_APP_SECRET: Joi.string()
    .min(16)
    .max(256)
    .pattern(/^[\x21-\x7e]+$/, 'printable ASCII without spaces')
    .empty('')
    .default(null),
  PUSHER_ACTIVITY_TIMEOUT: Joi.number().integer().min(1).max(120).default(30),
  PUSHER_CLIENT_EVENTS_PER_SECOND: Joi.number().integer().min(1).max(1000).default(10),
  UNKNOWN_THEME: Joi.string()
    .valid(...BUILT_IN_THEME_IDS)
    .empty('')
    .default(null)
    .messages({
      'any.only': `must be the id of a built-in theme (${BUILT_IN_THEME_IDS.join(', ')}), whose look a roll with an unknown theme id then takes, or empty to refuse such rolls with a 422`,
    }),
}).unknown(true);

export class ConfigError extends Error {}

const SECRETS = new Set(['METRICS_TOKEN', 'PUSHER_APP_SECRET']);

/** Parse the environment; throws ConfigError with one sentence per bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  const { error, value } = schema.validate(env, { abortEarly: false, convert: true });
  if (error) {
    const sentences = error.details.map((d) => {
      const name = String(d.path[0]);
      // A secret is not echoed to the terminal and the logs: its length says enough.
      const got = SECRETS.has(name) ? `${String(env[name]).length} characters` : JSON.stringify(env[name]);
      return `${name} is invalid (${d.message.replace(/^"[^"]+" /, '')}; got ${got}).`;
    });
    throw new ConfigError(`Invalid configuration: ${sentences.join(' ')}`);
  }
  // Port 0 (any free port, for tests) twice is fine: each listener gets its own.
  if (value.METRICS_PORT !== null && value.METRICS_PORT !== 0 && value.METRICS_PORT === value.PORT) {
    throw new ConfigError(
      `Invalid configuration: METRICS_PORT is invalid (must differ from PORT, ${value.PORT}, or metrics would take the API's port; got ${JSON.stringify(env.METRICS_PORT)}).`,
    );
  }
  // One Redis or one cluster: both named is a mistake to point out, not a choice to make silently.
  if (value.REDIS_URL && value.REDIS_CLUSTER_NODES) {
    throw new ConfigError(
      'Invalid configuration: REDIS_URL and REDIS_CLUSTER_NODES are both set (set REDIS_URL for one Redis server, or REDIS_CLUSTER_NODES for a Redis Cluster, not both).',
    );
  }
  // Instances behind one load balancer must share the secret: an authorisation signed by one is
  // checked by whichever holds the websocket. One process alone may make its own.
  const shared = value.REDIS_URL ? 'REDIS_URL' : value.REDIS_CLUSTER_NODES ? 'REDIS_CLUSTER_NODES' : null;
  if (shared && !value.PUSHER_APP_SECRET) {
    throw new ConfigError(
      `Invalid configuration: PUSHER_APP_SECRET is required with ${shared} (every instance must sign and check Pusher channel authorisations with the same secret; set at least 16 random characters, the same on every instance).`,
    );
  }
  return Object.freeze({
    port: value.PORT,
    host: value.HOST,
    databaseUrl: value.DATABASE_URL,
    databasePoolSize: value.DATABASE_POOL_SIZE,
    redisUrl: value.REDIS_URL,
    redisClusterNodes: value.REDIS_CLUSTER_NODES ? Object.freeze((value.REDIS_CLUSTER_NODES as RedisNode[]).map((n) => Object.freeze({ ...n }))) : null,
    redisPrefix: value.REDIS_PREFIX,
    redisPubsub: value.REDIS_PUBSUB,
    dataDir: value.DATA_DIR,
    logLevel: value.LOG_LEVEL,
    quotas: quotasFrom(value),
    webhooks: webhookConfigFrom(value),
    allowGuests: value.ALLOW_GUESTS,
    allowSignup: value.ALLOW_SIGNUP,
    signinFailuresPerHour: value.SIGNIN_FAILURES_PER_HOUR,
    signinAddressFailuresPerHour: value.SIGNIN_ADDRESS_FAILURES_PER_HOUR,
    activationsPerHour: value.ACTIVATIONS_PER_HOUR,
    activationFailuresPerHour: value.ACTIVATION_FAILURES_PER_HOUR,
    activationAddressFailuresPerHour: value.ACTIVATION_ADDRESS_FAILURES_PER_HOUR,
    publicUrl: value.PUBLIC_URL ? String(value.PUBLIC_URL).replace(/\/+$/, '') : null,
    allowedHosts: Object.freeze([...(value.ALLOWED_HOSTS as string[])]),
    rateLimitPerMinute: value.RATE_LIMIT_PER_MINUTE,
    rateLimitLeaseMax: value.RATE_LIMIT_LEASE_MAX,
    guestsPerHour: value.GUESTS_PER_HOUR,
    authFailuresPerMinute: value.AUTH_FAILURES_PER_MINUTE,
    passcodeFailuresPerHour: value.PASSCODE_FAILURES_PER_HOUR,
    jsonBodyLimit: value.JSON_BODY_LIMIT,
    socketMaxPacketBytes: value.SOCKET_MAX_PACKET_BYTES,
    socketBytesPerSecond: value.SOCKET_BYTES_PER_SECOND,
    socketMaxBufferedBytes: value.SOCKET_MAX_BUFFERED_BYTES,
    shutdownTimeoutMs: value.SHUTDOWN_TIMEOUT_MS,
    presenceTtlMs: value.PRESENCE_TTL_MS,
    httpKeepAliveTimeoutMs: value.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    trustProxy: value.TRUST_PROXY,
    realtimeRevalidateMs: value.REALTIME_REVALIDATE_MS,
    realtimeMaxKeptBlocks: value.REALTIME_MAX_KEPT_BLOCKS,
    outboxGraceMs: value.OUTBOX_GRACE_MS,
    outboxSweepMs: value.OUTBOX_SWEEP_MS,
    cacheTtlMs: value.CACHE_TTL_MS,
    corsOrigins: value.CORS_ORIGINS ? Object.freeze([...value.CORS_ORIGINS]) : null,
    frameAncestors: value.FRAME_ANCESTORS ? Object.freeze([...(value.FRAME_ANCESTORS as string[])]) : null,
    metricsToken: value.METRICS_TOKEN,
    metricsPort: value.METRICS_PORT,
    pusher: Object.freeze({
      appKeys: Object.freeze([...(value.PUSHER_APP_KEYS as string[])]),
      // The embedded shape's own secret: one process both signs channel grants and checks them.
      secret: value.PUSHER_APP_SECRET ?? randomBytes(32).toString('hex'),
      secretGenerated: !value.PUSHER_APP_SECRET,
      activityTimeoutS: value.PUSHER_ACTIVITY_TIMEOUT,
      clientEventsPerSecond: value.PUSHER_CLIENT_EVENTS_PER_SECOND,
    }),
    unknownTheme: value.UNKNOWN_THEME,
  });
}
