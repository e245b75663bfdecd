import { Router } from 'express';
import type { AppDeps } from '../http/deps';
import { validate } from '../http/validate';
import { themeHandlers } from './handlers';
import { listThemesSchema, themeAssetSchema, themeSchema, themeVersionSchema, themeVersionsSchema } from './schema';
import { parseThemeForm } from './upload';

export function themeRoutes(deps: AppDeps): Router {
  const router = Router();
  const h = themeHandlers(deps);
  router.get('/', validate(listThemesSchema), h.list);
  router.post('/', parseThemeForm, h.create);
  router.get('/:id', validate(themeSchema), h.latest);
  router.delete('/:id', validate(themeSchema), h.remove);
  router.get('/:id/version', validate(themeVersionsSchema), h.versions);
  router.get('/:id/version/:version', validate(themeVersionSchema), h.version);
  router.get('/:id/version/:version/asset/:name', validate(themeAssetSchema), h.asset);
  return router;
}
