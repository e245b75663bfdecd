import { Router, type Response } from 'express';
import type { AppDeps } from '../../http/deps';
import { baseUrl } from '../../http/paging';
import { rateLimit } from '../../http/rateLimit';
import { previewShareRequest } from './share';
import { AppError } from '../../errors';
import { timestamp } from '../../http/time';
import { presentUser } from '../../presenters/user';
import { manifestOf } from '../manifest/stored';
import { shareErrorPage, sharePage } from './page';

const HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  // the code in the URL is the capability: keep it out of Referer headers and caches
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

function send(res: Response, status: number, html: string) {
  res.status(status).set(HEADERS).send(html);
}

/** `GET /share/{code}`: an HTML page for people who open a share link in a browser (no key needed). */
export function shareRoutes(deps: AppDeps): Router {
  const router = Router();
  const perAddress = rateLimit(deps.rateLimitStore, { name: 'share-page', limit: 120, windowMs: 60_000, key: (req) => req.ip ?? 'unknown' }, deps.logger);
  router.get<{ code: string }>('/:code', perAddress, async (req, res) => {
    const code = String(req.params.code).slice(0, 64);
    try {
      const { request, theme } = await previewShareRequest(code);
      const base = baseUrl(req, deps.config);
      send(res, 200, sharePage({
        theme: { id: theme!.slug, name: theme!.name, version: theme!.version, description: theme!.description ?? '', label: manifestOf(theme!).label },
        user: request.user ? presentUser(request.user) : null,
        expiresAt: timestamp(request.expiresAt),
        acceptUrl: `${base}/api/1.0/share-request/code/${encodeURIComponent(request.code)}/accept`,
      }));
    } catch (err) {
      if (err instanceof AppError && (err.status === 404 || err.status === 410)) return send(res, err.status, shareErrorPage(err.status, err.message));
      throw err;
    }
  });
  return router;
}
