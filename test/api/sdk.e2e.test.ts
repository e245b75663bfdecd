import test from 'ava';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { installPointedSdk, SDK_PACKAGE } from '../helpers/dddiceSdk';
import { useServer } from '../helpers/server';

// The stock dddice SDK's own end-to-end tests (`tests/*.test.*` of the dddice-js package, unchanged),
// run as their users would run them, each as its own Node process, against a started server: only the
// SDK's host is this server's (the bundle's APP_URL, WEBSOCKETS_URI and wsPort, as docs/sdk.md tells
// operators). Each creates a guest, a room, connects (Pusher protocol), rolls 1d20 in `dddice-bees`
// and exits once the RollCreateEvent comes back; a test that hangs or throws fails here.
//
// `dddice.test.cjs` drives `ThreeDDice`, the 3D renderer, which exists in a browser only (under Node it
// throws "must be used in a browser context with the window object"): it runs in Chromium, in
// test/browser/sdk.e2e.browser.test.ts.
//
// The server listens on '::' (both stacks): the SDK speaks plain ws only to the host name "localhost",
// which Node 20 may resolve to ::1 or 127.0.0.1.
const ctx = useServer(test, { HOST: '::' });

const TESTS = fs
  .readdirSync(path.join(SDK_PACKAGE, 'tests'))
  .filter((f) => /\.test\.[cm]?js$/.test(f))
  .sort();
const IN_A_BROWSER = new Set(['dddice.test.cjs']);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dddice-e2e-'));
test.after.always(() => fs.rmSync(tmp, { recursive: true, force: true }));

let installed: string | null = null;

/** The package's Node builds pointed at the server, with its tests beside them (once per file). */
function install(port: number): string {
  return (installed ??= installPointedSdk(tmp, ['dddice-latest.node.cjs', 'dddice-latest.node.mjs'], port));
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
      const out = fs
        .readFileSync(log, 'utf8')
        .split('\n')
        .filter((line) => line.length < 400)
        .join('\n');
      resolve({ code, out, timedOut });
    });
  });
}

test('the package ships three end-to-end tests: two run here, dddice.test.cjs in Chromium', (t) => {
  t.deepEqual(TESTS, ['dddice.test.cjs', 'test.test.cjs', 'test.test.mjs']);
});

for (const file of TESTS.filter((f) => !IN_A_BROWSER.has(f))) {
  test(`dddice-js tests/${file}: a guest rolls 1d20 in dddice-bees in a new room and hears it back`, async (t) => {
    const dir = install(ctx.server.port);
    const { code, out, timedOut } = await run(dir, file);
    t.false(timedOut, `it never heard its roll back:\n${out}`);
    t.is(code, 0, out);
    t.regex(out, /roll sent\nroll received\n1d20\n(\d+)\n/);
    const total = Number(/roll received\n1d20\n(\d+)/.exec(out)?.[1]);
    t.true(total >= 1 && total <= 20);
  });
}
