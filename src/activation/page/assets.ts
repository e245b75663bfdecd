import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { bundleScript } from '../../board';
import { sourceFile } from '../../lib/sourceFiles';

/**
 * The /activate page's script (page/main.ts: Preact, bundled with esbuild as the account pages are,
 * once per process on first use, kept in memory) and its style sheet, with a content hash for `?v=`.
 */

const ENTRY = sourceFile('activation/page/main.ts');
const STYLE = sourceFile('activation/page/activate.css');

export interface ActivateAssets {
  js: string;
  css: string;
  version: string;
}

let assets: Promise<ActivateAssets> | null = null;

export function activateAssets(): Promise<ActivateAssets> {
  assets ??= Promise.all([bundleScript(ENTRY), readFile(STYLE, 'utf8')])
    .then(([js, css]) => ({ js, css, version: createHash('sha256').update(js).update(css).digest('hex').slice(0, 16) }))
    .catch((err) => {
      // Not cached: the next page view tries again.
      assets = null;
      throw err;
    });
  return assets;
}
