import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { MIGRATIONS } from '../../src/db/migrationList';
import { root } from '../helpers/entry';
import { spawnInstance } from '../helpers/process';

/**
 * The build production runs (scripts/build.mjs → dist/): it carries every migration, it reads source
 * files only through src/lib/sourceFiles.ts, and the server it makes starts and serves the pages whose
 * scripts it bundles from src/ at run time.
 */

test('every file of src/db/migrations is in the migration list, in name order', (t) => {
  const files = fs
    .readdirSync(path.join(root, 'src/db/migrations'))
    .filter((f) => f.endsWith('.ts'))
    .sort();
  t.deepEqual(
    MIGRATIONS.map(([name]) => name),
    files,
    'a migration file is applied only once it is listed in src/db/migrationList.ts',
  );
});

test.serial('the built server starts, migrates and serves its API, the board and the account pages', async (t) => {
  const built = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, encoding: 'utf8' });
  t.is(built.status, 0, built.stderr);
  const main = fs.readFileSync(path.join(root, 'dist/main.mjs'), 'utf8');
  // esbuild keeps `import.meta.url` as written: in any module but sourceFiles.ts it would name dist/.
  t.is(
    main.split('import.meta.url').length - 1,
    1,
    'only src/lib/sourceFiles.ts may read import.meta.url (a module bundled into dist/main.mjs would resolve paths against dist/)',
  );

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dice-build-'));
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const previous = process.env.TEST_BUILD_DIR;
  process.env.TEST_BUILD_DIR = 'dist';
  const server = await spawnInstance({ DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', REDIS_CLUSTER_NODES: '' }).finally(() => {
    if (previous === undefined) delete process.env.TEST_BUILD_DIR;
    else process.env.TEST_BUILD_DIR = previous;
  });
  t.teardown(() => server.stop());
  t.regex(server.output(), /migrations applied/);

  const guest = await fetch(`${server.url}/api/1.0/user`, { method: 'POST' });
  t.is(guest.status, 201);
  for (const asset of [
    '/board/assets/board.js',
    '/board/assets/board.css',
    '/board/assets/physics.js',
    '/board/assets/preview.js',
    '/room-page/assets/room.js',
    '/room-page/assets/room.css',
    '/room-page/assets/stream.js',
    '/pages/assets/home.js',
    '/pages/assets/home.css',
  ]) {
    const res = await fetch(`${server.url}${asset}`);
    t.is(res.status, 200, asset);
    t.true((await res.text()).length > 100, asset);
  }
  const signin = await fetch(`${server.url}/signin`);
  t.is(signin.status, 200);
  const scripts = [...(await signin.text()).matchAll(/<script[^>]+src="([^"]+)"/g)].map((m) => m[1]!);
  t.true(scripts.length > 0, 'the sign-in page loads a script');
  for (const src of scripts) t.is((await fetch(new URL(src, server.url))).status, 200, src);
});
