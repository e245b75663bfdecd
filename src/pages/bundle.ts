import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { bundleScript } from '../lib/scriptBundles';
import { sourceFile } from '../lib/sourceFiles';

/** A page's script and style sheet, with a content hash of both for `?v=` (the assets are then cached for good). */
export interface PageAssets {
  js: string;
  css: string;
  version: string;
}

/**
 * The assets of one Preact page: `entry` (a path in src/) bundled with esbuild as the board is, and its
 * style sheets (paths in src/) joined in order; made once per process on first use and kept in memory.
 * A failure is not kept: the next page view tries again.
 */
export function pageBundle(entry: string, styles: readonly string[]): () => Promise<PageAssets> {
  let assets: Promise<PageAssets> | null = null;
  return () => {
    assets ??= Promise.all([bundleScript(sourceFile(entry)), Promise.all(styles.map((style) => readFile(sourceFile(style), 'utf8')))])
      .then(([js, sheets]) => {
        const css = sheets.join('\n');
        return { js, css, version: createHash('sha256').update(js).update(css).digest('hex').slice(0, 16) };
      })
      .catch((err) => {
        assets = null;
        throw err;
      });
    return assets;
  };
}
