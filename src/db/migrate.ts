import { Umzug, SequelizeStorage } from 'umzug';
import type { QueryInterface } from 'sequelize';
import type { Database } from './index';
import type { Logger } from '../logger';
import { MIGRATIONS } from './migrationList';

export type MigrationContext = { queryInterface: QueryInterface; dialect: Database['dialect'] };

/** Apply pending migrations (./migrationList.ts, in order). Idempotent. */
export async function migrate(database: Database, logger?: Logger): Promise<string[]> {
  const umzug = new Umzug<MigrationContext>({
    migrations: MIGRATIONS.map(([name, step]) => ({ name, up: step.up, down: step.down })),
    context: { queryInterface: database.sequelize.getQueryInterface(), dialect: database.dialect },
    storage: new SequelizeStorage({ sequelize: database.sequelize, tableName: 'schema_migrations' }),
    logger: undefined,
  });
  // Several instances may start at once: one migrates, the others wait on a session lock held
  // on a connection of its own (a pooled connection could differ between lock and unlock).
  const lock = database.dialect === 'postgres' ? await database.sessionClient() : null;
  try {
    await lock?.query('SELECT pg_advisory_lock(727274)');
    const applied = await umzug.up();
    if (applied.length) logger?.info({ migrations: applied.map((m) => m.name) }, 'migrations applied');
    return applied.map((m) => m.name);
  } finally {
    await lock?.end();
  }
}
