// ava on the test files built by scripts/build-tests.mjs (what `npm test` runs): JavaScript, so no
// TypeScript loader in the test processes. package.json's "ava" runs test/**/*.ts through tsx.
export default {
  files: ['.test-build/test/**/*.test.mjs'],
  nodeArguments: ['--enable-source-maps'],
  workerThreads: false,
  timeout: '120s',
};
