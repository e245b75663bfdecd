import { Router, type Request, type Response } from 'express';
import { AppError, NotFoundError } from '../../errors';
import type { AppDeps } from '../../http/deps';
import { rateLimit } from '../../http/rateLimit';
import { pageSession } from '../session';
import { PRIVATE_PAGE_HEADERS, renderShell } from '../shell';
import { DICE_PAGE_SCRIPTS, isDicePageScript, type DicePageScript } from './assets';

/**
 * The dice pages for people, mounted at the site root (src/app.ts), each a Preact script over /api/1.0
 * called with the page key (src/pages/client/pageKey.ts), so the API decides what they show and allow:
 * - `GET /dice-box`: the dice box (src/pages/diceBox/main.ts);
 * - `GET /dice/{themeId}`: a theme's page, dddice's address of a theme (src/pages/theme/main.ts); an id
 *   that names no theme is a 404 page. `/dice/new` and `/dice/{themeId}/edit` belong to the editor's
 *   routes: this router passes `new` on;
 * - `GET /share/{code}`: a share link's page, where a person accepts it (src/pages/theme/accept.ts);
 *   a link that never was is a 404 page, one that expired, was used up or revoked a 410 page;
 * - `GET /dice-pages/assets/{file}`: their scripts and style sheet.
 * What the server must know of themes first (does the id exist, what does the link offer) comes from
 * the themes feature through `facts` (src/themes/pageFacts.ts), which src/app.ts hands over.
 */

/** What the themes feature tells these pages (src/themes/pageFacts.ts; pages may not import themes). */
export interface DicePageFacts {
  themeExists(id: string): Promise<boolean>;
  shareOffer(code: string): Promise<{
    code: string;
    theme: { id: string; name: string; version: string; description: string; label: { color?: string; background_color?: string } };
    sharer: { name: string; username: string } | null;
    expiresAt: string | null;
  }>;
}

const THEME_ID = /^[a-z0-9](?:[a-z0-9_-]{0,98}[a-z0-9])?$/;
const STYLE = 'dice.css';

async function assetUrls(script: DicePageScript) {
  const built = await DICE_PAGE_SCRIPTS[script]();
  return { styles: [`/dice-pages/assets/${STYLE}?v=${built.version}&of=${script}`], scripts: [`/dice-pages/assets/${script}?v=${built.version}`] };
}

/** A page with nothing to load: a heading and a sentence, in the pages' style (404 and 410 pages). */
async function sendRefusal(req: Request, res: Response, status: number, title: string, message: string) {
  const [urls, session] = await Promise.all([assetUrls('theme.js'), pageSession(req, res)]);
  res
    .status(status)
    .set(PRIVATE_PAGE_HEADERS)
    .send(
      renderShell({
        title: `${title} · Dice`,
        styles: urls.styles,
        // The theme page's script shows the refusal it finds in data-refusal-* (every value as text).
        scripts: urls.scripts,
        body: { ...session, 'refusal-title': title, 'refusal-message': message },
        markup: '<noscript><p>This page needs JavaScript.</p></noscript>',
      }),
    );
}

export function dicePageRoutes(deps: AppDeps, facts: DicePageFacts): Router {
  const router = Router();
  const sharePages = rateLimit(deps.rateLimitStore, { name: 'share-page', limit: 120, windowMs: 60_000, key: (req) => req.ip ?? 'unknown' }, deps.logger);

  router.get('/dice-pages/assets/:file', async (req, res) => {
    const file = req.params.file;
    // The style sheet is the same in every bundle; `of` says which bundle's hash `v` is.
    const of = file === STYLE ? String(req.query.of ?? 'theme.js') : file;
    if (!isDicePageScript(of) || (file !== STYLE && !isDicePageScript(file))) throw new NotFoundError('The dice pages have no such asset.');
    const built = await DICE_PAGE_SCRIPTS[of]();
    res
      .set({
        'Content-Type': file === STYLE ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8',
        'Cache-Control': req.query.v === built.version ? 'public, max-age=31536000, immutable' : 'no-cache',
        'X-Content-Type-Options': 'nosniff',
      })
      .send(file === STYLE ? built.css : built.js);
  });

  router.get('/dice-box', async (req, res) => {
    const [urls, session] = await Promise.all([assetUrls('diceBox.js'), pageSession(req, res)]);
    res
      .set(PRIVATE_PAGE_HEADERS)
      .send(renderShell({ title: 'My dice box · Dice', ...urls, body: { ...session, 'guests-allowed': String(deps.config.allowGuests) } }));
  });

  router.get('/dice/:id', async (req, res, next) => {
    const id = req.params.id;
    // `/dice/new` is the upload page (src/pages/editor): that address is its, even for a theme whose id is `new`.
    if (id === 'new') return next();
    if (!THEME_ID.test(id) || !(await facts.themeExists(id))) {
      return sendRefusal(req, res, 404, 'No such theme', `There is no dice theme "${id.slice(0, 100)}" on this server.`);
    }
    const [urls, session] = await Promise.all([assetUrls('theme.js'), pageSession(req, res)]);
    res.set(PRIVATE_PAGE_HEADERS).send(renderShell({ title: `${id} · Dice theme`, ...urls, body: { ...session, theme: id } }));
  });

  router.get('/share/:code', sharePages, async (req, res) => {
    // Cut rather than validated: a bad code gets the not-found page, not a JSON 400.
    const code = String(req.params.code).slice(0, 64);
    let offer: Awaited<ReturnType<DicePageFacts['shareOffer']>>;
    try {
      offer = await facts.shareOffer(code);
    } catch (err) {
      if (err instanceof AppError && (err.status === 404 || err.status === 410)) {
        return sendRefusal(req, res, err.status, err.status === 410 ? 'This share link no longer works' : 'Share link not found', err.message);
      }
      throw err;
    }
    const [urls, session] = await Promise.all([assetUrls('share.js'), pageSession(req, res)]);
    const { theme } = offer;
    res.set(PRIVATE_PAGE_HEADERS).send(
      renderShell({
        title: `${theme.name}: a dice theme shared with you`,
        ...urls,
        body: {
          ...session,
          'guests-allowed': String(deps.config.allowGuests),
          code: offer.code,
          theme: theme.id,
          'theme-name': theme.name,
          'theme-version': theme.version,
          'theme-description': theme.description,
          'label-color': theme.label.color,
          'label-background': theme.label.background_color,
          'sharer-name': offer.sharer?.name,
          'sharer-username': offer.sharer?.username,
          expires: offer.expiresAt ?? undefined,
        },
      }),
    );
  });

  return router;
}
