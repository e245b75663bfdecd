import test from 'ava';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { entryArgs } from '../helpers/entry';

/**
 * The operators' CLI writes names into text columns too (users.name, api_keys.name): it checks them as
 * the API does, so a value the column cannot hold, or a display name with invisible or text-direction
 * characters, is a sentence and exit code 1, not a database error.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dice-cli-'));
test.after.always(() => fs.rmSync(dataDir, { recursive: true, force: true }));

function cli(...args: string[]) {
  const run = spawnSync(process.execPath, [...entryArgs('cli'), ...args], {
    cwd: root,
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'silent' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: run.status, out: run.stdout, err: run.stderr };
}

test.serial('user:create normalizes the display name and refuses invisible or text-direction characters', (t) => {
  const bad = cli('user:create', 'mallory', '\u202eevil');
  t.is(bad.code, 1);
  t.regex(bad.err, /NAME must not contain invisible, control or text-direction characters \(U\+202E is one\)/);
  const good = cli('user:create', 'gm', 'Ｇａｍｅ Ｍａｓｔｅｒ');
  t.is(good.code, 0, good.err);
  t.regex(good.out, /Created user gm/);
});

test.serial('key:create refuses a label longer than 64 characters', (t) => {
  const bad = cli('key:create', 'gm', 'x'.repeat(300));
  t.is(bad.code, 1);
  t.regex(bad.err, /LABEL must be 1 to 64 characters/);
  t.is(cli('key:create', 'gm', 'overlay').code, 0);
});
