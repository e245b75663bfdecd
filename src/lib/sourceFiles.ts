import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the TypeScript sources are. The server bundles its browser scripts (the board, the pages) from
 * them at run time and reads its style sheets beside them. Run from the sources (tsx: development and
 * tests) this module is src/lib/sourceFiles.ts; built by scripts/build.mjs it sits inside dist/*.mjs,
 * and src/ is beside dist/ in the same checkout or image. So `import.meta.url` is read here only: in any
 * other module it would point into the bundle (test/ops/build.test.ts holds the rule).
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const runFromSources = path.basename(here) === 'lib' && path.basename(path.dirname(here)) === 'src';

export const SOURCE_ROOT = runFromSources ? path.dirname(here) : path.resolve(here, '../src');

/** A file of src/, by its path inside src/ (e.g. `board/main.ts`). */
export const sourceFile = (relative: string): string => path.join(SOURCE_ROOT, relative);
