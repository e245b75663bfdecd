import { Op, QueryTypes, col, fn, where, type Transaction } from 'sequelize';
import { db, models } from '../db';
import { uniquely } from '../db/errors';
import type { ApiKey, User } from '../db/models';
import { chunks } from '../db/inList';
import { columns } from '../db/sql';
import { asBool, asDate, asDateOrNull, placeholders, type Query, type Row } from '../db/sql';

/**
 * The users store: the only code that reads or writes the `users` and `api_keys` tables. It answers
 * plain records (never model instances) and turns the driver's unique-index errors into
 * db/errors.ts's UniqueViolationError. Writes take the transaction of the use case that runs them
 * (`inTransaction`); reads without one run on their own.
 */

export type { Transaction };

export interface UserRecord {
  id: number;
  uuid: string;
  username: string;
  name: string;
  isRegistered: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** An API key as its owner and the operators see it: never the key (it is not kept) nor its hash. */
export interface ApiKeyRecord {
  id: number;
  userId: number;
  name: string;
  prefix: string;
  revokedAt: Date | null;
  createdAt: Date;
}

const USER = ['id', 'uuid', 'username', 'name', 'isRegistered', 'createdAt', 'updatedAt'];

/** The users columns under their record names (alias `alias`, each name prefixed): for the other stores' joins. */
export const userColumns = (alias: string, prefix = '') => columns(alias, prefix, USER);

const num = (v: unknown) => (typeof v === 'number' ? v : Number(v));

/** A user from a row selected with `userColumns` (either dialect). */
export function toUser(row: Row, prefix = ''): UserRecord {
  return {
    id: num(row[`${prefix}id`]),
    uuid: row[`${prefix}uuid`] as string,
    username: row[`${prefix}username`] as string,
    name: row[`${prefix}name`] as string,
    isRegistered: asBool(row[`${prefix}isRegistered`]),
    createdAt: asDate(row[`${prefix}createdAt`]),
    updatedAt: asDate(row[`${prefix}updatedAt`]),
  };
}

function userRecord(user: User): UserRecord {
  return {
    id: user.id,
    uuid: user.uuid,
    username: user.username,
    name: user.name,
    isRegistered: Boolean(user.isRegistered),
    createdAt: user.createdAt,
    updatedAt: user.updatedAt,
  };
}

function apiKeyRecord(key: ApiKey): ApiKeyRecord {
  return { id: key.id, userId: key.userId, name: key.name, prefix: key.prefix, revokedAt: key.revokedAt, createdAt: key.createdAt };
}

/** A Sequelize instance of a stored user built from its record (no read), for an update. */
function userModelOf(user: UserRecord): User {
  // Field by field: `user` may itself be such an instance (req.user), whose own properties are not its fields.
  const { id, uuid, username, name, isRegistered, createdAt, updatedAt } = user;
  return models().User.build({ id, uuid, username, name, isRegistered, createdAt, updatedAt }, { isNewRecord: false, raw: true });
}

/** Run `fn` in one write transaction (db/index.ts: on SQLite, one writer at a time). */
export function inTransaction<T>(fn: (transaction: Transaction) => Promise<T>): Promise<T> {
  return db().transaction(fn);
}

// ---------------------------------------------------------------------------------------------
// Users

export interface NewUser {
  uuid: string;
  username: string;
  name: string;
  isRegistered: boolean;
}

export async function insertUser(user: NewUser, transaction?: Transaction): Promise<UserRecord> {
  return userRecord(await uniquely(() => models().User.create(user, { transaction })));
}

export async function findUserByUsername(username: string, transaction?: Transaction): Promise<UserRecord | null> {
  const user = await models().User.findOne({ where: { username }, transaction });
  return user && userRecord(user);
}

/** The user with this uuid, or null (the Pusher gateway names users by uuid). */
export async function findUserByUuid(uuid: string): Promise<UserRecord | null> {
  const user = await models().User.findOne({ where: { uuid } });
  return user && userRecord(user);
}

/** These users, in no particular order (unknown ids are left out). */
export async function findUsersByIds(ids: readonly number[], transaction?: Transaction): Promise<UserRecord[]> {
  if (!ids.length) return [];
  return (await models().User.findAll({ where: { id: [...ids] }, transaction })).map(userRecord);
}

/** Whether another user than `exceptUserId` holds `username` in any case ("Alice" for "alice"). */
export async function usernameTakenByOther(username: string, exceptUserId: number, transaction: Transaction): Promise<boolean> {
  const other = await models().User.findOne({
    where: { [Op.and]: [where(fn('lower', col('username')), username.toLowerCase()), { id: { [Op.ne]: exceptUserId } }] },
    attributes: ['id'],
    transaction,
  });
  return other !== null;
}

/** Advisory lock namespace of renames; quotas use 7467, theme ids 7466, migrations 727274. */
const RENAME_LOCK = 7468;

/**
 * Renames one at a time until `transaction` ends: the unique index is case-sensitive, so the
 * case-insensitive check must not race (PostgreSQL; SQLite runs write transactions one at a time already).
 */
export async function lockRenames(transaction: Transaction): Promise<void> {
  await advisoryLock(RENAME_LOCK, 0, transaction);
}

/**
 * Set these fields of `user`; answers the user as stored. Fields equal to what `user` holds are not
 * written, and a change of nothing writes nothing (updated_at stays).
 */
export async function updateUser(user: UserRecord, fields: Partial<Pick<UserRecord, 'name' | 'username'>>, transaction: Transaction): Promise<UserRecord> {
  const model = userModelOf(user);
  return userRecord(await uniquely(() => model.update(fields, { transaction })));
}

/** Advisory lock namespace of the per-user quota checks (users/quotas.ts). */
const QUOTA_LOCK = 7467;

/** Serialize the quota checks of one user until `transaction` ends (PostgreSQL; SQLite needs nothing). */
export async function lockUserQuotas(userId: number, transaction: Transaction): Promise<void> {
  await advisoryLock(QUOTA_LOCK, userId, transaction);
}

async function advisoryLock(namespace: number, key: number, transaction: Transaction): Promise<void> {
  if (db().dialect !== 'postgres') return;
  await db().sequelize.query('SELECT pg_advisory_xact_lock(:namespace, :key)', { replacements: { namespace, key }, transaction, type: QueryTypes.SELECT });
}

/** Lock the user's row until `transaction` ends (PostgreSQL; SQLite's writes are serialized already). */
export async function lockUser(userId: number, transaction: Transaction): Promise<void> {
  await models().User.findByPk(userId, { attributes: ['id'], lock: transaction.LOCK.UPDATE, transaction });
}

// ---------------------------------------------------------------------------------------------
// API keys

export interface NewApiKey {
  userId: number;
  name: string;
  prefix: string;
  keyHash: string;
}

export async function insertApiKey(key: NewApiKey, transaction?: Transaction): Promise<ApiKeyRecord> {
  return apiKeyRecord(await uniquely(() => models().ApiKey.create({ ...key, revokedAt: null }, { transaction })));
}

/** A key found by its hash, with its user: what every authenticated request reads. */
export interface KeyOwner {
  keyId: number;
  keyHash: string;
  revoked: boolean;
  /** When the key was last used, to a minute (null: never, or before that was recorded). */
  lastUsedAt: Date | null;
  user: UserRecord;
}

const AUTHENTICATE = `SELECT k.id AS "keyId", k.key_hash AS "keyHash", k.revoked_at AS "revokedAt", k.expires_ms AS "expiresMs", k.last_used_at AS "lastUsedAt", ${userColumns('u')}
  FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.key_hash = $1`;

/** One plain query (db/sql.ts), the user built from the same row without a second read. */
export async function findKeyByHash(keyHash: string): Promise<KeyOwner | null> {
  const [row] = await db().sql.query<Row & { keyId: unknown; keyHash: string; revokedAt: unknown; expiresMs: unknown; lastUsedAt: unknown }>(AUTHENTICATE, [
    keyHash,
  ]);
  if (!row) return null;
  // An expired key (a page key past its session's end) is refused as a revoked one is.
  const expired = row.expiresMs !== null && row.expiresMs !== undefined && num(row.expiresMs) <= Date.now();
  return {
    keyId: Number(row.keyId),
    keyHash: row.keyHash,
    revoked: expired || asDateOrNull(row.revokedAt) !== null,
    lastUsedAt: asDateOrNull(row.lastUsedAt),
    user: toUser(row),
  };
}

/** Uses of a key within this long of the last one recorded are not written again. */
export const KEY_USE_PRECISION_MS = 60_000;

/** A key's last use, for its owner's settings page (written at most once a minute per key). */
export async function touchKeyLastUsed(keyId: number, now = new Date()): Promise<void> {
  // A transaction: on SQLite that is the one writer lock (db/index.ts), not a wait on SQLite's own.
  await db().sql.transaction((query) =>
    query('UPDATE api_keys SET last_used_at = $1 WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $3)', [
      now,
      keyId,
      new Date(now.getTime() - KEY_USE_PRECISION_MS),
    ]),
  );
}

/** A user's live keys with when each was last used (null: never, or before that was recorded). */
export async function listLiveApiKeysWithUse(userId: number): Promise<Array<ApiKeyRecord & { lastUsedAt: Date | null }>> {
  const rows = await db().sql.query<Row>(
    'SELECT id, user_id AS "userId", name, prefix, created_at AS "createdAt", last_used_at AS "lastUsedAt" FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL AND (expires_ms IS NULL OR expires_ms > $2) ORDER BY id ASC',
    [userId, Date.now()],
  );
  return rows.map((r) => ({
    id: num(r.id),
    userId: num(r.userId),
    name: r.name as string,
    prefix: r.prefix as string,
    revokedAt: null,
    createdAt: asDate(r.createdAt),
    lastUsedAt: asDateOrNull(r.lastUsedAt),
  }));
}

/** Which live keys a revocation names: by shown prefix or by hash, of one user or of anyone. */
export interface KeyMatch {
  prefix?: string;
  keyHash?: string;
  userId?: number;
}

/** The ids of the live keys that match. */
export async function findLiveKeyIds(match: KeyMatch, transaction: Transaction): Promise<number[]> {
  const by = match.keyHash !== undefined ? { keyHash: match.keyHash } : { prefix: match.prefix };
  const owner = match.userId === undefined ? {} : { userId: match.userId };
  const live = await models().ApiKey.findAll({ where: { ...by, ...owner, revokedAt: null }, attributes: ['id'], transaction });
  return live.map((k) => k.id);
}

/** A user's live keys, of every kind (the last-key guard: a page key is a way into the API too while its session lasts). */
export async function countLiveKeys(userId: number, transaction: Transaction): Promise<number> {
  return models().ApiKey.count({ where: { userId, revokedAt: null }, transaction });
}

/**
 * A user's live keys as the quota (MAX_LIVE_KEYS) counts them: page keys (web_session_id set) are not
 * counted. Each lives and dies with a browser's session and is bounded per session
 * (accounts/pageKey.ts); counting them would let ten signed-in browsers use up the keys a developer
 * may create.
 */
export async function countQuotaKeys(userId: number, transaction: Transaction): Promise<number> {
  return models().ApiKey.count({ where: { userId, revokedAt: null, webSessionId: null }, transaction });
}

/** Mark these keys revoked now (those not revoked already). */
export async function revokeKeys(ids: readonly number[], transaction: Transaction): Promise<void> {
  await models().ApiKey.update({ revokedAt: new Date() }, { where: { id: [...ids], revokedAt: null }, transaction });
}

/** A user's live keys, oldest first. */
export async function listLiveApiKeys(userId: number): Promise<ApiKeyRecord[]> {
  return (await models().ApiKey.findAll({ where: { userId, revokedAt: null }, order: [['id', 'ASC']] })).map(apiKeyRecord);
}

/** Every key of a user, revoked ones too, oldest first (the operators' CLI). */
export async function listApiKeys(userId: number): Promise<ApiKeyRecord[]> {
  return (await models().ApiKey.findAll({ where: { userId }, order: [['id', 'ASC']] })).map(apiKeyRecord);
}

/** Which of these key ids are live (not revoked): one query per 400 distinct keys (realtime/connection/accessRechecks.ts). */
export async function liveKeyIds(ids: readonly number[]): Promise<Set<number>> {
  const live = new Set<number>();
  for (const part of chunks([...new Set(ids)])) {
    const rows = await db().sql.query<{ id: unknown }>(
      `SELECT id FROM api_keys WHERE revoked_at IS NULL AND (expires_ms IS NULL OR expires_ms > $1) AND id IN (${placeholders(part.length, 2)})`,
      [Date.now(), ...part],
    );
    for (const row of rows) live.add(Number(row.id));
  }
  return live;
}

/** A revoked key: its id and when it was revoked. */
export interface KeyRevocation {
  id: number;
  revokedAt: Date;
}

/**
 * Keys revoked at or after `since` (users/revocationWatch.ts asks a few times a second): a range on the
 * index of revoked_at, so the few rows of the last seconds cost the same however many keys exist.
 */
export async function keysRevokedSince(since: Date): Promise<KeyRevocation[]> {
  // Polled four times a second: kept out of the query log, where it would drown every request's queries.
  const rows = await models().ApiKey.findAll({
    where: { revokedAt: { [Op.gte]: since } },
    attributes: ['id', 'revokedAt'],
    order: [['revokedAt', 'ASC']],
    logging: false,
  });
  return rows.map((row) => ({ id: row.id, revokedAt: row.revokedAt! }));
}

/** When the latest revocation happened (null: no key was ever revoked). */
export async function latestKeyRevocation(): Promise<Date | null> {
  const row = await models().ApiKey.findOne({ where: { revokedAt: { [Op.ne]: null } }, attributes: ['revokedAt'], order: [['revokedAt', 'DESC']] });
  return row?.revokedAt ?? null;
}

// ---------------------------------------------------------------------------------------------
// Page keys: keys bound to a web session (accounts/pageKey.ts). These run inside the accounts
// sessions store's plain-SQL transactions (db/sql.ts `transaction`), so a session and its keys
// change together.

/** The live keys made for this web session, oldest first. */
export async function liveWebSessionKeyIds(query: Query, sessionId: number): Promise<number[]> {
  const rows = await query<{ id: unknown }>('SELECT id FROM api_keys WHERE web_session_id = $1 AND revoked_at IS NULL ORDER BY id ASC', [sessionId]);
  return rows.map((r) => num(r.id));
}

/** Revoke these keys (those still live); their ids. */
export async function revokeKeyIdsWith(query: Query, ids: readonly number[], now = new Date()): Promise<number[]> {
  const revoked: number[] = [];
  for (const part of chunks([...new Set(ids)])) {
    const rows = await query<{ id: unknown }>(
      `UPDATE api_keys SET revoked_at = $1, updated_at = $1 WHERE revoked_at IS NULL AND id IN (${placeholders(part.length, 2)}) RETURNING id`,
      [now, ...part],
    );
    revoked.push(...rows.map((r) => num(r.id)));
  }
  return revoked;
}

/** Revoke every live key made for these web sessions; their ids. */
export async function revokeWebSessionKeysWith(query: Query, sessionIds: readonly number[], now = new Date()): Promise<number[]> {
  const revoked: number[] = [];
  for (const part of chunks([...new Set(sessionIds)])) {
    const rows = await query<{ id: unknown }>(
      `UPDATE api_keys SET revoked_at = $1, updated_at = $1 WHERE revoked_at IS NULL AND web_session_id IN (${placeholders(part.length, 2)}) RETURNING id`,
      [now, ...part],
    );
    revoked.push(...rows.map((r) => num(r.id)));
  }
  return revoked;
}

export interface NewWebSessionKey extends NewApiKey {
  webSessionId: number;
  expiresMs: number;
}

/** A page key's row (its hash and shown prefix only, as every key). */
export async function insertWebSessionKeyWith(query: Query, key: NewWebSessionKey, now = new Date()): Promise<number> {
  const [row] = await query<{ id: unknown }>(
    'INSERT INTO api_keys (user_id, name, prefix, key_hash, revoked_at, web_session_id, expires_ms, created_at, updated_at) VALUES ($1, $2, $3, $4, NULL, $5, $6, $7, $7) RETURNING id',
    [key.userId, key.name, key.prefix, key.keyHash, key.webSessionId, key.expiresMs, now],
  );
  return num(row!.id);
}
