import { Router, type RequestHandler, type Response } from 'express';
import { AppError } from '../../errors';
import type { AppDeps } from '../../http/deps';
import { rateLimit } from '../../http/rateLimit';
import { getPreviewTheme, type PreviewRequest } from './access';
import { previewErrorPage, previewPage } from './page';

/** A query or path value as a string, cut to `max` (the page shows a 404 page for nonsense, never a JSON 400). */
const text = (value: unknown, max: number) => (typeof value === 'string' && value ? value.slice(0, max) : undefined);

/** What a preview request (page or JSON) asks for. */
export function previewRequestOf(params: Record<string, unknown>, query: Record<string, unknown>): PreviewRequest {
  return { slug: text(params.id, 100) ?? '', version: text(params.version, 256), share: text(query.share, 64) };
}

/** Per client address, as the share page: these pages need no key. */
export const previewLimit = (deps: AppDeps) =>
  rateLimit(deps.rateLimitStore, { name: 'theme-preview', limit: 120, windowMs: 60_000, key: (req) => req.ip ?? 'unknown' }, deps.logger);

export interface PreviewPageOptions {
  /** the board's headers for its pages (Content-Security-Policy: scripts from this server only) */
  headers: Record<string, string>;
  /** the content hash of the bundled preview script (src/board/index.ts previewAssets) */
  scriptVersion: () => Promise<string>;
}

/**
 * `GET /theme/{id}/preview` and `GET /theme/{id}/version/{version}/preview` (site root, no key): the
 * theme preview page. Allowed (access.ts): 200 page;
 * otherwise a 404 or 410 page.
 */
export function themePreviewPageRoutes(deps: AppDeps, options: PreviewPageOptions): Router {
  const router = Router();
  const send = (res: Response, status: number, html: string) =>
    // The share code in the URL is a capability: no Referer, no caches.
    res
      .status(status)
      .set({ ...options.headers, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' })
      .send(html);

  const show: RequestHandler = async (req, res) => {
    const request = previewRequestOf(req.params, req.query as Record<string, unknown>);
    try {
      const theme = await getPreviewTheme(request);
      send(res, 200, previewPage({ slug: theme.slug, version: request.version, share: request.share, scriptVersion: await options.scriptVersion() }));
    } catch (err) {
      if (err instanceof AppError && (err.status === 404 || err.status === 410)) return send(res, err.status, previewErrorPage(err.status, err.message));
      throw err;
    }
  };

  router.get('/theme/:id/preview', previewLimit(deps), show);
  router.get('/theme/:id/version/:version/preview', previewLimit(deps), show);
  return router;
}
