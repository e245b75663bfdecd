import { Router } from 'express';
import { boardAssets, boardPageHeaders } from '../../board';
import { renderBoardPage } from '../../board/page';
import { NotFoundError } from '../../errors';
import type { AppDeps } from '../../http/deps';
import { roomPageAssets } from '../room/assets';

const SLUG = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * `GET /room/{slug}/stream?key=...`: dddice's stream address, the board in overlay mode signed in with
 * the key in the query (as dddice's integrations send it). The key is a credential in a URL, so:
 * - the request log and nginx's access log never write query values that are secrets
 *   (src/http/requestLog.ts redactUrl, deploy/nginx.conf);
 * - the page's first script moves it out of the address bar at once, into memory and this tab's
 *   sessionStorage (moveKey.ts), before the board's script starts;
 * - `Referrer-Policy: no-referrer` (nothing the page loads is told its address) and
 *   `Cache-Control: no-store` (no cache keeps a page fetched with a key).
 * Framable by any site, as the overlay is: streaming tools and integrations open it in frames, and it
 * has nothing to click that changes anything.
 */
export function streamPageRoutes(deps: AppDeps): Router {
  const router = Router();
  const headers = { ...boardPageHeaders(deps.config.frameAncestors).overlay, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' };

  router.get('/room/:slug/stream', async (req, res) => {
    const slug = req.params.slug;
    if (!SLUG.test(slug)) throw new NotFoundError('There is no such room.');
    const [board, own] = await Promise.all([boardAssets(), roomPageAssets()]);
    // No session in it: the overlay is framed by other sites (as /board/{slug}?overlay=1).
    res.set(headers).send(renderBoardPage(slug, true, board.version, {}, `/room-page/assets/stream.js?v=${own.version['stream.js']}`));
  });
  return router;
}
