import { Router } from 'express';
import { NotFoundError } from '../../errors';
import type { AppDeps } from '../../http/deps';
import { pageSession } from '../session';
import { PRIVATE_PAGE_HEADERS, renderShell } from '../shell';
import { streamPageRoutes } from '../stream/routes';
import { isRoomPageAsset, roomPageAssets } from './assets';

const SLUG = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The pages of a room besides its board, mounted at the site root (src/app.ts):
 * - `GET /room/{slug}/settings`: the room page (invite link, participants, the owner's and the
 *   participant's controls). The shell (src/pages/shell.ts) names the slug and the browser's session
 *   only; the script reads the room through /api/1.0 with the page key (src/pages/client/pageKey.ts),
 *   so the API decides what it shows and allows, as for any client. Served with the headers of pages
 *   with a person's controls: framed by no site (it has buttons that remove people and clear the
 *   table), kept by no cache, no Referer (an invite's passcode may be in the address).
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
    const [built, session] = await Promise.all([roomPageAssets(), pageSession(req, res)]);
    res.set(PRIVATE_PAGE_HEADERS).send(
      renderShell({
        title: 'Room settings · Dice',
        styles: [`/room-page/assets/room.css?v=${built.version['room.css']}`],
        scripts: [`/room-page/assets/room.js?v=${built.version['room.js']}`],
        // The slug (checked above; escaped by the shell as every value) and, signed in, what the page
        // key needs (src/pages/client/pageKey.ts).
        body: { ...session, slug },
      }),
    );
  });

  router.use(streamPageRoutes(deps));
  return router;
}
