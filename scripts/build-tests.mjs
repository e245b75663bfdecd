// The test files as JavaScript for `npm test` (.test-build/, a mirror of test/): each test file is
// one esbuild entry, the project's modules they import are bundled into shared chunks, packages stay
// imports of node_modules. Why: loading a file's ~400 project modules through tsx's loader cost about
// 1.5 s of CPU per test file, more than most files' tests; the bundle loads in about 0.1 s. Most files
// then run in groups, several to a worker (writeGroups below). `npx ava` on test/**/*.ts (tsx) keeps
// working for one file at a time.
//
// `import.meta.url` is replaced in every module by the URL of its own source file, so paths a module
// computes from where it lives (the repository root, src/ for the browser scripts) are those of the
// sources, wherever the chunk that holds it was written.
import { build } from 'esbuild';
import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * Folders whose test files run in groups (writeGroups below), and how many files a group holds
 * (TEST_GROUP_SIZE=1: none, to compare). Not grouped: browser/ (each file drives a Chromium of its own,
 * and their waits on drawing overran with more at once), cluster/ and faults/ (each file spawns server
 * processes, two or three with two database pools each: eight files at once would be two dozen
 * processes on two cores, and more PostgreSQL connections than it allows).
 */
const GROUPED_FOLDERS = new Set(
  ['api', 'accounts', 'board', 'concurrency', 'dice', 'hostile', 'lib', 'openapi', 'ops', 'pages', 'realtime', 'rooms', 'stats', 'themes'].map(
    (folder) => `test/${folder}`,
  ),
);
const GROUP_SIZE = Number(process.env.TEST_GROUP_SIZE) || 8;
/**
 * Files that run alone: scripts/test.sh selects or leaves them out by name (the first four), or they load
 * their server to its bounds on purpose (`realtime/slowReaders`: 40 stalled sockets, hundreds of rolls),
 * which on the event loop a group's servers share made another file's requests fail.
 */
const ALONE = new Set(
  ['accounts/activation', 'accounts/pageKey', 'openapi/contract', 'openapi/fromJoi', 'realtime/slowReaders'].map((name) => `test/${name}.test.ts`),
);

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const OUT_DIR = path.join(root, '.test-build');

const entryPoints = (await readdir(path.join(root, 'test'), { recursive: true }))
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => path.join('test', file));
// Loaded with --import by the SQLite pass (test/openapi/record.ts).
entryPoints.push('test/openapi/record.ts');
// Imported by the group files (below): an entry of its own so that its path is known.
entryPoints.push('test/helpers/testGroup.ts');
// Loaded before every test file (ava.built.config.mjs `require`).
entryPoints.push('test/helpers/exitWhenDone.ts');
// Run by scripts/test.sh after the SQLite pass: every recorded response against the OpenAPI document.
entryPoints.push('test/helpers/openapiCheck.ts');
// Spawned by test/hostile/flood.test.ts: the flood's own process.
entryPoints.push('test/hostile/flood.ts');
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

// Test files import 'ava' through test/helpers/avaInGroup.ts, which names a test's file in its title
// when the file runs in a group (below); the helper itself imports the real one.
const AVA_IN_GROUP = path.join(root, 'test', 'helpers', 'avaInGroup.ts');
const avaInGroup = {
  name: 'ava-in-group',
  setup(b) {
    b.onResolve({ filter: /^ava$/ }, (args) => (args.importer === AVA_IN_GROUP ? { path: 'ava', external: true } : { path: AVA_IN_GROUP }));
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
  plugins: [ownImportMetaUrl, avaInGroup],
  logLevel: 'warning',
});
const groups = await writeGroups(entryPoints.filter((file) => file.endsWith('.test.ts')));
console.log(`${entryPoints.length} test files built into .test-build/ in ${Date.now() - started} ms; ${groups} groups`);

/**
 * Test files that run in one worker together: a worker costs about 2 s of CPU to load the project and
 * its packages, more than many files' tests. Files of a folder in GROUPED_FOLDERS are taken GROUP_SIZE
 * at a time, in name order, into `<folder>/group-N.test.mjs`, which imports each in turn; a member's
 * own output becomes `<name>.member.mjs`, so that ava runs it only through its group. The passes of
 * scripts/test.sh select whole folders of these, and the files they name one by one are left alone.
 */
async function writeGroups(testFiles) {
  const byFolder = new Map();
  for (const file of testFiles) {
    const folder = path.dirname(file);
    if (!GROUPED_FOLDERS.has(folder.split(path.sep).join('/')) || ALONE.has(file.split(path.sep).join('/'))) continue;
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), file]);
  }
  let count = 0;
  for (const [folder, files] of byFolder) {
    for (let start = 0, n = 1; start < files.length; start += GROUP_SIZE, n++) {
      const members = files.slice(start, start + GROUP_SIZE);
      if (members.length < 2) continue;
      // Static imports, each member after a module that names it: ava takes only tests declared in the
      // turn of the event loop its file was loaded in, and a graph of static imports runs in one.
      const helpers = path.relative(folder, 'test/helpers').split(path.sep).join('/');
      const lines = [];
      for (const member of members) {
        const name = path.basename(member, '.test.ts');
        await rename(path.join(OUT_DIR, folder, `${name}.test.mjs`), path.join(OUT_DIR, folder, `${name}.member.mjs`));
        const enter = `import { enterGroupMember } from '${helpers}/testGroup.mjs';\nenterGroupMember(${JSON.stringify(name)});\n`;
        await writeFile(path.join(OUT_DIR, folder, `${name}.enter.mjs`), enter);
        lines.push(`import './${name}.enter.mjs';`, `import './${name}.member.mjs';`);
      }
      await writeFile(path.join(OUT_DIR, folder, `group-${n}.test.mjs`), `${lines.join('\n')}\n`);
      count++;
    }
  }
  return count;
}
