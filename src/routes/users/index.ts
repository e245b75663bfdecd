import { Router } from 'express';
import type { AppDeps } from '../../http/deps';
import { rateLimit } from '../../http/rateLimit';
import { validate } from '../../http/validate';
import { ForbiddenError, NotFoundError } from '../../errors';
import { createGuest, updateOwnUser } from '../../commands/users';
import { issueOwnApiKey, listLiveApiKeys, revokeApiKeys } from '../../commands/apiKeys';
import { presentUser } from '../../presenters/user';
import { presentApiKey, presentNewApiKey } from '../../presenters/apiKey';
import { list, one } from '../../http/envelope';
import { createKeyBody, keyParams, updateUserBody } from './schema';

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

/** /user behind auth: the key's own user, and that user's keys. */
export function userRoutes(_deps: AppDeps): Router {
  const router = Router();
  router.get('/', (req, res) => {
    res.json(one('user', presentUser(req.user!)));
  });

  router.patch('/', validate({ body: updateUserBody }), async (req, res) => {
    const user = await updateOwnUser(req.user!, req.body as { name?: string; username?: string });
    res.json(one('user', presentUser(user)));
  });

  // Live keys only, oldest first; `is_current` marks the one this request came with.
  router.get('/key', async (req, res) => {
    const keys = await listLiveApiKeys(req.user!.id);
    res.json(list('api_key', keys.map((k) => presentApiKey(k, req.apiKeyId))));
  });

  // The whole key is in this answer only: it is stored as a hash, so it can never be shown again.
  router.post('/key', validate({ body: createKeyBody }), async (req, res) => {
    const { key, apiKey } = await issueOwnApiKey(req.user!, (req.body as { name?: string }).name ?? 'api');
    res.status(201).set('Cache-Control', 'no-store').json(one('api_key', presentNewApiKey(apiKey, key, req.apiKeyId)));
  });

  // Through the same revocation as the operators' CLI; the user's last live key is refused (409 last_key).
  router.delete('/key/:prefix', validate({ params: keyParams }), async (req, res) => {
    const prefix = String(req.params.prefix);
    const count = await revokeApiKeys(prefix, { userId: req.user!.id, keepLastKey: true });
    if (!count) throw new NotFoundError(`You have no live key "${prefix}".`);
    res.status(204).end();
  });

  return router;
}
