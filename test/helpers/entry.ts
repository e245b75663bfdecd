import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * How a test starts the server or the CLI as a process of its own. `npm test` builds first
 * (scripts/build.mjs) and names the output in TEST_BUILD_DIR: the tests then run production's own
 * JavaScript, which also starts on about half the CPU of tsx. A test file run by hand has no build to
 * trust, so it runs today's sources through tsx.
 */
export function entryArgs(script: 'main' | 'cli', nodeArgs: readonly string[] = []): string[] {
  const built = process.env.TEST_BUILD_DIR;
  // A test's own fixture loaded with --import (e.g. test/fixtures/faultOnSignal.ts) is TypeScript.
  const loader = built && !nodeArgs.some((arg) => arg.endsWith('.ts')) ? [] : ['--import=tsx'];
  if (built) return [...loader, ...nodeArgs, '--enable-source-maps', path.resolve(root, built, `${script}.mjs`)];
  return [...loader, ...nodeArgs, script === 'main' ? 'src/main.ts' : 'scripts/cli.ts'];
}

/**
 * A test's own script run as a process (e.g. test/hostile/flood.ts): as `npm test` built it into
 * .test-build/ (scripts/build-tests.mjs lists it as an entry), or its source through tsx for a file
 * run by hand.
 */
export function testScriptArgs(source: string): string[] {
  const built = path.resolve(root, '.test-build', source.replace(/\.ts$/, '.mjs'));
  return process.env.TEST_BUILD_DIR && fs.existsSync(built) ? ['--enable-source-maps', built] : ['--import=tsx', source];
}
