import { Router } from 'express';
import type { AppDeps } from '../http/deps';
import { validate } from '../http/validate';
import * as h from './handlers';
import * as s from './schema';

/**
 * Roll routes, mounted at the /api/1.0 root behind `auth` (after the room router, which leaves
 * `/room/:slug/roll` to this one): full paths here.
 */
export function rollRoutes(deps: AppDeps): Router {
  const router = Router();
  router.post('/roll', validate({ body: s.createBody }), h.createRollHandler);
  router.patch('/roll', validate({ body: s.bulkBody }), h.updateRollsHandler);
  router.delete('/roll', validate({ query: s.clearQuery }), h.clearRoomTableHandler);
  router.get('/roll/:uuid', validate({ params: s.uuidParams }), h.getRollHandler);
  router.patch('/roll/:uuid', validate({ params: s.uuidParams, body: s.updateBody }), h.updateRollHandler);
  router.get('/room/:slug/roll', validate({ params: s.slugParams, query: s.historyQuery }), h.historyHandler(deps));
  router.patch('/room/:slug/roll', validate({ params: s.slugParams, body: s.roomUpdateBody }), h.updateRoomRollsHandler);
  return router;
}
