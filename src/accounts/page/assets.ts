import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { bundleScript } from '../../board';
import { sourceFile } from '../../lib/sourceFiles';

/**
 * The account pages' script (page/main.ts: Preact, bundled with esbuild as the board is, once per
 * process on first use, kept in memory) and style sheet, with a content hash for `?v=`.
 */

const ENTRY = sourceFile('accounts/page/main.ts');
const STYLE = sourceFile('accounts/page/accounts.css');

export interface AccountAssets {
  js: string;
  css: string;
  version: string;
}

let assets: Promise<AccountAssets> | null = null;

export function accountAssets(): Promise<AccountAssets> {
  assets ??= Promise.all([bundleScript(ENTRY), readFile(STYLE, 'utf8')])
    .then(([js, css]) => ({ js, css, version: createHash('sha256').update(js).update(css).digest('hex').slice(0, 16) }))
    .catch((err) => {
      // Not cached: the next page view tries again.
      assets = null;
      throw err;
    });
  return assets;
}
