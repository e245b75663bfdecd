import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Router, type Response } from 'express';
import { NotFoundError } from '../errors';
import type { AppDeps } from '../http/deps';
import { renderBoardPage } from './page';
import { renderFairnessPage } from './fairnessPage';

/**
 * GET /board/{slug}: the browser dice board, and GET /board/assets/{board.js,board.css,physics.js}; also
 * the theme preview page's script, /board/assets/preview.js (the page itself: src/themes/preview/).
 *
 * The script is bundled from src/board/main.ts (three.js, socket.io-client and the typed client
 * included: nothing comes from a CDN, so the board works offline) with esbuild, once per process, on
 * the first request, and kept in memory. `npm start` on a fresh clone serves it with no build step.
 */

const SLUG = /^[A-Za-z0-9_-]{1,64}$/;
const ENTRY = fileURLToPath(new URL('./main.ts', import.meta.url));
const STYLE = fileURLToPath(new URL('./board.css', import.meta.url));
const PREVIEW_ENTRY = fileURLToPath(new URL('./preview.ts', import.meta.url));
const PHYSICS = fileURLToPath(new URL('./dice/physicsWorker.ts', import.meta.url));

export interface BoardAssets {
  js: string;
  /** the throw's simulation, run in a Web Worker */
  physics: string;
  css: string;
  /** Content hash of both: the page asks for `?v=<version>`, so the assets can be cached for good. */
  version: string;
}

let assets: Promise<BoardAssets> | null = null;

/** Bundle the board (once; a failure is not cached, so the next request tries again). */
export function boardAssets(): Promise<BoardAssets> {
  assets ??= bundle().catch((err) => {
    assets = null;
    throw err;
  });
  return assets;
}

/** The theme preview page's script (src/board/preview.ts), with its content hash. */
export interface PreviewAssets {
  js: string;
  version: string;
}

let previewBundle: Promise<PreviewAssets> | null = null;

/** Bundle the preview script (once, apart from the board's: a page loads only its own). */
export function previewAssets(): Promise<PreviewAssets> {
  previewBundle ??= bundleScript(PREVIEW_ENTRY)
    .then((js) => ({ js, version: createHash('sha256').update(js).digest('hex').slice(0, 16) }))
    .catch((err) => {
      previewBundle = null;
      throw err;
    });
  return previewBundle;
}

export async function bundleScript(entry: string, format: 'esm' | 'iife' = 'esm'): Promise<string> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format,
    platform: 'browser',
    target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  return result.outputFiles[0]!.text;
}

async function bundle(): Promise<BoardAssets> {
  const [js, physics, css] = await Promise.all([
    bundleScript(ENTRY),
    // A classic worker script (no module workers needed).
    bundleScript(PHYSICS, 'iife'),
    readFile(STYLE, 'utf8'),
  ]);
  const version = createHash('sha256').update(js).update(physics).update(css).digest('hex').slice(0, 16);
  return { js, physics, css, version };
}

export const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-cache',
  // Scripts and styles from this server only: a username that slipped through as HTML could run nothing.
  // connect-src data:: three's GLTFLoader fetches a .gltf model's embedded buffers and images (data: URIs).
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'",
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
};

/**
 * The board's headers, by mode. The board joins the room with the key the browser keeps, so another
 * site must not show it in a frame and steer clicks on it: `frame-ancestors 'self'`, plus the sites an
 * operator names (FRAME_ANCESTORS; `*` lifts the limit). The overlay (`?overlay=1`) stays framable by any
 * site: streaming tools and integrations open it in a frame, and it has nothing to click (it never
 * offers to join: src/board/main.ts).
 */
export function boardPageHeaders(frameAncestors: readonly string[] | null): { board: Record<string, string>; overlay: Record<string, string> } {
  if (frameAncestors === null) return { board: PAGE_HEADERS, overlay: PAGE_HEADERS };
  const board: Record<string, string> = {
    ...PAGE_HEADERS,
    'Content-Security-Policy': `${PAGE_HEADERS['Content-Security-Policy']}; frame-ancestors ${["'self'", ...frameAncestors].join(' ')}`,
  };
  // Browsers without CSP frame-ancestors understand only this, and it cannot name other sites.
  if (!frameAncestors.length) board['X-Frame-Options'] = 'SAMEORIGIN';
  return { board, overlay: PAGE_HEADERS };
}

function sendAsset(res: Response, type: string, body: string, cacheable: boolean) {
  res
    .set({
      'Content-Type': type,
      'Cache-Control': cacheable ? 'public, max-age=31536000, immutable' : 'no-cache',
      'X-Content-Type-Options': 'nosniff',
    })
    .send(body);
}

export function boardRoutes(deps: AppDeps): Router {
  const router = Router();
  const headers = boardPageHeaders(deps.config.frameAncestors);

  router.get('/board/assets/:file', async (req, res) => {
    const file = req.params.file;
    if (file === 'preview.js') {
      const preview = await previewAssets();
      return sendAsset(res, 'text/javascript; charset=utf-8', preview.js, req.query.v === preview.version);
    }
    if (file !== 'board.js' && file !== 'board.css' && file !== 'physics.js') throw new NotFoundError(`The board has no asset "${String(file).slice(0, 64)}".`);
    const built = await boardAssets().catch((err: Error) => {
      deps.logger.error({ err: err.message }, 'bundling the board failed');
      throw err;
    });
    const cacheable = req.query.v === built.version;
    if (file === 'board.js') sendAsset(res, 'text/javascript; charset=utf-8', built.js, cacheable);
    else if (file === 'physics.js') sendAsset(res, 'text/javascript; charset=utf-8', built.physics, cacheable);
    else sendAsset(res, 'text/css; charset=utf-8', built.css, cacheable);
  });

  router.get('/fairness', async (_req, res) => {
    res.set(PAGE_HEADERS).send(renderFairnessPage((await boardAssets()).version));
  });

  router.get('/board/:slug', async (req, res) => {
    const slug = req.params.slug;
    if (!SLUG.test(slug)) throw new NotFoundError('There is no such room.');
    const built = await boardAssets();
    const overlay = req.query.overlay === '1' || req.query.overlay === 'true';
    res.set(overlay ? headers.overlay : headers.board).send(renderBoardPage(slug, overlay, built.version));
  });

  return router;
}
