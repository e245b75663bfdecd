// npm run migrate: apply pending migrations to the configured database (DATABASE_URL or DATA_DIR).
import { ConfigError, loadConfig } from '../src/config';
import { openDatabase } from '../src/db';
import { migrate } from '../src/db/migrate';
import { createLogger } from '../src/logger';

try {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const database = await openDatabase(config, logger);
  const applied = await migrate(database, logger);
  console.log(applied.length ? `Applied ${applied.length} migration(s): ${applied.join(', ')}` : 'The schema is up to date.');
  await database.close();
} catch (err) {
  console.error(err instanceof ConfigError ? err.message : `Migration failed: ${(err as Error).message}`);
  process.exit(1);
}
