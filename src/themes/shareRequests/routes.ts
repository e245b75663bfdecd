import { Router } from 'express';
import type { AppDeps } from '../../http/deps';
import { validate } from '../../http/validate';
import { shareRequestHandlers } from './handlers';
import { createShareRequestSchema, listShareRequestsSchema, shareCodeSchema, shareRequestSchema, updateShareRequestSchema } from './schema';

export function shareRequestRoutes(deps: AppDeps): Router {
  const router = Router();
  const h = shareRequestHandlers(deps);
  router.get('/', validate(listShareRequestsSchema), h.list);
  router.post('/', validate(createShareRequestSchema), h.create);
  router.get('/code/:code', validate(shareCodeSchema), h.preview);
  router.post('/code/:code/accept', validate(shareCodeSchema), h.accept);
  router.get('/:id', validate(shareRequestSchema), h.get);
  router.patch('/:id', validate(updateShareRequestSchema), h.update);
  router.delete('/:id', validate(shareRequestSchema), h.revoke);
  return router;
}
