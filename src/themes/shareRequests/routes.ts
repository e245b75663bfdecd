import { Router, type Request, type RequestHandler, type Response } from 'express';
import { AppError } from '../../errors';
import type { AppDeps } from '../../http/deps';
import { one, page } from '../../http/envelope';
import { baseUrl, listPath } from '../../http/paging';
import { rateLimit } from '../../http/rateLimit';
import { timestamp } from '../../http/time';
import { validate } from '../../http/validate';
import { presentUser } from '../../users/present';
import { manifestOf } from '../manifest/stored';
import { presentOneTheme } from '../present';
import { previewPagePath } from '../preview/access';
import { acceptShareRequest, previewShareRequest } from './accept';
import { shareErrorPage, sharePage } from './page';
import { presentShareRequest } from './present';
import * as s from './schema';
import { createShareRequest, getShareRequest, listShareRequests, revokeShareRequest, updateShareRequest, type LoadedShareRequest } from './share';

type PageQuery = { page: number; per_page: number };

/** `undefined` stays undefined (not sent), `null` stays null (clear), a string becomes a Date. */
function date(value: string | null | undefined): Date | null | undefined {
  return value === undefined || value === null ? value : new Date(value);
}

/** /api/1.0/share-request, behind `auth`: thin handlers, the use cases decide. */
export function shareRequestRoutes(deps: AppDeps): Router {
  const router = Router();
  const present = (req: Request) => (loaded: LoadedShareRequest) => presentShareRequest(loaded, req.user!, baseUrl(req, deps.config));

  const list: RequestHandler = async (req, res) => {
    const { page: n, per_page: perPage } = req.query as unknown as PageQuery;
    const { items, total } = await listShareRequests(req.user!, n, perPage);
    res.json(page('share_request', items.map(present(req)), { path: listPath(req, deps.config), page: n, perPage, total, query: { per_page: String(perPage) } }));
  };

  const create: RequestHandler = async (req, res) => {
    const { theme, expires_at, max_uses } = req.body as { theme: string; expires_at?: string | null; max_uses?: number | null };
    const loaded = await createShareRequest(req.user!, { theme, expiresAt: date(expires_at), maxUses: max_uses });
    res.status(201).json(one('share_request', present(req)(loaded)));
  };

  const get: RequestHandler = async (req, res) => {
    res.json(one('share_request', present(req)(await getShareRequest(req.user!, req.params.id as string))));
  };

  const update: RequestHandler = async (req, res) => {
    const { expires_at, max_uses } = req.body as { expires_at?: string | null; max_uses?: number | null };
    res.json(one('share_request', present(req)(await updateShareRequest(req.user!, req.params.id as string, { expiresAt: date(expires_at), maxUses: max_uses }))));
  };

  const revoke: RequestHandler = async (req, res) => {
    await revokeShareRequest(req.user!, req.params.id as string);
    res.status(204).end();
  };

  const preview: RequestHandler = async (req, res) => {
    res.json(one('share_request', present(req)(await previewShareRequest(req.params.code as string))));
  };

  const accept: RequestHandler = async (req, res) => {
    const theme = await acceptShareRequest(req.user!, req.params.code as string);
    res.json(one('theme', await presentOneTheme(theme, { baseUrl: baseUrl(req, deps.config) })));
  };

  router.get('/', validate({ query: s.listQuery }), list);
  router.post('/', validate({ body: s.createBody }), create);
  router.get('/code/:code', validate({ params: s.codeParams }), preview);
  router.post('/code/:code/accept', validate({ params: s.codeParams }), accept);
  router.get('/:id', validate({ params: s.idParams }), get);
  router.patch('/:id', validate({ params: s.idParams, body: s.updateBody }), update);
  router.delete('/:id', validate({ params: s.idParams }), revoke);
  return router;
}

const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  // the code in the URL is the capability: keep it out of Referer headers and caches
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

function sendPage(res: Response, status: number, html: string) {
  res.status(status).set(PAGE_HEADERS).send(html);
}

/**
 * `GET /share/{code}`: an HTML page for people who open a share link in a browser (no key needed). The
 * code is cut to 64 characters rather than validated: a bad one gets the not-found page, not a JSON 400.
 */
export function shareRoutes(deps: AppDeps): Router {
  const router = Router();
  const perAddress = rateLimit(deps.rateLimitStore, { name: 'share-page', limit: 120, windowMs: 60_000, key: (req) => req.ip ?? 'unknown' }, deps.logger);

  const show: RequestHandler = async (req, res) => {
    const code = String(req.params.code).slice(0, 64);
    try {
      const { request, theme } = await previewShareRequest(code);
      const base = baseUrl(req, deps.config);
      sendPage(res, 200, sharePage({
        theme: { id: theme.slug, name: theme.name, version: theme.version, description: theme.description ?? '', label: manifestOf(theme).label },
        user: request.user ? presentUser(request.user) : null,
        expiresAt: timestamp(request.expiresAt),
        acceptUrl: `${base}/api/1.0/share-request/code/${encodeURIComponent(request.code)}/accept`,
        // Root-relative: the preview is served by the server that served this page.
        previewUrl: `${previewPagePath(theme.slug)}?share=${encodeURIComponent(request.code)}`,
      }));
    } catch (err) {
      if (err instanceof AppError && (err.status === 404 || err.status === 410)) return sendPage(res, err.status, shareErrorPage(err.status, err.message));
      throw err;
    }
  };

  router.get('/:code', perAddress, show);
  return router;
}
