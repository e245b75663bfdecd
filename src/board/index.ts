import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Router, type Request, type Response } from 'express';
import { NotFoundError } from '../errors';
import type { AppDeps } from '../http/deps';
import { bundleScript } from '../lib/scriptBundles';
import { sourceFile } from '../lib/sourceFiles';
import { PAGE_HEADERS } from '../pages/shell';
import { renderBoardPage } from './page';
import { renderFairnessPage } from './fairnessPage';

/**
 * GET /board/{slug}: the browser dice board, and GET /board/assets/{board.js,board.css,physics.js}; also
 * the theme preview page's script, /board/assets/preview.js (the page itself: src/themes/preview/).
 *
 * The script is bundled from src/board/main.ts (three.js, socket.io-client and the typed client
 * included: nothing comes from a CDN, so the board works offline) with esbuild, once per process, on
 * the first request, and kept in memory (and on disk: src/lib/scriptBundles.ts). `npm start` on a fresh
 * clone serves it with no build step.
 */

const SLUG = /^[A-Za-z0-9_-]{1,64}$/;
const ENTRY = sourceFile('board/main.ts');
const STYLE = sourceFile('board/board.css');
const STATS_STYLE = sourceFile('pages/client/stats.css');
const PREVIEW_ENTRY = sourceFile('board/preview.ts');
const PHYSICS = sourceFile('board/dice/physicsWorker.ts');

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

async function bundle(): Promise<BoardAssets> {
  const [js, physics, css] = await Promise.all([
    bundleScript(ENTRY),
    // A classic worker script (no module workers needed).
    bundleScript(PHYSICS, 'iife'),
    // The board's own style sheet, then the statistics' die cards (shared with the room page).
    Promise.all([readFile(STYLE, 'utf8'), readFile(STATS_STYLE, 'utf8')]).then((sheets) => sheets.join('\n')),
  ]);
  const version = createHash('sha256').update(js).update(physics).update(css).digest('hex').slice(0, 16);
  return { js, physics, css, version };
}

/** The pages' headers live with the one page shell (src/pages/shell.ts); re-exported for the board's neighbours. */
export { PAGE_HEADERS };

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

/**
 * What a board page tells its script about the browser's session (src/pages/session.ts, given by
 * app.ts: the board does not import the account pages).
 */
export type PageData = (req: Request, res: Response) => Promise<Readonly<Record<string, string | undefined>>>;

export function boardRoutes(deps: AppDeps, options: { pageData?: PageData } = {}): Router {
  const router = Router();
  const headers = boardPageHeaders(deps.config.frameAncestors);
  const pageData: PageData = options.pageData ?? (async () => ({}));

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

  /**
   * The board of a room: /board/{slug}, and /room/{slug}, the address invites and dddice's integrations
   * use (mode `room`: whoever opens it with the passcode joins at once, a browser without any key as a
   * new guest; docs/pages.md, "Invite links"). `?passcode=` never reaches a log (http/loggedUrl.ts) and
   * the page moves it out of the address bar.
   */
  const boardPage = (mode: 'board' | 'room') => async (req: Request, res: Response) => {
    const slug = req.params.slug as string;
    if (!SLUG.test(slug)) throw new NotFoundError('There is no such room.');
    const built = await boardAssets();
    const overlay = req.query.overlay === '1' || req.query.overlay === 'true';
    // The overlay is framed by streaming tools and has nothing to click: no session in it.
    const page = overlay ? {} : await pageData(req, res);
    res
      .set(overlay ? headers.overlay : headers.board)
      // A signed-in page carries its session's CSRF token: kept by no cache.
      .set(page.session ? { 'Cache-Control': 'no-store' } : {})
      .send(renderBoardPage(slug, overlay, built.version, { ...page, mode }));
  };
  router.get('/board/:slug', boardPage('board'));
  router.get('/room/:slug', boardPage('room'));

  return router;
}
