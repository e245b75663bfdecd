/**
 * Loaded before every test file (ava's `require`): once ava has a file's results, with no uncaught
 * exception or unhandled rejection, its worker ends at once. Otherwise a timer or socket a test left
 * behind (a wait's deadline after the race it lost, a closing handshake's 30 s timer) keeps the
 * worker, and with it one of the suite's two slots, idle for up to that timer's length after the
 * last test: 7 to 10 s a file was seen, tens of seconds in a group. ava documents this use of
 * registerCompletionHandler.
 *
 * With TEST_TIMINGS_FILE set, each worker first appends one line to that file: its test file, how long
 * the worker lived and how much of it its thread computed (event-loop utilisation), in ms. That is
 * what the suite's schedule is tuned with (docs/performance.md, "CI time").
 */
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import test, { registerCompletionHandler } from 'ava';

registerCompletionHandler(() => {
  const out = process.env.TEST_TIMINGS_FILE;
  if (out) {
    const file = path.relative(process.cwd(), fileURLToPath(test.meta.file));
    const busy = performance.eventLoopUtilization().active;
    appendFileSync(out, `${JSON.stringify({ file, wallMs: Math.round(performance.now()), busyMs: Math.round(busy) })}\n`);
  }
  process.exit();
});
