import { Router } from 'express';
import { NotFoundError } from '../errors';
import type { AppDeps } from '../http/deps';
import { homeAssets } from './assets';
import { pageSession } from './session';
import { PRIVATE_PAGE_HEADERS, renderShell } from './shell';

/**
 * GET /: the home page for people (src/pages/home/main.ts renders it with Preact): create a room, my
 * rooms, join a room with an invite, who is signed in; the developer links below. Its data is the
 * browser's session (src/pages/session.ts) and what the server allows; rooms come from the API,
 * called with the page key (src/pages/client/pageKey.ts).
 *
 * `?room=SLUG` (the form of the page before it had a script, and links made for it) goes to that
 * room's board, `/room/{slug}`; only a slug is taken there, so no passcode travels through this address.
 */

const SLUG = /^[A-Za-z0-9_-]{1,64}$/;

/** The slug in what someone typed: a slug, or the path of a room or board address (passcode dropped). */
export function slugOf(text: string): string {
  const trimmed = text.trim();
  const path = /\/(?:room|board)\/([^/?#\s]+)/.exec(trimmed);
  return path ? path[1]! : trimmed;
}

export function homeRoutes(deps: AppDeps): Router {
  const router = Router();

  router.get('/', async (req, res) => {
    const room = typeof req.query.room === 'string' ? slugOf(req.query.room.slice(0, 2048)) : '';
    if (room) return res.redirect(303, `/room/${encodeURIComponent(room.slice(0, 200))}`);
    const [session, assets] = await Promise.all([pageSession(req, res), homeAssets()]);
    const page = { signupAllowed: deps.config.allowSignup, guestsAllowed: deps.config.allowGuests };
    res.set(PRIVATE_PAGE_HEADERS).send(
      renderShell({
        title: 'Open Dice: roll dice together',
        styles: [`/pages/assets/home.css?v=${assets.version}`],
        scripts: [`/pages/assets/home.js?v=${assets.version}`],
        body: session,
        app: { page: JSON.stringify(page) },
        markup: '<noscript><p>This page needs JavaScript. The API reference is at <a href="/docs">/docs</a>.</p></noscript>',
      }),
    );
  });

  router.get('/pages/assets/:file', async (req, res) => {
    const file = req.params.file;
    if (file !== 'home.js' && file !== 'home.css') throw new NotFoundError('The pages have no such asset.');
    const built = await homeAssets();
    res
      .set({
        'Content-Type': file === 'home.js' ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8',
        'Cache-Control': req.query.v === built.version ? 'public, max-age=31536000, immutable' : 'no-cache',
        'X-Content-Type-Options': 'nosniff',
      })
      .send(file === 'home.js' ? built.js : built.css);
  });

  return router;
}

export { SLUG as ROOM_SLUG };
