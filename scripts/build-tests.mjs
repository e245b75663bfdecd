// The test files as JavaScript for `npm test` (.test-build/, a mirror of test/): each test file is
// one esbuild entry, the project's modules they import are bundled into shared chunks, packages stay
// imports of node_modules. Why: ava starts a process per test file, and loading a file's ~400 project
// modules through tsx's loader cost about 1.5 s of CPU per process, more than most files' tests; the
// bundle loads in about 0.1 s. `npx ava` on test/**/*.ts (tsx) keeps working for one file at a time.
//
// `import.meta.url` is replaced in every module by the URL of its own source file, so paths a module
// computes from where it lives (the repository root, src/ for the browser scripts) are those of the
// sources, wherever the chunk that holds it was written.
import { build } from 'esbuild';
import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const OUT_DIR = path.join(root, '.test-build');

const entryPoints = (await readdir(path.join(root, 'test'), { recursive: true }))
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => path.join('test', file));
// Loaded with --import by the SQLite pass (test/openapi/record.ts).
entryPoints.push('test/openapi/record.ts');
entryPoints.sort();

const ownImportMetaUrl = {
  name: 'own-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.(ts|mts)$/ }, async (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const source = await readFile(args.path, 'utf8');
      const url = JSON.stringify(pathToFileURL(args.path).href);
      // Not inside quotes: a test may speak of the expression as a string.
      return { contents: source.replace(/(?<![\w'"`.])import\.meta\.url(?![\w'"`])/g, url), loader: 'ts' };
    });
  },
};

await rm(OUT_DIR, { recursive: true, force: true });
const started = Date.now();
await build({
  absWorkingDir: root,
  entryPoints,
  outbase: root,
  outdir: OUT_DIR,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  plugins: [ownImportMetaUrl],
  logLevel: 'warning',
});
console.log(`${entryPoints.length} test files built into .test-build/ in ${Date.now() - started} ms`);
