import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { Sequelize, Transaction } from 'sequelize';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { perApp } from '../lib/appContext';
import { Mutex } from '../lib/mutex';
import { initModels, type Models } from './models';
import { postgresSql, sqliteSql, type PoolStats, type Sql } from './sql';

/**
 * One Sequelize instance per server (lib/appContext.ts), with its own model classes. The SQLite shape serializes its write
 * transactions in-process, and the hot paths' plain SQL writes with them (db/sql.ts): SQLite allows one
 * writer, and a write that waits in SQLite's busy handler holds one of libuv's threadpool threads
 * meanwhile. (A model's write without a transaction goes through Sequelize's one connection, which
 * runs its statements one at a time: at most one thread waits.)
 */
export interface Database {
  sequelize: Sequelize;
  /** The model classes bound to this database (db/models: one set per open database). */
  models: Models;
  dialect: 'sqlite' | 'postgres';
  /** Run `fn` in one transaction: the only way commands write more than one row. */
  transaction<T>(fn: (t: Transaction) => Promise<T>): Promise<T>;
  /** Plain SQL for the hot paths (db/sql.ts). */
  sql: Sql;
  ping(): Promise<void>;
  /** A dedicated PostgreSQL connection outside the pool (advisory locks, LISTEN). */
  sessionClient(): Promise<pg.Client>;
  /**
   * Connections by pool, read when metrics are scraped: PostgreSQL's two pools ("models": Sequelize's,
   * "sql": the hot paths'); SQLite's single writer ("sqlite_writer": in use while a write transaction
   * runs, the others waiting their turn).
   */
  pools(): Record<string, PoolStats>;
  close(): Promise<void>;
}

const opened = perApp(() => ({ current: null as Database | null }));

export function db(): Database {
  const { current } = opened();
  if (!current) throw new Error('Database not initialised: call openDatabase() first.');
  return current;
}

/** This server's model classes (db/models: one set per open database). */
export function models(): Models {
  return db().models;
}

export async function openDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'> & { databasePoolSize?: number }, logger?: Logger): Promise<Database> {
  const state = opened();
  if (state.current) return state.current;
  let sequelize: Sequelize;
  let dialect: Database['dialect'];
  if (config.databaseUrl) {
    dialect = 'postgres';
    sequelize = new Sequelize(config.databaseUrl, {
      dialect: 'postgres',
      logging: false,
      pool: { max: config.databasePoolSize ?? 10, min: 0, idle: 10_000, acquire: 10_000 },
      dialectOptions: { connectionTimeoutMillis: 5000 },
    });
  } else {
    dialect = 'sqlite';
    fs.mkdirSync(config.dataDir, { recursive: true });
    sequelize = new Sequelize({
      dialect: 'sqlite',
      storage: path.join(config.dataDir, 'dice.sqlite'),
      logging: false,
      // One connection: the writer mutex below and SQLite's own locking then agree.
      pool: { max: 1, min: 0, idle: 60_000 },
      retry: { max: 5 },
    });
    configureEverySqliteConnection(sequelize);
    await sequelize.query('PRAGMA journal_mode = WAL;');
  }
  const models = initModels(sequelize);
  const writer = new Mutex();
  const transaction = <T>(fn: (t: Transaction) => Promise<T>): Promise<T> => {
    if (dialect === 'sqlite') return writer.run(() => sequelize.transaction({ type: Transaction.TYPES.IMMEDIATE }, fn));
    return sequelize.transaction(fn);
  };
  // Two pools on PostgreSQL, kept on purpose: Sequelize's (the models of users, rooms, themes) and the
  // plain-SQL one of db/sql.ts, which owns what Sequelize cannot give it: JSON columns left as text,
  // timestamps parsed once per text, and every short statement prepared once per connection. Moving
  // the roll paths onto it (with fewer statements per roll) took them from 0.09x (POST /roll) and 0.15x
  // (GET /roll/{uuid}) of the bare baseline to 0.39x, and prepared statements alone took PostgreSQL's
  // CPU per roll from 3.1 to 1.2 ms (docs/performance.md, "Where a roll's CPU goes"). Borrowing Sequelize's
  // connections for it (one pool) would give up those type parsers and add sequelize-pool's acquire to
  // the hottest path; that one-pool variant has not been measured no slower, so the pools stay two.
  // Each is DATABASE_POOL_SIZE (docs/operations.md: dice_db_pool_connections{pool="models"|"sql"}).
  const sql =
    dialect === 'postgres'
      ? postgresSql(config.databaseUrl!, {
          max: config.databasePoolSize ?? 10,
          onError: (err) => logger?.warn({ err: err.message }, 'idle database connection lost'),
        })
      : sqliteSql(sequelize, transaction);
  const database: Database = {
    sequelize,
    models,
    dialect,
    transaction,
    sql,
    async ping() {
      await sequelize.query('SELECT 1');
    },
    async sessionClient() {
      if (!config.databaseUrl) throw new Error('sessionClient() needs PostgreSQL');
      const client = new pg.Client({ connectionString: config.databaseUrl });
      await client.connect();
      return client;
    },
    pools(): Record<string, PoolStats> {
      if (dialect === 'sqlite')
        return { sqlite_writer: { inUse: Math.min(writer.pending, 1), idle: writer.pending ? 0 : 1, waiting: Math.max(writer.pending - 1, 0) } };
      const models = (sequelize.connectionManager as unknown as { pool: { using: number; available: number; waiting: number } }).pool;
      return { models: { inUse: models.using, idle: models.available, waiting: models.waiting }, sql: sql.pool!() };
    },
    async close() {
      if (state.current === database) state.current = null;
      await Promise.all([sequelize.close(), sql.close()]);
    },
  };
  logger?.debug({ dialect }, 'database opened');
  state.current = database;
  return database;
}

/**
 * Sequelize's SQLite dialect opens a fresh connection for every transaction (and bypasses the pool
 * and its connect hooks), so a PRAGMA run once applies to one connection only. Give each new
 * connection a busy timeout (wait for the writer instead of failing with SQLITE_BUSY at once);
 * Sequelize itself turns foreign keys on for each, and WAL is a property of the file.
 */
function configureEverySqliteConnection(sequelize: Sequelize) {
  type SqliteConnection = { configure(option: 'busyTimeout', ms: number): void; busyTimeoutSet?: boolean };
  const manager = sequelize.connectionManager as unknown as { getConnection(options?: unknown): Promise<SqliteConnection> };
  const open = manager.getConnection.bind(manager);
  manager.getConnection = async (options) => {
    const connection = await open(options);
    if (!connection.busyTimeoutSet) {
      connection.configure('busyTimeout', 5000);
      connection.busyTimeoutSet = true;
    }
    return connection;
  };
}
