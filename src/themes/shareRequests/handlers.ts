import type { Request, RequestHandler } from 'express';
import type { AppDeps } from '../../http/deps';
import { baseUrl, listPath } from '../../http/paging';
import {
  acceptShareRequest, createShareRequest, getShareRequest, listShareRequests, previewShareRequest, revokeShareRequest, updateShareRequest,
  type LoadedShareRequest,
} from './share';
import { one, page } from '../../http/envelope';
import { presentShareRequest } from './present';
import { presentTheme } from '../present';

type Params = Record<string, string>;
type PageQuery = { page: number; per_page: number };

/** `undefined` stays undefined (not sent), `null` stays null (clear), a string becomes a Date. */
function date(value: string | null | undefined): Date | null | undefined {
  return value === undefined || value === null ? value : new Date(value);
}

export function shareRequestHandlers(deps: AppDeps) {
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

  const get: RequestHandler<Params> = async (req, res) => {
    res.json(one('share_request', present(req)(await getShareRequest(req.user!, req.params.id!))));
  };

  const update: RequestHandler<Params> = async (req, res) => {
    const { expires_at, max_uses } = req.body as { expires_at?: string | null; max_uses?: number | null };
    res.json(one('share_request', present(req)(await updateShareRequest(req.user!, req.params.id!, { expiresAt: date(expires_at), maxUses: max_uses }))));
  };

  const revoke: RequestHandler<Params> = async (req, res) => {
    await revokeShareRequest(req.user!, req.params.id!);
    res.status(204).end();
  };

  const preview: RequestHandler<Params> = async (req, res) => {
    res.json(one('share_request', present(req)(await previewShareRequest(req.params.code!))));
  };

  const accept: RequestHandler<Params> = async (req, res) => {
    const theme = await acceptShareRequest(req.user!, req.params.code!);
    res.json(one('theme', presentTheme(theme, { baseUrl: baseUrl(req, deps.config) })));
  };

  return { list, create, get, update, revoke, preview, accept };
}
