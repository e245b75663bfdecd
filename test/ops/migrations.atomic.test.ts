import test from 'ava';
import { DataTypes, QueryTypes } from 'sequelize';
import { openDatabase, type Database } from '../../src/db';
import { migrate, type MigrationContext } from '../../src/db/migrate';
import { MIGRATIONS, type Migration } from '../../src/db/migrationList';
import { createTestDatabase, type TestDatabase } from '../helpers/env';

/**
 * Each migration commits together with its row in schema_migrations: a migration that fails halfway
 * (as one killed halfway would) leaves neither its changes nor its record, and the next migrate() runs
 * it again. Every query of every migration runs in that transaction.
 */
const PROBE = '9999-atomic-probe.ts';
const PROBE_UUID = '00000000-0000-4000-8000-0000000000aa';

/** Creates a table and a user, then (when `fail`) throws, as a migration interrupted after its writes. */
function probe(fail: boolean): Migration {
  const up = async ({ context: { queryInterface: q, transaction } }: { context: MigrationContext }) => {
    await q.createTable('atomic_probe', { id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false } }, { transaction });
    const now = new Date();
    await q.bulkInsert('users', [{ uuid: PROBE_UUID, username: 'atomic-probe', name: 'Probe', is_registered: false, created_at: now, updated_at: now }], {
      transaction,
    });
    if (fail) throw new Error('interrupted after its writes');
  };
  const down = async ({ context: { queryInterface: q, transaction } }: { context: MigrationContext }) => {
    await q.dropTable('atomic_probe', { transaction });
  };
  return [PROBE, { up, down }];
}

let testDb: TestDatabase;
let database: Database;

test.before(async () => {
  testDb = await createTestDatabase({ migrated: false });
  database = await openDatabase({ databaseUrl: testDb.databaseUrl, dataDir: testDb.dataDir });
});

test.after.always(async () => {
  await database?.close();
  await testDb?.drop();
});

const select = <T extends object>(sql: string) => database.sequelize.query<T>(sql, { type: QueryTypes.SELECT });
const recorded = async () => (await select<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name')).map((row) => row.name);
const probeUsers = async () =>
  (await select<{ n: number | string }>(`SELECT COUNT(*) AS n FROM users WHERE uuid = '${PROBE_UUID}'`)).map((row) => Number(row.n))[0];
const probeTable = async () => {
  const tables = await database.sequelize.getQueryInterface().showAllTables();
  return tables.map((table) => (typeof table === 'string' ? table : (table as { tableName: string }).tableName)).includes('atomic_probe');
};

test.serial('a migration that fails leaves neither its changes nor its record; those before it stay applied', async (t) => {
  // Every query but the bookkeeping of schema_migrations itself must run in a migration's transaction.
  const outside: string[] = [];
  database.sequelize.addHook('afterQuery', 'watch', (options, query) => {
    const sql = (query as unknown as { sql: string }).sql;
    if (!options.transaction && !sql.includes('schema_migrations')) outside.push(sql);
  });
  try {
    const error = await t.throwsAsync(migrate(database, undefined, [...MIGRATIONS, probe(true)]));
    t.regex(error.message, /^Migration 9999-atomic-probe\.ts \(up\) failed: interrupted after its writes/);
  } finally {
    database.sequelize.removeHook('afterQuery', 'watch');
  }
  t.deepEqual(outside, [], 'queries of migrations that ran outside their transaction');
  t.deepEqual(await recorded(), MIGRATIONS.map(([name]) => name).sort());
  t.is(await probeUsers(), 0);
  t.false(await probeTable());
});

test.serial('the next migrate() applies the fixed migration, once', async (t) => {
  t.deepEqual(await migrate(database, undefined, [...MIGRATIONS, probe(false)]), [PROBE]);
  t.deepEqual(await migrate(database, undefined, [...MIGRATIONS, probe(false)]), []);
  t.true((await recorded()).includes(PROBE));
  t.is(await probeUsers(), 1);
  t.true(await probeTable());
  // The real list still sees the database as fully migrated.
  t.deepEqual(await migrate(database), []);
});
