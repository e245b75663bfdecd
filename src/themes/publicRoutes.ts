import { Router, type RequestHandler } from 'express';
import type { AppDeps } from '../http/deps';
import { one } from '../http/envelope';
import { baseUrl } from '../http/paging';
import { rateLimit } from '../http/rateLimit';
import { validate } from '../http/validate';
import { sendThemeAsset } from './assetResponse';
import { presentOneTheme } from './present';
import { getPreviewTheme } from './preview/access';
import { previewLimit, previewRequestOf } from './preview/routes';
import { getPublicAssetMeta } from './read';
import * as s from './schema';

/**
 * /api/1.0/theme routes that need no key, mounted before `auth` (as room backgrounds): files by their
 * content-addressed URL, which <img>, <audio> and three.js loaders fetch without headers, and the theme
 * preview page's JSON. Limited per client address instead of per key.
 */
export function themePublicRoutes(deps: AppDeps): Router {
  const router = Router();
  const perAddress = rateLimit(
    deps.rateLimitStore,
    { name: 'theme-asset', limit: deps.config.rateLimitPerMinute, windowMs: 60_000, key: (req) => req.ip ?? 'unknown' },
    deps.logger,
  );

  const asset: RequestHandler = async (req, res) => {
    const p = req.params as Record<string, string>;
    await sendThemeAsset(req, res, await getPublicAssetMeta(p.id!, p.version!, p.sha256!, p.name!));
  };

  const preview: RequestHandler = async (req, res) => {
    const theme = await getPreviewTheme(previewRequestOf(req.params, req.query as Record<string, unknown>));
    res.set({ 'Cache-Control': 'no-store' }).json(one('theme', await presentOneTheme(theme, { baseUrl: baseUrl(req, deps.config) })));
  };

  router.get('/:id/version/:version/asset/:sha256/:name', perAddress, validate({ params: s.publicAssetParams }), asset);
  router.get('/:id/preview', previewLimit(deps), validate({ params: s.idParams, query: s.previewQuery }), preview);
  router.get('/:id/version/:version/preview', previewLimit(deps), validate({ params: s.versionParams, query: s.previewQuery }), preview);
  return router;
}
