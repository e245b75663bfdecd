import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { root } from '../helpers/entry';

/**
 * scripts/check-unless-passed.mjs, which `npm test` runs the type check, the import rules and ESLint
 * through: a check that passed on exactly these files is skipped, anything else runs it. Each test
 * copies the script into a git repository of its own, with a home of its own for what it remembers,
 * and checks with a command that says it ran and exits as the test wants.
 */
const run = promisify(execFile);

function repository(): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dice-check-'));
  fs.mkdirSync(path.join(dir, 'scripts'));
  for (const file of ['check-unless-passed.mjs', 'tree-files.mjs']) fs.copyFileSync(path.join(root, 'scripts', file), path.join(dir, 'scripts', file));
  fs.writeFileSync(path.join(dir, 'a.ts'), 'export const a = 1;\n');
  fs.writeFileSync(path.join(dir, '.gitignore'), 'ignored/\n');
  return { dir, env: { ...process.env, XDG_CACHE_HOME: path.join(dir, 'ignored', 'cache'), CHECK_CACHE: '' } };
}

async function git(dir: string, ...args: string[]) {
  await run('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: dir });
}

/** Runs the check "demo", whose command prints "RAN" and exits with `exitCode`. */
async function check(dir: string, env: NodeJS.ProcessEnv, exitCode = 0): Promise<{ code: number; ran: boolean; out: string }> {
  const args = ['scripts/check-unless-passed.mjs', 'demo', process.execPath, '-e', `console.log("RAN"); process.exit(${exitCode})`];
  try {
    const { stdout } = await run(process.execPath, args, { cwd: dir, env });
    return { code: 0, ran: stdout.includes('RAN'), out: stdout };
  } catch (err) {
    const e = err as { code: number; stdout: string };
    return { code: e.code, ran: e.stdout.includes('RAN'), out: e.stdout };
  }
}

test('a pass is remembered for exactly these files: the same tree skips the check, a changed or new file runs it', async (t) => {
  const { dir, env } = repository();
  await git(dir, 'init', '-q');
  await git(dir, 'add', '.');
  await git(dir, 'commit', '-qm', 'start');

  t.like(await check(dir, env), { code: 0, ran: true });
  const again = await check(dir, env);
  t.like(again, { code: 0, ran: false });
  t.regex(again.out, /demo: passed before on exactly these files/);

  fs.writeFileSync(path.join(dir, 'a.ts'), 'export const a = 2;\n');
  t.like(await check(dir, env), { code: 0, ran: true }, 'one byte changed in a tracked file');
  t.like(await check(dir, env), { code: 0, ran: false });

  fs.writeFileSync(path.join(dir, 'b.ts'), 'export const b = 1;\n');
  t.like(await check(dir, env), { code: 0, ran: true }, 'a new file, not yet tracked, is part of the tree');

  fs.mkdirSync(path.join(dir, 'ignored'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'ignored', 'x.ts'), 'anything\n');
  t.like(await check(dir, env), { code: 0, ran: false }, 'an ignored file is not');

  t.like(await check(dir, { ...env, CHECK_CACHE: '0' }), { code: 0, ran: true }, 'CHECK_CACHE=0 runs it whatever it finds');
});

test('a failure is never remembered: the check runs again, with its exit code, until it passes', async (t) => {
  const { dir, env } = repository();
  await git(dir, 'init', '-q');
  t.like(await check(dir, env, 3), { code: 3, ran: true });
  t.like(await check(dir, env, 3), { code: 3, ran: true });
  t.like(await check(dir, env, 0), { code: 0, ran: true });
  t.like(await check(dir, env, 0), { code: 0, ran: false }, 'the tree it passed on: skipped');
  t.like(await check(dir, env, 3), { code: 3, ran: true }, 'another command is another check');
});

test('outside a git checkout (an unpacked archive) the check always runs', async (t) => {
  const { dir, env } = repository();
  t.like(await check(dir, env), { code: 0, ran: true });
  t.like(await check(dir, env), { code: 0, ran: true });
});
