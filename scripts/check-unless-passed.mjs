// Runs a whole-tree check (the type check, ESLint, the import rules) unless it already passed on these
// exact files: `node scripts/check-unless-passed.mjs LABEL COMMAND [ARGS...]`.
//
// Why: ESLint's type-aware rules read the whole program, so ESLint cannot cache per file, and a full
// run costs about a minute of CPU, an eighth of the suite; the type check and the import rules are the
// same kind. Their verdict is a function of the files of the tree, the packages (package-lock.json is
// one of those files) and Node's version, so a pass is remembered under the SHA-256 of all of them
// together with the command, as build systems with remote caches do; any byte changed anywhere runs
// the check again. Only passes are remembered: a failing check always runs and prints its findings.
// The keys live in $XDG_CACHE_HOME/open-dice (or ~/.cache/open-dice), the last 20 per label.
//
//   env: CHECK_CACHE=0 runs the check whatever it finds
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { treeFiles } from './tree-files.mjs';

const KEPT = 20;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [label, command, ...args] = process.argv.slice(2);
if (!label || !command) {
  console.error('usage: node scripts/check-unless-passed.mjs LABEL COMMAND [ARGS...]');
  process.exit(2);
}

/** The key of this check on this tree, or null outside a git checkout (then it always runs). */
function treeKey() {
  const files = treeFiles(root);
  if (!files) return null;
  const hash = createHash('sha256').update(JSON.stringify([label, command, args, process.version]));
  for (const file of files.sort()) {
    let content;
    try {
      content = readFileSync(path.join(root, file));
    } catch {
      continue; // listed but deleted in the work tree: the checks do not see it either
    }
    hash.update(`\0${file}\0${content.length}\0`).update(content);
  }
  return hash.digest('hex');
}

const cacheFile = path.join(
  process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'),
  'open-dice',
  'checks-passed',
  `${label.replace(/\W+/g, '-')}.json`,
);
const readPassed = () => {
  try {
    return JSON.parse(readFileSync(cacheFile, 'utf8'));
  } catch {
    return []; // none yet, or unreadable: run the check
  }
};

const key = process.env.CHECK_CACHE === '0' ? null : treeKey();
if (key && readPassed().includes(key)) {
  console.log(`${label}: passed before on exactly these files (key ${key.slice(0, 12)} in ${cacheFile}); CHECK_CACHE=0 runs it again`);
  process.exit(0);
}
const run = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
const status = run.status ?? 1;
// Remembered only if no file changed while it ran: the pass is then known to be of these files.
if (status === 0 && key && treeKey() === key) {
  // Written under another name, then renamed: kept whole or not at all; a home that cannot take it
  // only costs the next run the check.
  try {
    mkdirSync(path.dirname(cacheFile), { recursive: true });
    const passed = [key, ...readPassed().filter((k) => k !== key)].slice(0, KEPT);
    writeFileSync(`${cacheFile}.${process.pid}`, JSON.stringify(passed));
    renameSync(`${cacheFile}.${process.pid}`, cacheFile);
  } catch {
    // see above
  }
}
process.exit(status);
