import { Router } from 'express';
import type { AppDeps } from '../http/deps';
import { passcodeAttempts } from '../http/passcodeAttempts';
import { rateLimit } from '../http/rateLimit';
import { validate } from '../http/validate';
import * as h from './handlers';
import * as s from './schema';

/**
 * /api/1.0/room, behind `auth`. Only exact paths: `/room/:slug/roll` belongs to the rolls router
 * mounted after this one, so nothing here may match it.
 */
export function roomRoutes(deps: AppDeps): Router {
  const router = Router();
  // Wrong passcodes per user and room, wherever one is checked (viewing and joining).
  const attempt = passcodeAttempts(deps);
  router.get('/', validate({ query: s.listQuery }), h.listRooms(deps));
  router.post('/', validate({ body: s.createBody }), h.createRoomHandler);
  router.get('/:slug', validate({ params: s.slugParams, query: s.passcodeQuery }), h.getRoomHandler(attempt));
  router.patch('/:slug', validate({ params: s.slugParams, body: s.updateBody }), h.updateRoomHandler);
  router.post('/:slug', validate({ params: s.slugParams }), h.requireOwnedRoom, h.backgroundUpload, h.setBackgroundHandler(deps));
  router.delete('/:slug', validate({ params: s.slugParams }), h.deleteRoomHandler);
  router.post('/:slug/participant', validate({ params: s.slugParams, query: s.passcodeQuery, body: s.joinBody }), h.joinHandler(attempt));
  router.patch('/:slug/participant/:participant', validate({ params: s.participantParams, body: s.participantBody }), h.updateParticipantHandler);
  router.delete('/:slug/participant/:participant', validate({ params: s.participantParams }), h.removeParticipantHandler);
  return router;
}

/**
 * /api/1.0/room routes that need no key, mounted before `auth`: background images, which browsers
 * load with <img src> (no Authorization header). Limited per client address instead.
 */
export function roomPublicRoutes(deps: AppDeps): Router {
  const router = Router();
  const perAddress = rateLimit(deps.rateLimitStore, { name: 'room-bg', limit: deps.config.rateLimitPerMinute, windowMs: 60_000, key: (req) => req.ip ?? 'unknown' }, deps.logger);
  router.get('/:slug/background/:file', perAddress, validate({ params: s.backgroundParams }), h.getBackgroundHandler);
  return router;
}
