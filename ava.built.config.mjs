// ava on the test files built by scripts/build-tests.mjs (what `npm test` runs): JavaScript, so no
// TypeScript loader in the test processes. package.json's "ava" runs test/**/*.ts through tsx.
//
// Each test file (or group of files, scripts/build-tests.mjs) runs in a worker thread of one ava
// process rather than in a process of its own: a thread has its own module instances, and each server
// a file starts its own app context (src/lib/appContext.ts), and it skips booting Node for each file.

/**
 * What runs first: the longest files, so that the workers end together rather than one waiting on a
 * long file picked up last. The seeded fuzzing of hostile/ (the longest of all: about a minute on
 * PostgreSQL, where it ended the pass when it started after the multi-instance files); files that wait
 * on spawned servers and failovers (cluster/, faults/); then the groups whose tests mostly wait
 * (realtime/, ops/: sockets, timeouts, child processes), so that their waits overlap the computing
 * files after them instead of leaving both cores idle at the end; then Chromium's and the other
 * groups; then the rest, each in name order.
 */
const expectedLength = (file) =>
  /\/hostile\/group-\d+\.test\.mjs$/.test(file)
    ? 5
    : /\/(cluster|faults)\//.test(file)
      ? 4
      : /\/(realtime|ops)\/group-\d+\.test\.mjs$/.test(file)
        ? 3
        : /\/browser\/|\/group-\d+\.test\.mjs$/.test(file)
          ? 2
          : 1;

export default {
  files: ['.test-build/test/**/*.test.mjs'],
  nodeArguments: ['--enable-source-maps'],
  // A worker ends as soon as ava has its file's results (test/helpers/exitWhenDone.ts).
  require: ['./.test-build/test/helpers/exitWhenDone.mjs'],
  workerThreads: true,
  timeout: '120s',
  sortTestFiles: (a, b) => expectedLength(b) - expectedLength(a) || a.localeCompare(b),
};
