import { operation, pathParam, queryParam } from '../operations';
import { html, shareCode, slug, themeId } from '../params';
import { ref, strict, type Schema } from '../schemas';
import { rollSchemas, rollsPaths } from './rolls';
import { roomsPaths } from './rooms';
import { statsPaths, statsSchemas } from './stats';
import { themesPaths } from './themes';
import { userSchemas, usersPaths } from './users';
import { broadcastingPaths } from './broadcasting';
import { accountsPaths } from './accounts';
import { webhookSchemas, webhooksPaths } from './webhooks';
import { roomPagesPaths } from './roomPages';
import { activationPaths } from './activation';
import { fairnessPaths } from './fairness';

/** GET /metrics: without METRICS_TOKEN the main port has no such route, the 404 every unknown path gets. */
function metricsOperation(spec: Parameters<typeof operation>[1]) {
  const op = operation('metrics', spec) as { responses: Record<string, unknown> };
  op.responses['404'] = {
    description: 'Metrics are not served on this port (`METRICS_TOKEN` is not set). Codes: `route_not_found`.',
    'x-codes': ['route_not_found'],
    content: { 'application/json': { schema: ref('Error') } },
  };
  return op;
}

const previewShare = queryParam('share', 'The code of a share link of this theme', { type: 'string', maxLength: 64 });
const previewPageRule =
  'Shown without a key for the built-in theme, or with `?share=` the code of a live share link of this theme (the share page links here); otherwise a 404 page, the same as for an unknown id, and a 410 page for a link that stopped working. `Cache-Control: no-store`, `Referrer-Policy: no-referrer`, scripts from this server only.';

/** Operations, documentation and the pages for browsers. */
const pagePaths: Record<string, Record<string, unknown>> = {
  // Operations

  '/': {
    get: operation('homePage', {
      tag: 'Documentation',
      summary: 'The home page for people: create a room, my rooms, join a room with an invite; the developer links below (HTML)',
      description:
        'Rendered by its script (Preact) from `data-*` attributes; rooms come from the API with the page key (`POST /account/page-key` when signed in, else the guest key the browser keeps). Not framed, `Cache-Control: no-store`.',
      auth: false,
      params: [
        queryParam('room', 'A room slug, or a room address whose slug is taken (a passcode in it is not): redirects to its board, `/room/{slug}`', {
          type: 'string',
        }),
      ],
      validated: false,
      success: [
        { status: '200', description: 'The page', content: html('HTML page') },
        { status: '303', description: 'With `room`: to the board of that room', headers: { Location: { type: 'string' } } },
      ],
    }),
  },
  '/healthz': {
    get: operation('health', {
      tag: 'Operations',
      summary: 'Liveness: the process answers',
      auth: false,
      success: [{ status: '200', description: 'Alive', schema: strict({ status: { const: 'ok' } }) }],
    }),
  },
  '/readyz': {
    get: operation('readiness', {
      tag: 'Operations',
      summary: 'Readiness: the database (and Redis, when configured) answer',
      auth: false,
      success: [
        {
          status: '200',
          description: 'Ready. A 503 with the same shape (`status: "unavailable"`) names the check that failed.',
          schema: strict({ status: { enum: ['ready', 'unavailable'] }, checks: { type: 'object', additionalProperties: { type: 'string' } } }),
        },
      ],
    }),
  },

  '/metrics': {
    get: metricsOperation({
      tag: 'Operations',
      summary: 'Prometheus metrics of this instance (operators only; off unless configured)',
      description:
        'Served here only when `METRICS_TOKEN` is set, to requests that send it as `Authorization: Bearer <METRICS_TOKEN>` (not an API key); without it this path is a 404. `METRICS_PORT` serves the same text on a port of its own, without a token. The metrics are listed in docs/operations.md.',
      auth: false,
      success: [{ status: '200', description: 'The Prometheus text exposition format', content: { 'text/plain': { schema: { type: 'string' } } } }],
      errors: ['unauthorized'],
    }),
  },

  // Documentation and the board (HTML)

  '/api/1.0/openapi.json': {
    get: operation('openapi', {
      tag: 'Documentation',
      summary: 'This document (OpenAPI 3.1)',
      auth: false,
      success: [{ status: '200', description: 'The OpenAPI document', schema: { type: 'object', required: ['openapi', 'paths'] } }],
    }),
  },
  '/docs': {
    get: operation('docsPage', {
      tag: 'Documentation',
      summary: 'A readable reference of this document (HTML)',
      auth: false,
      success: [{ status: '200', description: 'The reference page', content: html('HTML page') }],
    }),
  },
  '/board/{slug}': {
    get: operation('boardPage', {
      tag: 'Board',
      summary: 'The browser dice board of a room',
      description:
        'An HTML page that asks for an API key (or creates a guest), joins the room and shows it live. `?overlay=1` gives a transparent background for streaming software.',
      auth: false,
      params: [
        slug,
        queryParam('overlay', 'Transparent background, no forms (for streamers)', { enum: ['1', 'true'] }),
        queryParam('sound', "The theme's sounds in overlay mode (silent by default there)", { enum: ['1'] }),
      ],
      success: [{ status: '200', description: 'The board', content: html('HTML page') }],
      errors: ['not_found'],
      validated: false,
    }),
  },
  '/room/{slug}': {
    get: operation('roomPage', {
      tag: 'Board',
      summary: "A room's board at the address invites carry (dddice's room address)",
      description:
        'The same board as `/board/{slug}`. Opened with `?passcode=` (an invite link), it joins the room at once: signed in as the account, else with the guest key the browser keeps, else as a new guest. Without a passcode, a browser that already has a key is asked before it joins. The page moves the passcode out of the address bar; logs never keep it.',
      auth: false,
      params: [
        slug,
        queryParam('passcode', "The room's passcode (an invite link of a private room)", { type: 'string', maxLength: 64 }),
        queryParam('overlay', 'Transparent background, no forms (for streamers)', { enum: ['1', 'true'] }),
      ],
      success: [{ status: '200', description: 'The board', content: html('HTML page') }],
      errors: ['not_found'],
      validated: false,
    }),
  },
  '/pages/assets/{file}': {
    get: operation('pageAsset', {
      tag: 'Board',
      summary: "The home page's script and style sheet (bundled on first use, no CDN)",
      auth: false,
      params: [pathParam('file', 'Asset name', { enum: ['home.js', 'home.css'] })],
      success: [
        { status: '200', description: 'The asset', content: { 'text/javascript': { schema: { type: 'string' } }, 'text/css': { schema: { type: 'string' } } } },
      ],
      errors: ['not_found'],
      validated: false,
    }),
  },
  '/fairness': {
    get: operation('fairnessPage', {
      tag: 'Board',
      summary: 'What the board\'s "verified" mark on a roll means (docs/fairness.md has the construction)',
      auth: false,
      success: [{ status: '200', description: 'The page', content: html('HTML page') }],
    }),
  },
  '/board/assets/{file}': {
    get: operation('boardAsset', {
      tag: 'Board',
      summary: "The board's script, its physics worker and its style sheet, and the theme preview page's script (bundled at start-up, no CDN)",
      auth: false,
      params: [pathParam('file', 'Asset name', { enum: ['board.js', 'physics.js', 'board.css', 'preview.js'] })],
      success: [
        {
          status: '200',
          description: 'The asset',
          content: { 'text/javascript': { schema: { type: 'string' } }, 'text/css': { schema: { type: 'string' } } },
        },
      ],
      errors: ['not_found'],
      validated: false,
    }),
  },

  '/theme/{id}/preview': {
    get: operation('themePreviewPage', {
      tag: 'Themes',
      summary: "A theme's preview page: its dice, for people choosing a theme (HTML, no key)",
      description: previewPageRule,
      auth: false,
      limited: true,
      params: [themeId, previewShare],
      success: [{ status: '200', description: 'The page (its script fetches `/api/1.0/theme/{id}/preview`)', content: html('HTML page') }],
      errors: ['not_found', 'gone'],
      validated: false,
      htmlErrors: ['404', '410'],
    }),
  },
  '/theme/{id}/version/{version}/preview': {
    get: operation('themeVersionPreviewPage', {
      tag: 'Themes',
      summary: "A theme version's preview page (HTML, no key)",
      description: previewPageRule,
      auth: false,
      limited: true,
      params: [themeId, pathParam('version', 'SemVer version'), previewShare],
      success: [{ status: '200', description: 'The page', content: html('HTML page') }],
      errors: ['not_found', 'gone'],
      validated: false,
      htmlErrors: ['404', '410'],
    }),
  },

  '/share/{code}': {
    get: operation('sharePage', {
      tag: 'Share requests',
      summary: 'The page a share link opens in a browser (no key needed to see it): accept it into your dice box',
      description:
        "What the link offers, and **Add to my dice box**, which accepts it with the browser's key (signing in, or as a guest, first): docs/pages.md.",
      auth: false,
      limited: true,
      params: [shareCode],
      success: [{ status: '200', description: 'What the link offers, and the button that accepts it', content: html('HTML page') }],
      errors: ['not_found', 'gone'],
      validated: false,
      htmlErrors: ['404', '410'],
    }),
  },
};

/**
 * Every route the server answers, under its full path. Path parameters are named as the Express
 * routes name them; test/openapi/coverage.test.ts compares this list with the app's router.
 */
export const paths: Record<string, Record<string, unknown>> = {
  ...pagePaths,
  ...usersPaths,
  ...roomsPaths,
  ...rollsPaths,
  ...statsPaths,
  ...themesPaths,
  ...broadcastingPaths,
  ...accountsPaths,
  ...activationPaths,
  ...roomPagesPaths,
  ...webhooksPaths,
  ...fairnessPaths,
};

export const extraSchemas: Record<string, Schema> = { ...userSchemas, ...rollSchemas, ...statsSchemas, ...webhookSchemas };
