import express, { Router, type Express } from 'express';
import type { AppDeps } from './http/deps';
import { auth } from './users/auth';
import { jsonBody } from './http/body';
import { CORS_PATHS, corsFor } from './http/cors';
import { clientAddressOf, compileTrust } from './http/clientAddress';
import { errorHandler, notFoundRoute } from './http/errorHandler';
import { unknownApiRoute } from './http/knownRoutes';
import { rateLimit } from './http/rateLimit';
import { requestLog } from './http/requestLog';
import { refuseMalformedUrls } from './http/urlShape';
import { healthRoutes } from './http/health';
import { guestRoutes, userRoutes } from './users/routes';
import { roomPublicRoutes, roomRoutes } from './rooms/routes';
import { themeRoutes } from './themes/routes';
import { rollRoutes } from './rolls/routes';
import { statsRoutes } from './stats/routes';
import { fairnessRoutes } from './fairness/routes';
import { diceBoxRoutes } from './themes/diceBox/routes';
import { shareRequestRoutes } from './themes/shareRequests/routes';
import { themePageFacts } from './themes/pageFacts';
import { dicePageRoutes } from './pages/diceBox/routes';
import { docsRoutes, openApiDocument, openApiRoutes } from './openapi';
import { boardRoutes, PAGE_HEADERS, previewAssets } from './board';
import { themePublicRoutes } from './themes/publicRoutes';
import { themePreviewPageRoutes } from './themes/preview/routes';
import { mountMetrics } from './metrics/http';
import { broadcastingRoutes } from './realtime/pusher/routes';
import { configureCaches } from './lib/invalidation';
import { accountRoutes } from './accounts/routes';
import { webhookRoutes } from './webhooks';
import { roomPageRoutes } from './pages/room/routes';
import { pageKeyRoutes } from './accounts/pageKeyRoutes';
import { pageSession } from './pages/session';
import { homeRoutes } from './pages/routes';
import { editorRoutes } from './pages/editor/routes';
import { activationApiRoutes, activationPageRoutes } from './activation/routes';

/** The Express app without a listener, so tests and main.ts build it the same way. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // The hot paths' in-process caches (lib/invalidation.ts): their TTL bounds a lost push.
  configureCaches({ ttlMs: deps.config.cacheTtlMs });
  // Exactly the proxies in front of us (TRUST_PROXY). req.ip is computed by the same function as the
  // Socket.IO handshakes' address, so both count one client under one address (http/clientAddress.ts).
  const trust = compileTrust(deps.config.trustProxy);
  app.set('trust proxy', trust);
  Object.defineProperty(app.request, 'ip', {
    configurable: true,
    enumerable: true,
    get: function (this: express.Request) {
      return clientAddressOf(this, trust);
    },
  });
  app.set('etag', false);

  mountMetrics(app, deps);
  app.use(requestLog(deps.logger));
  // Before everything that can answer (auth, limits, errors): preflights need no key, and every answer carries the headers.
  app.use(CORS_PATHS, corsFor(deps.config.corsOrigins));
  // Every path and query value, before any route reads one (http/urlShape.ts).
  app.use(refuseMalformedUrls());
  app.use(healthRoutes(deps));
  const body = jsonBody(deps.config.jsonBodyLimit);
  const api = Router();
  api.use(openApiRoutes());
  api.use('/user', guestRoutes(deps));
  // Room background images: loaded by <img> tags, which cannot send a key (see docs/api/rooms.md).
  api.use('/room', roomPublicRoutes(deps));
  // Theme files by their content-addressed URL, and the preview page's JSON (see docs/api/themes.md).
  api.use('/theme', themePublicRoutes(deps));
  // dddice's device login: an integration without a key asks for a code, then polls with its secret.
  api.use('/activate', activationApiRoutes(deps));
  // A path the API does not have is a 404 before it is a 401.
  api.use(unknownApiRoute(openApiDocument().paths));
  // Everything below needs a key, and counts against that key's rate limit.
  api.use(
    auth(deps),
    rateLimit(deps.rateLimitStore, { name: 'key', limit: deps.config.rateLimitPerMinute, windowMs: 60_000, key: (req) => String(req.apiKeyId!) }, deps.logger),
    body.afterAuth,
  );
  api.use(fairnessRoutes(deps));
  api.use('/user', userRoutes(deps));
  api.use('/room', roomRoutes(deps));
  api.use('/theme', themeRoutes(deps));
  api.use(rollRoutes(deps));
  api.use(statsRoutes());
  api.use('/dice-box', diceBoxRoutes(deps));
  api.use('/share-request', shareRequestRoutes(deps));
  api.use('/webhook', webhookRoutes(deps));
  api.use(notFoundRoute);
  // The API before the pages: its requests, almost all of the traffic, do not walk the pages' routes
  // (none of which is under /api/1.0). Small bodies now; larger ones only once the key is known good
  // (after auth and its rate limit).
  app.use('/api/1.0', body.beforeAuth, api);
  app.use(docsRoutes());
  // The home page for people (/): rooms to create, join and go back to.
  app.use(homeRoutes(deps));
  // Making dice: /dice/new (upload) and /dice/{themeId}/edit (the editor), before any /dice/{themeId} page.
  app.use(editorRoutes(deps));
  // The board (/board/{slug}, /room/{slug}) learns of the browser's session from the pages' helper.
  app.use(boardRoutes(deps, { pageData: pageSession }));
  // The theme preview page (no key), whose script the board's bundler builds.
  app.use(themePreviewPageRoutes(deps, { headers: PAGE_HEADERS, scriptVersion: async () => (await previewAssets()).version }));
  // The dice box, a theme's page (/dice/{id}) and a share link's page (/share/{code}), told of themes by the themes feature.
  app.use(dicePageRoutes(deps, themePageFacts));
  // The account pages (forms with their own small bodies and CSRF tokens); the API never reads their session.
  app.use(accountRoutes(deps));
  // A room's page and its stream address (/room/{slug}/settings, /room/{slug}/stream?key=).
  app.use(roomPageRoutes(deps));
  // The signed-in pages' API key (JSON for their scripts; same origin, CSRF header).
  app.use(pageKeyRoutes(deps));
  // /activate, where a signed-in person approves an integration's activation code (its own form body).
  app.use(activationPageRoutes(deps));
  // The stock dddice SDK's channel authorisation, at the root; its own small JSON or form bodies.
  app.use(broadcastingRoutes(deps));
  // Small bodies now for what the pages left (a 400 for a broken body before a 404, as on the API).
  app.use(body.beforeAuth);

  app.use(notFoundRoute);
  app.use(errorHandler(deps.logger));
  return app;
}
