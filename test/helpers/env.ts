import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { copySqliteTemplate, postgresTemplate } from './templateDatabase';

/**
 * Which database a test file uses: TEST_DB=postgres (with TEST_DATABASE_URL naming an admin
 * database, e.g. postgres://postgres@127.0.0.1:5432/test) or SQLite in a temporary directory.
 * Each test file gets a database of its own, dropped when its tests end.
 */
export const TEST_DB = process.env.TEST_DB === 'postgres' ? 'postgres' : 'sqlite';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || null;
/**
 * A Redis Cluster's nodes (host:port,host:port,...), set by scripts/test.sh for its cluster pass
 * (scripts/redis-cluster.sh starts one): the multi-instance tests then run their instances with
 * REDIS_CLUSTER_NODES instead of REDIS_URL.
 */
export const TEST_REDIS_CLUSTER_NODES = process.env.TEST_REDIS_CLUSTER_NODES || null;

export interface TestDatabase {
  databaseUrl: string | null;
  dataDir: string;
  drop(): Promise<void>;
}

/**
 * A database of its own for a test, migrated unless `migrated` is false (the tests of the migrations
 * themselves): a copy of one migrated template (./templateDatabase.ts).
 */
export async function createTestDatabase({ migrated = true }: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dice-test-'));
  if (TEST_DB === 'sqlite') {
    if (migrated) copySqliteTemplate(dataDir);
    return { databaseUrl: null, dataDir, drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }) };
  }
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('TEST_DB=postgres needs TEST_DATABASE_URL (an admin database to create test databases from).');
  const name = `dice_t_${randomBytes(6).toString('hex')}`;
  const template = migrated ? await postgresTemplate(adminUrl) : null;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    databaseUrl: url.toString(),
    dataDir,
    async drop() {
      fs.rmSync(dataDir, { recursive: true, force: true });
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      await c.end();
    },
  };
}
