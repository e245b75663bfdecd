import { Router, type Request, type Response } from 'express';
import type { AppDeps } from '../http/deps';
import { list, one } from '../http/envelope';
import { rateLimit } from '../http/rateLimit';
import { validate } from '../http/validate';
import { issueOwnApiKey, revokeOwnApiKey } from './apiKeys';
import { createGuest } from './create';
import { presentApiKey, presentNewApiKey, presentUser } from './present';
import { createKeyBody, keyParams, updateUserBody } from './schema';
import { listLiveApiKeys } from './store';
import { updateOwnUser, type UserChanges } from './update';

/**
 * The user routes, mounted at /api/1.0/user: POST / without a key (it is how a browser gets one), the
 * rest behind `auth`, where `req.user` is the key's user and `req.apiKeyId` the key.
 */

/** POST /user: the one route without a key. */
export function guestRoutes(deps: AppDeps): Router {
  const router = Router();
  const guestLimit = rateLimit(
    deps.rateLimitStore,
    { name: 'guest', limit: deps.config.guestsPerHour, windowMs: 3_600_000, key: (req) => req.ip ?? 'unknown' },
    deps.logger,
  );
  const createGuestHandler = async (_req: Request, res: Response) => {
    const { key } = await createGuest(deps.config.allowGuests);
    res.status(201).json(one('string', key));
  };
  router.post('/', guestLimit, createGuestHandler);
  return router;
}

/** /user behind auth: the key's own user, and that user's keys. */
export function userRoutes(_deps: AppDeps): Router {
  const router = Router();
  router.get('/', getUserHandler);
  router.patch('/', validate({ body: updateUserBody }), updateUserHandler);
  router.get('/key', listKeysHandler);
  router.post('/key', validate({ body: createKeyBody }), createKeyHandler);
  router.delete('/key/:prefix', validate({ params: keyParams }), revokeKeyHandler);
  return router;
}

async function getUserHandler(req: Request, res: Response) {
  res.json(one('user', presentUser(req.user!)));
}

async function updateUserHandler(req: Request, res: Response) {
  const user = await updateOwnUser(req.user!, req.body as UserChanges);
  res.json(one('user', presentUser(user)));
}

/** Live keys only, oldest first; `is_current` marks the one this request came with. */
async function listKeysHandler(req: Request, res: Response) {
  const keys = await listLiveApiKeys(req.user!.id);
  res.json(
    list(
      'api_key',
      keys.map((k) => presentApiKey(k, req.apiKeyId)),
    ),
  );
}

/** The whole key is in this answer only: it is stored as a hash, so it can never be shown again. */
async function createKeyHandler(req: Request, res: Response) {
  const { key, apiKey } = await issueOwnApiKey(req.user!, (req.body as { name?: string }).name ?? 'api');
  res
    .status(201)
    .set('Cache-Control', 'no-store')
    .json(one('api_key', presentNewApiKey(apiKey, key, req.apiKeyId)));
}

/** Through the same revocation as the operators' CLI; the user's last live key is refused (409 last_key). */
async function revokeKeyHandler(req: Request, res: Response) {
  await revokeOwnApiKey(req.user!, String(req.params.prefix));
  res.status(204).end();
}
