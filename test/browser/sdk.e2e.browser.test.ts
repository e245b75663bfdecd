import test from 'ava';
import { build, type Plugin } from 'esbuild';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { installPointedSdk } from '../helpers/dddiceSdk';
import { useServer } from '../helpers/server';
import { useChromium } from './chromium';

/**
 * The stock dddice SDK's own `tests/dddice.test.cjs`, unchanged but for its host, in a real Chromium
 * against a started server. It drives `ThreeDDice`, the 3D renderer, which exists in a browser only
 * (its Node siblings run in test/api/sdk.e2e.test.ts): a guest, a room, connect (Pusher protocol),
 * roll 1d20 in `dddice-bees`, and `exit()` once the RollCreateEvent comes back.
 *
 * The file is bundled for the browser as a site would bundle it (esbuild, as the board is):
 * `require('dddice-js')` finds the package's browser build for bundlers, `dddice-latest.web.mjs` (its
 * `module` field), with its host pointed at the server (the same rewrite as the Node runs), and
 * `require('process')`, which a browser has not, is a stand-in whose `exit()` records that the test got
 * to its end. (The package's `exports` give `require` in a browser `dddice-latest.js`, CommonJS in a
 * `"type": "module"` package: a bundler takes it for an ES module, and it stops on "exports is not
 * defined".) The page is served by a plain `http.Server` on another origin than the API, as a site
 * using the SDK would be.
 *
 * The server listens on '::' (both stacks): the SDK speaks plain ws only to the host name "localhost".
 */
const ctx = useServer(test, { HOST: '::' });
const chrome = useChromium(test);

const TEST_FILE = 'dddice.test.cjs';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dddice-e2e-browser-'));
let site: http.Server | undefined;
test.after.always(async () => {
  if (site) await new Promise((resolve) => site!.close(resolve));
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** `process` in a browser: only `exit`, which the test calls once its roll came back. */
const PROCESS_STAND_IN = `module.exports = {
  exit(code) { window.__sdkTestExit = code === undefined ? 0 : code; },
};`;

const SDK_BUILD = 'dddice-latest.web.mjs';

const standIns: Plugin = {
  name: 'sdk-test-in-a-browser',
  setup(b) {
    b.onResolve({ filter: /^dddice-js$/ }, () => ({ path: path.join(tmp, 'node_modules', 'dddice-js', SDK_BUILD) }));
    b.onResolve({ filter: /^process$/ }, () => ({ path: 'process', namespace: 'stand-in' }));
    b.onLoad({ filter: /.*/, namespace: 'stand-in' }, () => ({ contents: PROCESS_STAND_IN, loader: 'js' }));
  },
};

/** The SDK's test file bundled for the browser, against the pointed browser build. */
async function bundleSdkTest(port: number): Promise<string> {
  installPointedSdk(tmp, [SDK_BUILD], port);
  const result = await build({
    entryPoints: [path.join(tmp, 'tests', TEST_FILE)],
    absWorkingDir: tmp,
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: ['chrome100'],
    logLevel: 'silent',
    plugins: [standIns],
  });
  return result.outputFiles[0]!.text;
}

/**
 * Errors as the page meets them, each marked with whether the test had already called `exit()`.
 * Under Node, `exit()` ends the process: nothing the SDK does afterwards can fail the test. In a page
 * the SDK keeps running, and `ThreeDDice` goes on to draw the roll: for the built-in `dddice-bees`,
 * which names no `meshes`, it rejects at once (docs/sdk.md); for a theme with meshes, its code would
 * still stop there for want of the canvas this test never gives it (no physics world). Both come after
 * the exit. The test reads this record, not playwright's events, whose order against the exit cannot
 * be told.
 */
const ERROR_RECORDER = `window.__sdkTestErrors = [];
function record(message) { window.__sdkTestErrors.push({ message: String(message), afterExit: '__sdkTestExit' in window }); }
addEventListener('error', (e) => record(e.error && e.error.stack || e.message));
addEventListener('unhandledrejection', (e) => record(e.reason && e.reason.stack || e.reason));`;

/** A page that runs `script`, on a port of its own. */
async function serve(script: string): Promise<string> {
  // `new http.Server`, not createServer: the suite's OpenAPI recorder (test/openapi/record.ts) wraps
  // createServer, and this page is not the API.
  site = new http.Server((req, res) => {
    const body = req.url === '/errors.js' ? ERROR_RECORDER : req.url === '/sdk-test.js' ? script : null;
    if (body !== null) {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
      res.end(body);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>dddice-js tests/dddice.test.cjs</title><script src="/errors.js"></script><script src="/sdk-test.js"></script>');
  });
  await new Promise<void>((resolve) => site!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
}

interface Outcome {
  exitCode: unknown;
  errors: { message: string; afterExit: boolean }[];
}

test(`dddice-js tests/${TEST_FILE} in Chromium: a guest rolls 1d20 in dddice-bees with ThreeDDice and hears it back`, async (t) => {
  const url = await serve(await bundleSdkTest(ctx.server.port));
  const context = await chrome.browser.newContext();
  try {
    const page = await context.newPage();
    const logged: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'log') logged.push(m.text());
    });
    await page.goto(url);
    // Until it exits, or fails first (then it never would).
    const settled = await page
      .waitForFunction(
        () => {
          const w = window as unknown as { __sdkTestExit?: unknown; __sdkTestErrors: unknown[] };
          return '__sdkTestExit' in w || w.__sdkTestErrors.length > 0;
        },
        null,
        { timeout: 20_000 },
      )
      .then(
        () => true,
        () => false,
      );
    const { exitCode, errors } = await page.evaluate(() => {
      const w = window as unknown as { __sdkTestExit?: unknown; __sdkTestErrors: Outcome['errors'] };
      return { exitCode: w.__sdkTestExit, errors: w.__sdkTestErrors } as Outcome;
    });
    const out = logged.join('\n');
    const before = errors.filter((e) => !e.afterExit).map((e) => e.message);
    t.true(settled, `it never exited:\n${out}`);
    t.deepEqual(before, [], `it failed before it exited:\n${out}`);
    t.is(exitCode, 0, out);
    t.is(logged[0], 'hello');
    t.regex(logged[1] ?? '', /dk_/, 'the guest was created against this server');
    t.regex(out, /roll sent\nroll received\n1d20\n(\d+)$/);
    const total = Number(/roll received\n1d20\n(\d+)$/.exec(out)?.[1]);
    t.true(total >= 1 && total <= 20, out);
  } finally {
    await context.close();
  }
});
