import test from 'ava';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { useServer, type TestServer } from '../helpers/server';

// The stock dddice SDK's own end-to-end tests (`tests/*.test.*` of the dddice-js package, unchanged),
// run as their users would run them, each as its own Node process, against a started server: only the
// SDK's host is this server's (the bundle's APP_URL, WEBSOCKETS_URI and wsPort, as docs/sdk.md tells
// operators). Each creates a guest, a room, connects (Pusher protocol), rolls 1d20 in `dddice-bees`
// and exits once the RollCreateEvent comes back; a test that hangs or throws fails here.
//
// `dddice.test.cjs` drives `ThreeDDice`, the 3D renderer, which throws outside a browser ("must be used
// in a browser context with the window object"): under Node it cannot run, here or against dddice.com,
// so it is checked to fail for that reason alone (and would be reported if it ever ran).
//
// The server listens on '::' (both stacks): the SDK speaks plain ws only to the host name "localhost",
// which Node 20 may resolve to ::1 or 127.0.0.1.
const ctx = useServer(test, { HOST: '::' });

const PACKAGE = path.dirname(createRequire(import.meta.url).resolve('dddice-js'));
const TESTS = fs.readdirSync(path.join(PACKAGE, 'tests')).filter((f) => /\.test\.[cm]?js$/.test(f)).sort();
const NEEDS_A_BROWSER = new Set(['dddice.test.cjs']);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dddice-e2e-'));
test.after.always(() => fs.rmSync(tmp, { recursive: true, force: true }));

let installed: string | null = null;

/**
 * A directory holding the package as `node_modules/dddice-js` with its Node bundles pointed at the
 * server, and the package's tests beside it, copied byte for byte: `require('dddice-js')` in them finds
 * the pointed copy. Every rewritten string must be there, or the bundle is not the one this was written
 * against and the test says so.
 */
function install(server: TestServer): string {
  if (installed) return installed;
  const target = path.join(tmp, 'node_modules', 'dddice-js');
  fs.mkdirSync(target, { recursive: true });
  fs.copyFileSync(path.join(PACKAGE, 'package.json'), path.join(target, 'package.json'));
  const appUrl = `http://localhost:${server.port}`;
  for (const bundle of ['dddice-latest.node.cjs', 'dddice-latest.node.mjs']) {
    let source = fs.readFileSync(path.join(PACKAGE, bundle), 'utf8');
    for (const [from, to] of [
      ['APP_URL:"https://dddice.com"', `APP_URL:${JSON.stringify(appUrl)}`],
      ['WEBSOCKETS_URI:"ws.dddice.com"', 'WEBSOCKETS_URI:"localhost"'],
      ['wsPort:6001', `wsPort:${server.port}`],
    ] as const) {
      if (!source.includes(from)) throw new Error(`${bundle}: "${from}" not found (not dddice-js 0.19.34-974?)`);
      source = source.replaceAll(from, to);
    }
    fs.writeFileSync(path.join(target, bundle), source);
  }
  fs.cpSync(path.join(PACKAGE, 'tests'), path.join(tmp, 'tests'), { recursive: true });
  return (installed = tmp);
}

/**
 * Run one of the SDK's test files with Node; its exit code and output (killed after `timeoutMs`). The
 * output goes to a file, not a pipe: a process that dies of an error may exit before a pipe took the
 * whole of its message.
 */
function run(dir: string, file: string, timeoutMs = 20_000): Promise<{ code: number | null; out: string; timedOut: boolean }> {
  const log = path.join(dir, `${file}.log`);
  const fd = fs.openSync(log, 'w');
  const child = spawn(process.execPath, [path.join(dir, 'tests', file)], { cwd: dir, stdio: ['ignore', fd, fd], env: { ...process.env, NODE_OPTIONS: '' } });
  fs.closeSync(fd);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, timeoutMs);
  return new Promise((resolve) => {
    child.once('exit', (code) => {
      clearTimeout(timer);
      // A thrown error prints the whole minified line of the bundle: keep the readable lines only.
      const out = fs.readFileSync(log, 'utf8').split('\n').filter((line) => line.length < 400).join('\n');
      resolve({ code, out, timedOut });
    });
  });
}

test('the package ships the end-to-end tests this file runs', (t) => {
  t.deepEqual(TESTS, ['dddice.test.cjs', 'test.test.cjs', 'test.test.mjs']);
});

for (const file of TESTS.filter((f) => !NEEDS_A_BROWSER.has(f))) {
  test(`dddice-js tests/${file}: a guest rolls 1d20 in dddice-bees in a new room and hears it back`, async (t) => {
    const dir = install(ctx.server);
    const { code, out, timedOut } = await run(dir, file);
    t.false(timedOut, `it never heard its roll back:\n${out}`);
    t.is(code, 0, out);
    t.regex(out, /roll sent\nroll received\n1d20\n(\d+)\n/);
    const total = Number(/roll received\n1d20\n(\d+)/.exec(out)?.[1]);
    t.true(total >= 1 && total <= 20);
  });
}

test('dddice-js tests/dddice.test.cjs needs a browser (ThreeDDice): under Node it stops there, after the guest was made', async (t) => {
  const dir = install(ctx.server);
  const { code, out } = await run(dir, 'dddice.test.cjs');
  t.is(code, 1);
  t.regex(out, /data: 'dk_/, 'the guest was created against this server');
  t.regex(out, /ThreeDDice must be used in a browser context with the window object/);
});
