import { Router } from 'express';
import { PAGE_HEADERS } from '../../board';
import { NotFoundError } from '../../errors';
import type { AppDeps } from '../../http/deps';
import { streamPageRoutes } from '../stream/routes';
import { isRoomPageAsset, roomPageAssets } from './assets';
import { renderRoomShell } from './shell';

const SLUG = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The room page's headers: the board's CSP (scripts from this server only), never framed by any site
 * (it has buttons that remove people and clear the table), never cached, no Referer (an invite's
 * passcode may be in the address).
 */
const HEADERS = {
  ...PAGE_HEADERS,
  'Content-Security-Policy': `${PAGE_HEADERS['Content-Security-Policy']}; frame-ancestors 'none'`,
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
};

/**
 * The pages of a room besides its board, mounted at the site root (src/app.ts):
 * - `GET /room/{slug}/settings`: the room page (invite link, participants, the owner's and the
 *   participant's controls). The shell names the slug only; the script reads the room through
 *   /api/1.0 with the page's key, so the API decides what it shows and allows, as for any client.
 * - `GET /room/{slug}/stream?key=`: dddice's stream address (src/pages/stream/routes.ts).
 * - `GET /room-page/assets/{room.js,room.css,stream.js}`: their scripts and style.
 * A slug that cannot be one is a 404 here; whether the room exists, the page learns from the API.
 */
export function roomPageRoutes(deps: AppDeps): Router {
  const router = Router();

  router.get('/room-page/assets/:file', async (req, res) => {
    const file = req.params.file;
    if (!isRoomPageAsset(file)) throw new NotFoundError('The room pages have no such asset.');
    const built = await roomPageAssets();
    res
      .set({
        'Content-Type': file.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8',
        'Cache-Control': req.query.v === built.version[file] ? 'public, max-age=31536000, immutable' : 'no-cache',
        'X-Content-Type-Options': 'nosniff',
      })
      .send(built.files[file]);
  });

  router.get('/room/:slug/settings', async (req, res) => {
    const slug = req.params.slug;
    if (!SLUG.test(slug)) throw new NotFoundError('There is no such room.');
    const built = await roomPageAssets();
    res.set(HEADERS).send(renderRoomShell(slug, { js: built.version['room.js'], css: built.version['room.css'] }));
  });

  router.use(streamPageRoutes(deps));
  return router;
}
