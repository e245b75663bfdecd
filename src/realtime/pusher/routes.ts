import express, { Router } from 'express';
import Joi from 'joi';
import type { AppDeps } from '../../http/deps';
import { rateLimit } from '../../http/rateLimit';
import { validate } from '../../http/validate';
import { UnsupportedMediaTypeError } from '../../errors';
import { auth } from '../../users/auth';
import { channelDataOf, grantChannel, keyRef } from './grants';
import { SDK_APP_KEY, SOCKET_ID } from './protocol';
import { authString } from './signature';

export const broadcastingAuthSchema = {
  body: Joi.object({
    socket_id: Joi.string()
      .pattern(SOCKET_ID)
      .required()
      .messages({ 'string.pattern.base': 'socket_id must be the socket id the gateway sent in pusher:connection_established (digits.digits)' }),
    channel_name: Joi.string().max(200).required(),
  }),
};

/** The whole body is a socket id and a channel name: anything near this size is not one. */
const BODY_LIMIT = '4kb';

/**
 * POST /broadcasting/auth, at the server root as the SDK calls it (docs/sdk.md): channel
 * authorisation for the Pusher gateway. Bearer key; JSON (the SDK) or form (pusher-js's own
 * authoriser) body `{socket_id, channel_name}`; 200 with `{auth, channel_data}` at the top level,
 * without the API's envelope, because pusher-js reads those fields from the body as it is. Refusals
 * are the API's JSON errors (pusher-js does not read them): 401 without a live key, 403 for a
 * channel the caller may not hear.
 */
export function broadcastingRoutes(deps: AppDeps): Router {
  const router = Router();
  const { secret } = deps.config.pusher;
  const parseJson = express.json({ limit: BODY_LIMIT, strict: true });
  const parseForm = express.urlencoded({ limit: BODY_LIMIT, extended: false });
  router.post(
    '/broadcasting/auth',
    (req, res, next) => {
      const type = (req.headers['content-type'] ?? '').toLowerCase();
      if (type.startsWith('application/x-www-form-urlencoded')) return parseForm(req, res, next);
      if (type === '' || type.startsWith('application/json')) return parseJson(req, res, next);
      next(new UnsupportedMediaTypeError('Send the body as JSON or application/x-www-form-urlencoded.'));
    },
    (req, _res, next) => {
      req.body ??= {};
      next();
    },
    auth(deps),
    rateLimit(deps.rateLimitStore, { name: 'key', limit: deps.config.rateLimitPerMinute, windowMs: 60_000, key: (req) => String(req.apiKeyId!) }, deps.logger),
    validate(broadcastingAuthSchema),
    async (req, res) => {
      const { socket_id: socketId, channel_name: channelName } = req.body as { socket_id: string; channel_name: string };
      const user = req.user!;
      const grant = await grantChannel(user, channelName);
      const channelData = channelDataOf(user, grant, keyRef(secret, req.apiKeyId!));
      res.json({ auth: authString(SDK_APP_KEY, secret, socketId, channelName, channelData), channel_data: channelData });
    },
  );
  return router;
}
