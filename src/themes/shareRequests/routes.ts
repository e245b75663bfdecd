import { Router, type Request, type RequestHandler } from 'express';
import type { AppDeps } from '../../http/deps';
import { one, page } from '../../http/envelope';
import { baseUrl, listPath } from '../../http/paging';
import { validate } from '../../http/validate';
import { presentOneTheme } from '../present';
import { acceptShareRequest, previewShareRequest } from './accept';
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
    res.json(
      page('share_request', items.map(present(req)), { path: listPath(req, deps.config), page: n, perPage, total, query: { per_page: String(perPage) } }),
    );
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
    res.json(
      one('share_request', present(req)(await updateShareRequest(req.user!, req.params.id as string, { expiresAt: date(expires_at), maxUses: max_uses }))),
    );
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
