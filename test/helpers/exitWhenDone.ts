/**
 * Loaded before every test file (ava's `require`): once ava has a file's results, with no uncaught
 * exception or unhandled rejection, its worker ends at once. Otherwise a timer or socket a test left
 * behind (a wait's deadline after the race it lost, a closing handshake's 30 s timer) keeps the
 * worker, and with it one of the suite's two slots, idle for up to that timer's length after the
 * last test: 7 to 10 s a file was seen, tens of seconds in a group. ava documents this use of
 * registerCompletionHandler.
 *
 * With TEST_TIMINGS_FILE set, each worker first appends one line to that file: its test file, when it
 * started (ms after ava's), how long its tests took and how long its thread was busy (event-loop
 * utilisation, which on a loaded machine counts time waiting for a core too). The suite's schedule is
 * tuned with it (docs/performance.md, "CI time").
 */
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import test, { registerCompletionHandler } from 'ava';

// Loaded before the test file: its tests' time starts here (performance.now() counts from the process's start).
const loadedAt = performance.now();

registerCompletionHandler(() => {
  const out = process.env.TEST_TIMINGS_FILE;
  if (out) {
    const file = path.relative(process.cwd(), fileURLToPath(test.meta.file));
    const busy = performance.eventLoopUtilization().active;
    const line = { file, startedMs: Math.round(loadedAt), wallMs: Math.round(performance.now() - loadedAt), busyMs: Math.round(busy) };
    appendFileSync(out, `${JSON.stringify(line)}\n`);
  }
  process.exit();
});
