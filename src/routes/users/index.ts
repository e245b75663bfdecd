import { Router } from 'express';
import type { AppDeps } from '../../http/deps';
import { rateLimit } from '../../http/rateLimit';
import { ForbiddenError } from '../../errors';
import { createGuest } from '../../commands/users';
import { presentUser } from '../../presenters/user';
import { one } from '../../presenters/envelope';

/** POST /user: the one route without a key (it is how a browser gets one). */
export function guestRoutes(deps: AppDeps): Router {
  const router = Router();
  const guestLimit = rateLimit(deps.rateLimitStore, { name: 'guest', limit: deps.config.guestsPerHour, windowMs: 3_600_000, key: (req) => req.ip ?? 'unknown' }, deps.logger);

  // No key needed: this is how a browser gets one.
  router.post('/', guestLimit, async (_req, res) => {
    if (!deps.config.allowGuests) throw new ForbiddenError('Guest accounts are disabled on this server: ask its operator for an API key.');
    const { key } = await createGuest();
    res.status(201).json(one('string', key));
  });
  return router;
}

/** GET /user: the key's own user (mounted behind auth). */
export function userRoutes(_deps: AppDeps): Router {
  const router = Router();
  router.get('/', (req, res) => {
    res.json(one('user', presentUser(req.user!)));
  });

  return router;
}
