import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** An admin database to create benchmark databases from (same default as the tests). */
export const ADMIN_URL = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.BENCH_REDIS_URL || process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';

export interface BenchDatabase {
  url: string;
  /**
   * Move the PostgreSQL backends now serving this database onto `cores` (taskset; root or the
   * postgres user): answers how many were moved. The database is part of the service under test, so a
   * benchmark that pins the servers to their core puts its backends there too; left to the scheduler,
   * they ran on the clients' core, and a client waiting for its core reads its events late, which
   * was charged to the service (docs/performance.md, "Who was late").
   */
  pinBackends(cores: string): Promise<number>;
  drop(): Promise<void>;
}

/** A fresh PostgreSQL database for one benchmark run, dropped afterwards. */
export async function createBenchDatabase(): Promise<BenchDatabase> {
  const name = `dice_bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  try {
    await admin.connect();
  } catch (err) {
    throw new Error(`PostgreSQL is needed at ${ADMIN_URL} (set BENCH_DATABASE_URL): ${(err as Error).message}`, { cause: err });
  }
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async pinBackends(cores) {
      if (!cores) return 0;
      const c = new pg.Client({ connectionString: ADMIN_URL });
      await c.connect();
      const { rows } = await c.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [name]);
      await c.end();
      let moved = 0;
      for (const { pid } of rows) {
        try {
          execFileSync('taskset', ['-p', '-c', cores, String(pid)], { stdio: 'ignore' });
          moved++;
        } catch {
          // not ours to move (another user's process), or gone
        }
      }
      return moved;
    },
    async drop() {
      const c = new pg.Client({ connectionString: ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      await c.end();
    },
  };
}
