import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** An admin database to create benchmark databases from (same default as the tests). */
export const ADMIN_URL = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.BENCH_REDIS_URL || process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';

export interface BenchDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A fresh PostgreSQL database for one benchmark run, dropped afterwards. */
export async function createBenchDatabase(): Promise<BenchDatabase> {
  const name = `dice_bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  try {
    await admin.connect();
  } catch (err) {
    throw new Error(`PostgreSQL is needed at ${ADMIN_URL} (set BENCH_DATABASE_URL): ${(err as Error).message}`);
  }
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      await c.end();
    },
  };
}
