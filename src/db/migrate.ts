import { DataTypes, QueryTypes, type QueryInterface, type Transaction } from 'sequelize';
import type { Database } from './index';
import type { Logger } from '../logger';
import { MIGRATIONS, type Migration } from './migrationList';

/**
 * What a migration's `up` and `down` receive. Every query they make passes `transaction`: the migration
 * and its row in schema_migrations then commit together. On SQLite a query without it would run on
 * another connection, outside the migration, and wait behind the migration's own write lock. So a
 * statement that cannot run inside a transaction (PostgreSQL's CREATE INDEX CONCURRENTLY) cannot be a
 * migration's either.
 */
export type MigrationContext = { queryInterface: QueryInterface; dialect: Database['dialect']; transaction: Transaction };

/** Where applied migrations are recorded, by name: the table and column an earlier storage library made. */
const TABLE = 'schema_migrations';

/**
 * Apply pending migrations (./migrationList.ts, in order; `migrations` is for tests). Idempotent.
 * Each migration runs in one transaction with the insert of its name, so a start-up killed in the middle
 * leaves the database as it was before that migration, and the next start-up runs it again.
 */
export async function migrate(database: Database, logger?: Logger, migrations: ReadonlyArray<Migration> = MIGRATIONS): Promise<string[]> {
  const queryInterface = database.sequelize.getQueryInterface();
  // Several instances may start at once: one migrates, the others wait on a session lock held
  // on a connection of its own (a pooled connection could differ between lock and unlock).
  const lock = database.dialect === 'postgres' ? await database.sessionClient() : null;
  try {
    await lock?.query('SELECT pg_advisory_lock(727274)');
    // The table's shape is the one existing databases have (a varchar primary key `name`); IF NOT EXISTS.
    await queryInterface.createTable(TABLE, { name: { type: DataTypes.STRING, allowNull: false, unique: true, primaryKey: true } });
    const rows = await database.sequelize.query<{ name: string }>(`SELECT name FROM ${TABLE}`, { type: QueryTypes.SELECT });
    const done = new Set(rows.map((row) => row.name));
    const applied: string[] = [];
    try {
      for (const [name, step] of migrations) {
        if (done.has(name)) continue;
        await database
          .transaction(async (transaction) => {
            await step.up({ context: { queryInterface, dialect: database.dialect, transaction } });
            await queryInterface.bulkInsert(TABLE, [{ name }], { transaction });
          })
          .catch((err: unknown) => {
            throw new Error(`Migration ${name} (up) failed: ${(err as Error).message}`, { cause: err });
          });
        applied.push(name);
      }
    } finally {
      // Also when one failed: those before it are applied and recorded.
      if (applied.length) logger?.info({ migrations: applied }, 'migrations applied');
    }
    return applied;
  } finally {
    await lock?.end();
  }
}
