import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Sequelize, Transaction } from 'sequelize';
import { DatabaseUnavailableError, UniqueViolationError } from './errors';

/**
 * Plain SQL for the hot paths (rolls: POST /roll, GET /roll/{uuid}, the realtime fan-out), beside
 * Sequelize, which keeps the models, migrations and every other command. Building model instances
 * cost most of the server's CPU per roll (docs/performance.md): these answer plain rows.
 *
 * One dialect-neutral SQL text, parameters written `$1, $2, ...`:
 * - PostgreSQL: a `pg.Pool` of its own (the driver Sequelize uses underneath);
 * - SQLite: the connection Sequelize opened (its default one, or the transaction's), with `$n`
 *   rewritten to SQLite's `?n` and dates stored as Sequelize stores them, so rows written here and
 *   rows written by models read back alike.
 * Rows come back as the driver gives them: read them through the row helpers below (asDate, asBool,
 * asJson), which smooth over what SQLite answers as text or integers.
 */

export type Row = Record<string, unknown>;

/** One statement; its rows (also those of `RETURNING`). */
export type Query = <T = Row>(text: string, params?: readonly unknown[]) => Promise<T[]>;

export interface Sql {
  query: Query;
  /**
   * Statements in one transaction: committed when `fn` resolves, rolled back when it throws. On SQLite
   * it runs under the database's writer lock (db/index.ts), like every other write transaction.
   */
  transaction<T>(fn: (query: Query) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** Connections of its own pool (PostgreSQL only: on SQLite it borrows Sequelize's connection). */
  pool?(): PoolStats;
}

/** A connection pool as the metrics show it. */
export interface PoolStats {
  inUse: number;
  idle: number;
  /** Callers waiting for a connection. */
  waiting: number;
}

/** `$first, $first+1, ...` for `count` values: an IN list that both dialects understand. */
export function placeholders(count: number, first = 1): string {
  if (count > 64 || first > 64) return Array.from({ length: count }, (_, i) => `$${first + i}`).join(', ');
  // The short lists (a roll's dice, its whisper list) come back on every request: built once.
  const key = first * 128 + count;
  let list = placeholderLists.get(key);
  if (list === undefined) placeholderLists.set(key, (list = Array.from({ length: count }, (_, i) => `$${first + i}`).join(', ')));
  return list;
}
const placeholderLists = new Map<number, string>();

// ---------------------------------------------------------------------------------------------
// Reading rows of either dialect

/** A timestamp column: pg gives a Date, SQLite Sequelize's text ('2026-11-22 18:30:00.123 +00:00'). */
export function asDate(value: unknown): Date {
  return value instanceof Date ? value : new Date(value as string);
}

export function asDateOrNull(value: unknown): Date | null {
  return value === null || value === undefined ? null : asDate(value);
}

/** A boolean column: SQLite answers 0 or 1. */
export function asBool(value: unknown): boolean {
  return value === true || value === 1 || value === '1' || value === 't';
}

/** A JSON column: both dialects answer its text here (the pg pool below leaves JSON unparsed). */
export function asJson<T = unknown>(value: unknown): T | null {
  if (value === null || value === undefined) return null;
  return JSON.parse(value as string) as T;
}

export const num = (v: unknown) => (typeof v === 'number' ? v : Number(v));
export const numOrNull = (v: unknown) => (v === null || v === undefined ? null : num(v));
export const strOrNull = (v: unknown) => (v === null || v === undefined ? null : String(v));

/** `t.a AS "a", t.b_c AS "bC"`: the columns of a table under their record names, prefixed. */
export function columns(alias: string, prefix: string, names: string[]): string {
  // Built once per (table, alias, prefix): the roll paths ask for the same few lists on every request.
  let lists = columnLists.get(names);
  if (!lists) columnLists.set(names, (lists = new Map<string, string>()));
  const key = `${alias}|${prefix}`;
  let list = lists.get(key);
  if (list === undefined) {
    list = names.map((n) => `${alias}.${n.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)} AS "${prefix}${n}"`).join(', ');
    lists.set(key, list);
  }
  return list;
}
const columnLists = new WeakMap<string[], Map<string, string>>();

/** A JSON value to store. */
export function toJson(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL

const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE', '57P01', '57P02', '57P03', '53300']);

/** Connection trouble becomes DatabaseUnavailableError (db/errors.ts; the HTTP layer answers 503). */
function translatePg(err: unknown): unknown {
  const e = err as { code?: string; message?: string };
  if (e?.code === '23505') return new UniqueViolationError(err);
  const message = e?.message ?? '';
  if (
    (e?.code && (UNAVAILABLE_CODES.has(e.code) || e.code.startsWith('08'))) ||
    /Connection terminated|timeout exceeded when trying to connect|connection timeout|Client has encountered a connection error/i.test(message)
  ) {
    return new DatabaseUnavailableError(err);
  }
  return err;
}

const JSON_OIDS = new Set([114, 3802]);

/** pg's parsers, but JSON columns stay text: a JSON string value must not be taken for JSON text (asJson). */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary'): ((value: string) => unknown) =>
    JSON_OIDS.has(oid)
      ? (value: string) => value
      : oid === TIMESTAMPTZ_OID && format !== 'binary'
        ? timestamptz
        : (pg.types.getTypeParser(oid, format as 'text') as (value: string) => unknown)) as typeof pg.types.getTypeParser,
};

const TIMESTAMPTZ_OID = 1184;
const parseTimestamptz = pg.types.getTypeParser(TIMESTAMPTZ_OID, 'text') as (value: string) => unknown;
/** Times already parsed, by their text: a room of 1,000 is 4,000 timestamps, read again on every join. */
const parsedTimes = new Map<string, number>();

/** A timestamptz column as a Date (a new one each time: records may be kept), parsing each text once. */
function timestamptz(value: string): unknown {
  let ms = parsedTimes.get(value);
  if (ms === undefined) {
    const parsed = parseTimestamptz(value);
    if (!(parsed instanceof Date)) return parsed; // 'infinity' and the like: not kept
    if (parsedTimes.size >= 100_000) parsedTimes.clear();
    parsedTimes.set(value, (ms = parsed.getTime()));
  }
  return new Date(ms);
}

/** Statements longer than this (long IN lists, many dice) are not kept prepared: each is rare. */
const PREPARE_MAX_LENGTH = 2_000;
const names = new Map<string, string>();

/**
 * A name for a statement worth keeping prepared on each connection (pg prepares it on first use): the
 * hot paths run the same few texts, and PostgreSQL then skips parsing and planning them. Undefined for
 * long or one-off texts, and for transaction control.
 */
function statementName(text: string): string | undefined {
  if (text.length > PREPARE_MAX_LENGTH || text === 'BEGIN' || text === 'COMMIT') return undefined;
  let name = names.get(text);
  if (!name) {
    name = `s${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
    if (names.size < 10_000) names.set(text, name);
  }
  return name;
}

export function postgresSql(url: string, options: { max: number; onError?: (err: Error) => void }): Sql {
  // A request waits for a connection as long as one waits for Sequelize's pool (acquire: 10 s, db/index.ts):
  // 200 joins at once queue here now that rooms are read through plain SQL (a 5 s wait answered 503s under load).
  const pool = new pg.Pool({ connectionString: url, max: options.max, idleTimeoutMillis: 10_000, connectionTimeoutMillis: 10_000, types });
  // An idle client losing its connection must not crash the process: the next query reconnects.
  pool.on('error', (err) => options.onError?.(err));
  const run = async <T>(client: pg.Pool | pg.PoolClient, text: string, params: readonly unknown[]) => {
    try {
      return (await client.query({ text, values: params as unknown[], name: statementName(text) })).rows as T[];
    } catch (err) {
      throw translatePg(err);
    }
  };
  return {
    query: (text, params = []) => run(pool, text, params),
    async transaction(fn) {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (err) {
        throw translatePg(err);
      }
      let broken: Error | undefined;
      try {
        await run(client, 'BEGIN', []);
        const result = await fn((text, params = []) => run(client, text, params));
        await run(client, 'COMMIT', []);
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch((rollbackErr: Error) => (broken = rollbackErr));
        throw err;
      } finally {
        client.release(broken);
      }
    },
    close: () => pool.end(),
    pool: () => ({ inUse: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount }),
  };
}

// ---------------------------------------------------------------------------------------------
// SQLite, through the connection Sequelize opened

interface SqliteConnection {
  all(sql: string, params: unknown[], callback: (err: Error | null, rows: Row[]) => void): void;
}

/** Sequelize's text for a date in SQLite, so that its models read our rows (and we theirs). */
function sqliteDate(date: Date): string {
  return date.toISOString().replace('T', ' ').replace('Z', ' +00:00');
}

function sqliteParam(value: unknown): unknown {
  if (value instanceof Date) return sqliteDate(value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value;
}

export function sqliteSql(sequelize: Sequelize, transaction: (fn: (t: Transaction) => Promise<unknown>) => Promise<unknown>): Sql {
  const manager = sequelize.connectionManager as unknown as { getConnection(options?: object): Promise<SqliteConnection> };
  const run = <T>(connection: SqliteConnection, text: string, params: readonly unknown[]) =>
    new Promise<T[]>((resolve, reject) => {
      connection.all(text.replace(/\$(\d+)/g, '?$1'), params.map(sqliteParam), (err, rows) => {
        if (!err) return resolve(rows as T[]);
        reject((err as { code?: string }).code === 'SQLITE_CONSTRAINT' && /UNIQUE/.test(err.message) ? new UniqueViolationError(err) : err);
      });
    });
  const inTransaction = async <T>(fn: (query: Query) => Promise<T>) =>
    (await transaction((t) => {
      const connection = (t as unknown as { connection: SqliteConnection }).connection;
      return fn((text, params = []) => run(connection, text, params));
    })) as T;
  return {
    // A write waits for the server's one writer (db/index.ts) in JavaScript, like a transaction. Sent
    // straight to SQLite while a transaction held the lock, it would wait in SQLite's busy handler on
    // one of libuv's four threadpool threads: four such writes left the transaction no thread for its
    // next statement, and the whole process stalled until their busy timeouts ran out (10 s seen).
    query: async (text, params = []) =>
      SQLITE_WRITE.test(text) ? inTransaction((query) => query(text, params)) : run(await manager.getConnection({}), text, params),
    transaction: inTransaction,
    close: async () => undefined,
  };
}

/** A statement that writes (a read never waits for the writer: the database is in WAL mode). */
const SQLITE_WRITE = /^\s*(INSERT|UPDATE|DELETE|REPLACE)\b/i;

/**
 * Plain SQL inside a Sequelize transaction (the models' commands writing a row of another table in the
 * same transaction: webhooks' deliveries, events/record.ts): the transaction's own connection, a
 * `pg.Client` or SQLite's, with the same `$n` parameters as everywhere here.
 */
export function queryInTransaction(t: Transaction): Query {
  const connection = (t as unknown as { connection: SqliteConnection | pg.ClientBase }).connection;
  if ('all' in connection && typeof connection.all === 'function') {
    const sqlite = connection as SqliteConnection;
    return <T>(text: string, params: readonly unknown[] = []) =>
      new Promise<T[]>((resolve, reject) => {
        sqlite.all(text.replace(/\$(\d+)/g, '?$1'), params.map(sqliteParam), (err, rows) => (err ? reject(err) : resolve(rows as T[])));
      });
  }
  const client = connection as pg.ClientBase;
  return async <T>(text: string, params: readonly unknown[] = []) => (await client.query(text, params as unknown[])).rows as T[];
}
