// ava on the test files built by scripts/build-tests.mjs (what `npm test` runs): JavaScript, so no
// TypeScript loader in the test processes. package.json's "ava" runs test/**/*.ts through tsx.
//
// Each test file runs in a worker thread of one ava process rather than in a process of its own: a
// thread has its own module instances (the database, the caches, the bus are one per test file, as
// with processes) and skips booting Node for each of the suite's 200 files. Measured on test/api
// (SQLite): 161 -> 142 s of CPU, 89 -> 78 s (docs/performance.md, "CI time").
export default {
  files: ['.test-build/test/**/*.test.mjs'],
  nodeArguments: ['--enable-source-maps'],
  workerThreads: true,
  timeout: '120s',
};
