// `npm run format:check`: Prettier's check of every TypeScript and JavaScript file of the tree, as
// `prettier --check '**/*.{ts,mts,js,mjs,cjs}'` makes it, remembering what it found formatted.
//
// Why not `prettier --check --cache`: its cache is keyed by absolute paths, so a fresh clone in another
// directory (CI) finds nothing in it. Here a file is known formatted by the SHA-256 of its name's
// extension, its options, Prettier's version and its content, wherever it lives; a file changed by one
// byte is checked again. The keys live in $XDG_CACHE_HOME/open-dice (or ~/.cache/open-dice), kept
// for the files of the last run only. Checking every file takes about 19 s of CPU, checking none 1.
//
//   node scripts/format-check.mjs            env: FORMAT_CACHE=0 to check every file
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { treeFiles } from './tree-files.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cacheFile = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'open-dice', 'prettier-formatted.json');
const useCache = process.env.FORMAT_CACHE !== '0';

// The files Prettier's CLI would check: tracked or new, not ignored by .gitignore (the CLI reads it too).
const tree = treeFiles(root);
if (!tree) {
  // Not a git checkout (an unpacked archive): Prettier's own check of the same files, nothing remembered.
  try {
    execFileSync('npx', ['prettier', '--check', '--log-level', 'warn', '**/*.{ts,mts,js,mjs,cjs}'], { cwd: root, stdio: 'inherit' });
    process.exit(0);
  } catch {
    process.exit(1);
  }
}
const listed = tree.filter((file) => /\.(ts|mts|js|mjs|cjs)$/.test(file));

function readKnown() {
  if (!useCache) return new Set();
  try {
    return new Set(JSON.parse(readFileSync(cacheFile, 'utf8')));
  } catch {
    return new Set(); // none yet, or unreadable: check every file
  }
}

const known = readKnown();
const formatted = [];
const unformatted = [];
await Promise.all(
  listed.map(async (file) => {
    const absolute = path.join(root, file);
    let source;
    try {
      source = readFileSync(absolute, 'utf8');
    } catch {
      return; // listed by git, deleted from the work tree
    }
    const info = await prettier.getFileInfo(absolute, { ignorePath: [path.join(root, '.prettierignore'), path.join(root, '.gitignore')] });
    if (info.ignored) return;
    const options = { ...(await prettier.resolveConfig(absolute)), filepath: absolute };
    const key = createHash('sha256')
      .update(JSON.stringify([prettier.version, path.extname(file), { ...options, filepath: undefined }]))
      .update(source)
      .digest('hex');
    if (known.has(key) || (await prettier.check(source, options))) formatted.push(key);
    else unformatted.push(file);
  }),
);

if (useCache) {
  try {
    mkdirSync(path.dirname(cacheFile), { recursive: true });
    // Written whole under another name, then renamed: a run beside this one never reads half a file.
    const partial = `${cacheFile}.${process.pid}`;
    writeFileSync(partial, JSON.stringify(formatted));
    renameSync(partial, cacheFile);
  } catch {
    // A read-only home: the next run checks every file again.
  }
}

if (unformatted.length) {
  for (const file of unformatted.sort()) console.log(`[warn] ${file}`);
  console.log(`[warn] Code style issues found in ${unformatted.length} file${unformatted.length === 1 ? '' : 's'}. Run bash scripts/format-all.sh to fix.`);
  process.exit(1);
}
