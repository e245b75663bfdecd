import { Router, type Request, type RequestHandler } from 'express';
import type { AppDeps } from '../http/deps';
import { one, page } from '../http/envelope';
import { baseUrl, listPath } from '../http/paging';
import { validate } from '../http/validate';
import { deleteTheme } from './delete';
import { presentOneTheme, presentThemes } from './present';
import { sendThemeAsset } from './assetResponse';
import { createTheme } from './publish';
import { getAssetMeta, getLatestTheme, getThemeVersion, listThemeVersions, listVisibleThemes } from './read';
import * as s from './schema';
import type { ThemeRecord } from './store/records';
import { parseThemeForm, themeUpload } from './upload';

type PageQuery = { page: number; per_page: number };

/**
 * /api/1.0/theme, behind `auth`. Thin handlers: validated input in, a use case (which decides who may),
 * a presenter out. `POST /` takes a multipart form: `parseThemeForm` reads it (its checks stand where
 * `validate` stands for JSON), and the use case checks the manifest and files.
 */
export function themeRoutes(deps: AppDeps): Router {
  const router = Router();
  const present = (req: Request) => (theme: ThemeRecord) => presentOneTheme(theme, { baseUrl: baseUrl(req, deps.config) });
  const presentAll = (req: Request, themes: ThemeRecord[]) => presentThemes(themes, { baseUrl: baseUrl(req, deps.config) });

  const list: RequestHandler = async (req, res) => {
    const { page: n, per_page: perPage } = req.query as unknown as PageQuery;
    const { items, total } = await listVisibleThemes(req.user!, n, perPage);
    res.json(page('theme', await presentAll(req, items), { path: listPath(req, deps.config), page: n, perPage, total, query: { per_page: String(perPage) } }));
  };

  const create: RequestHandler = async (req, res) => {
    const theme = await createTheme(req.user!, themeUpload(req));
    res.status(201).json(one('theme', await present(req)(theme)));
  };

  const latest: RequestHandler = async (req, res) => {
    res.json(one('theme', await present(req)(await getLatestTheme(req.params.id as string))));
  };

  const remove: RequestHandler = async (req, res) => {
    await deleteTheme(req.user!, req.params.id as string);
    res.status(204).end();
  };

  const versions: RequestHandler = async (req, res) => {
    const { page: n, per_page: perPage } = req.query as unknown as PageQuery;
    const { items, total } = await listThemeVersions(req.params.id as string, n, perPage);
    res.json(page('theme', await presentAll(req, items), { path: listPath(req, deps.config), page: n, perPage, total, query: { per_page: String(perPage) } }));
  };

  const version: RequestHandler = async (req, res) => {
    res.json(one('theme', await present(req)(await getThemeVersion(req.params.id as string, req.params.version as string))));
  };

  const asset: RequestHandler = async (req, res) => {
    await sendThemeAsset(req, res, await getAssetMeta(req.params.id as string, req.params.version as string, req.params.name as string));
  };

  router.get('/', validate({ query: s.listQuery }), list);
  router.post('/', parseThemeForm, create);
  router.get('/:id', validate({ params: s.idParams }), latest);
  router.delete('/:id', validate({ params: s.idParams }), remove);
  router.get('/:id/version', validate({ params: s.idParams, query: s.listQuery }), versions);
  router.get('/:id/version/:version', validate({ params: s.versionParams }), version);
  router.get('/:id/version/:version/asset/:name', validate({ params: s.assetParams }), asset);
  return router;
}
