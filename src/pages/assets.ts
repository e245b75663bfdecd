import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { bundleScript } from '../board';
import { sourceFile } from '../lib/sourceFiles';

/**
 * The home page's script (home/main.ts: Preact, bundled with esbuild as the board is, once per process
 * on first use, kept in memory) and style sheet, with a content hash for `?v=`.
 */

const ENTRY = sourceFile('pages/home/main.ts');
const STYLE = sourceFile('pages/home/home.css');

export interface PageAssets {
  js: string;
  css: string;
  version: string;
}

let assets: Promise<PageAssets> | null = null;

export function homeAssets(): Promise<PageAssets> {
  assets ??= Promise.all([bundleScript(ENTRY), readFile(STYLE, 'utf8')])
    .then(([js, css]) => ({ js, css, version: createHash('sha256').update(js).update(css).digest('hex').slice(0, 16) }))
    .catch((err) => {
      // Not cached: the next page view tries again.
      assets = null;
      throw err;
    });
  return assets;
}
