import { Router, type Request, type Response } from 'express';
import { NotFoundError } from '../../errors';
import type { AppDeps } from '../../http/deps';
import { pageSession } from '../session';
import { PRIVATE_PAGE_HEADERS, renderShell } from '../shell';
import { editorAssets } from './assets';
import { THEME_ID } from './draft';

/**
 * The pages where people make dice (docs/pages.md, "Making dice"), mounted at the site root:
 * - `GET /dice/new`: upload a theme (its manifest as a form or a file, its files dropped in);
 * - `GET /dice/{themeId}/edit`: the editor, with the live 3D preview; saving publishes a version;
 * - `GET /dice-editor/assets/{editor.js,editor.css}`.
 * Both pages need a signed-in session: without one they send the browser to sign in and come back.
 * The shell names the page and the theme id only; the script reads and publishes themes through
 * /api/1.0 with the page key, so the API decides what may be read and published, as for any client.
 */

/** The pages' headers: those of pages with a person's controls, and sounds played from files just picked (blob: URLs). */
const HEADERS = {
  ...PRIVATE_PAGE_HEADERS,
  'Content-Security-Policy': `${PRIVATE_PAGE_HEADERS['Content-Security-Policy']}; media-src 'self' blob:`,
};

const FILES = { 'editor.js': 'text/javascript; charset=utf-8', 'editor.css': 'text/css; charset=utf-8' } as const;

export function editorRoutes(_deps: AppDeps): Router {
  const router = Router();

  async function page(req: Request, res: Response, view: 'new' | 'edit', theme?: string) {
    const session = await pageSession(req, res);
    if (!session.session) return res.redirect(303, `/signin?next=${encodeURIComponent(req.path)}`);
    const built = await editorAssets();
    res.set(HEADERS).send(
      renderShell({
        title: view === 'new' ? 'New dice theme · Open Dice' : 'Dice editor · Open Dice',
        styles: [`/dice-editor/assets/editor.css?v=${built.version}`],
        scripts: [`/dice-editor/assets/editor.js?v=${built.version}`],
        body: session,
        app: { view, theme },
      }),
    );
  }

  router.get('/dice/new', (req, res) => page(req, res, 'new'));
  router.get('/dice/:id/edit', (req, res) => {
    const id = req.params.id;
    if (!THEME_ID.test(id)) throw new NotFoundError('There is no such theme.');
    return page(req, res, 'edit', id);
  });
  router.get('/dice-editor/assets/:file', async (req, res) => {
    const file = req.params.file;
    if (!Object.hasOwn(FILES, file)) throw new NotFoundError('The editor has no such asset.');
    const built = await editorAssets();
    res
      .set({
        'Content-Type': FILES[file as keyof typeof FILES],
        'Cache-Control': req.query.v === built.version ? 'public, max-age=31536000, immutable' : 'no-cache',
        'X-Content-Type-Options': 'nosniff',
      })
      .send(file === 'editor.js' ? built.js : built.css);
  });
  return router;
}
