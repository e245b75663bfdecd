import type { Request, RequestHandler } from 'express';
import type { AppDeps } from '../http/deps';
import { baseUrl, listPath } from '../http/paging';
import { createTheme, deleteTheme, findAssetMeta, getLatestTheme, getThemeVersion, listThemeVersions, listVisibleThemes, loadAssetData } from './publish';
import { NotFoundError } from '../errors';
import { one, page } from '../http/envelope';
import { presentTheme } from './present';
import type { Theme } from '../db/models';
import { themeUpload } from './upload';

type Params = Record<string, string>;
type PageQuery = { page: number; per_page: number };

export function themeHandlers(deps: AppDeps) {
  const present = (req: Request) => (theme: Theme) => presentTheme(theme, { baseUrl: baseUrl(req, deps.config) });

  const list: RequestHandler = async (req, res) => {
    const { page: n, per_page: perPage } = req.query as unknown as PageQuery;
    const { items, total } = await listVisibleThemes(req.user!, n, perPage);
    res.json(page('theme', items.map(present(req)), { path: listPath(req, deps.config), page: n, perPage, total, query: { per_page: String(perPage) } }));
  };

  const create: RequestHandler = async (req, res) => {
    const theme = await createTheme(req.user!, themeUpload(req));
    res.status(201).json(one('theme', present(req)(theme)));
  };

  const latest: RequestHandler<Params> = async (req, res) => {
    res.json(one('theme', present(req)(await getLatestTheme(req.params.id!))));
  };

  const remove: RequestHandler<Params> = async (req, res) => {
    await deleteTheme(req.user!, req.params.id!);
    res.status(204).end();
  };

  const versions: RequestHandler<Params> = async (req, res) => {
    const { page: n, per_page: perPage } = req.query as unknown as PageQuery;
    const { items, total } = await listThemeVersions(req.params.id!, n, perPage);
    res.json(page('theme', items.map(present(req)), { path: listPath(req, deps.config), page: n, perPage, total, query: { per_page: String(perPage) } }));
  };

  const version: RequestHandler<Params> = async (req, res) => {
    res.json(one('theme', present(req)(await getThemeVersion(req.params.id!, req.params.version!))));
  };

  // A version never changes: its files are cached for a year and revalidated by their hash.
  const asset: RequestHandler<Params> = async (req, res) => {
    const meta = await findAssetMeta(req.params.id!, req.params.version!, req.params.name!);
    if (!meta) throw new NotFoundError(`Version ${req.params.version} of the theme "${req.params.id}" has no file "${req.params.name}".`);
    const etag = `"${meta.sha256}"`;
    res.set({
      ETag: etag,
      'Cache-Control': 'private, max-age=31536000, immutable',
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; sandbox",
    });
    const match = req.headers['if-none-match'];
    if (match && match.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag || tag.trim() === '*')) {
      res.status(304).end();
      return;
    }
    const data = await loadAssetData(meta.id);
    res.set({ 'Content-Type': meta.contentType, 'Content-Length': String(data.length) });
    res.end(req.method === 'HEAD' ? undefined : data);
  };

  return { list, create, latest, remove, versions, version, asset };
}
