// The files of the work tree the checks read: tracked or new, not ignored by .gitignore (as Prettier's
// and ESLint's CLIs skip what it ignores), relative to the repository's root; null outside a git
// checkout (an unpacked archive), where the caller checks without remembering.
import { execFileSync } from 'node:child_process';

/** @returns {string[] | null} */
export function treeFiles(root) {
  try {
    const listing = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 64 * 2 ** 20,
    });
    return listing.split('\0').filter(Boolean);
  } catch {
    return null;
  }
}
