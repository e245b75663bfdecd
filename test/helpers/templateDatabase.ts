import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { root } from './entry';

/**
 * A migrated database that test databases start as a copy of, instead of each running every migration
 * again: PostgreSQL copies it with CREATE DATABASE ... TEMPLATE (about 0.1 s against 0.5 s of CPU for
 * the migrations, and the server's own DDL work saved), SQLite by copying its file. It is named after a
 * hash of the migrations' sources, so a changed or added migration builds a new one, and it is built by
 * `npm run migrate`'s own script, in a process of its own (the database layer is one per process).
 * Tests of the migrations themselves ask for an empty database (createTestDatabase({ migrated: false })).
 */

/** Shared by every test process that migrates a template: one builds it, the others wait. */
const TEMPLATE_LOCK = 727_275;

let fingerprint: string | null = null;

/** A hash of what decides the schema: the migrations and their list. */
function migrationsFingerprint(): string {
  if (fingerprint) return fingerprint;
  const hash = createHash('sha256');
  const dir = path.join(root, 'src/db/migrations');
  for (const file of fs.readdirSync(dir).sort()) hash.update(file).update(fs.readFileSync(path.join(dir, file)));
  hash.update(fs.readFileSync(path.join(root, 'src/db/migrationList.ts')));
  fingerprint = hash.digest('hex').slice(0, 16);
  return fingerprint;
}

/** Apply every migration to the database `env` names, with the script `npm run migrate` runs. */
function runMigrations(env: Record<string, string>): void {
  const built = process.env.TEST_BUILD_DIR;
  const args = built ? ['--enable-source-maps', path.resolve(root, built, 'migrate.mjs')] : ['--import=tsx', 'scripts/migrate.ts'];
  const result = spawnSync(process.execPath, args, {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'silent', REDIS_URL: '', REDIS_CLUSTER_NODES: '', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (result.status !== 0)
    throw new Error(`migrating the template database failed (${result.error?.message ?? `exit ${result.status}`}): ${result.stderr}${result.stdout}`);
}

function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

const postgresTemplates = new Map<string, Promise<string>>();

/** The migrated template's name on the PostgreSQL of `adminUrl`, built once for every test process. */
export function postgresTemplate(adminUrl: string): Promise<string> {
  let template = postgresTemplates.get(adminUrl);
  if (!template) {
    template = buildPostgresTemplate(adminUrl);
    postgresTemplates.set(adminUrl, template);
  }
  return template;
}

async function buildPostgresTemplate(adminUrl: string): Promise<string> {
  const name = `dice_tpl_${migrationsFingerprint()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount) return name;
    // Built under another name and renamed when complete: a process killed halfway leaves no template.
    const building = `${name}_building`;
    await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${building}`);
    runMigrations({ DATABASE_URL: databaseUrl(adminUrl, building) });
    await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
    // Templates of earlier migrations are of no further use.
    const stale = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE 'dice\\_tpl\\_%' AND datname <> $1`, [name]);
    for (const row of stale.rows) await admin.query(`DROP DATABASE IF EXISTS ${row.datname} WITH (FORCE)`).catch(() => undefined);
    return name;
  } finally {
    await admin.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK]).catch(() => undefined);
    await admin.end();
  }
}

/** Put a copy of the migrated SQLite template into `dataDir` (as DATA_DIR's dice.sqlite). */
export function copySqliteTemplate(dataDir: string): void {
  const template = path.join(os.tmpdir(), `dice-test-template-${migrationsFingerprint()}`);
  if (!fs.existsSync(path.join(template, 'dice.sqlite'))) {
    // Built in a directory of its own and renamed into place whole: processes racing to build it each
    // build one, the first rename wins, and none ever copies a half-migrated file.
    const building = fs.mkdtempSync(`${template}-building-`);
    runMigrations({ DATA_DIR: building, DATABASE_URL: '' });
    try {
      fs.renameSync(building, template);
    } catch {
      fs.rmSync(building, { recursive: true, force: true });
    }
  }
  for (const file of ['dice.sqlite', 'dice.sqlite-wal']) {
    const from = path.join(template, file);
    if (fs.existsSync(from)) fs.copyFileSync(from, path.join(dataDir, file));
  }
}
