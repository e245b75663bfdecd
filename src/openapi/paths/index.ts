import { DICE_CODES, operation, pageParams, pathParam, queryParam } from '../operations';
import { cursorPageOf, envelope, listOf, pageOf, ref, strict, TIMESTAMP_PATTERN, type Schema } from '../schemas';

/**
 * Every route the server answers, under its full path. Path parameters are named as the Express
 * routes name them; test/openapi/coverage.test.ts compares this list with the app's router.
 */

const slug = pathParam('slug', 'Room slug');
const participant = pathParam('participant', 'Participant id (the `id` of a participant in the room)', { type: 'integer', minimum: 1 });
const themeId = pathParam('id', 'Theme id');
const rollId = pathParam('uuid', 'Roll uuid', { type: 'string', format: 'uuid' });
const shareId = pathParam('id', 'Share request id (owners only)');
const shareCode = pathParam('code', 'The code of a share link (the last part of its `url`)');

const room = envelope('room', ref('Room'));
const roll = envelope('roll', ref('Roll'));
const theme = envelope('theme', ref('Theme'));
const shareRequest = envelope('share_request', ref('ShareRequest'));

const passcode: Schema = { type: ['string', 'null'], maxLength: 200, description: "A private room's passcode" };
const chosenPasscode: Schema = {
  type: ['string', 'null'],
  pattern: '^([A-Za-z0-9._~-]{4,64})?$',
  description: 'Your own passcode (4 to 64 of letters, digits, `. _ ~ -`); empty or null: none for a public room, a generated one for a private room',
};

const rateHeaders = {
  'RateLimit-Limit': { type: 'integer' },
  'RateLimit-Remaining': { type: 'integer' },
  'RateLimit-Reset': { type: 'integer' },
};

const html = (description: string) => ({ 'text/html': { schema: { type: 'string', description } } });
const image = { 'image/*': { schema: { type: 'string', contentMediaType: 'image/*' } } };

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

export const paths: Record<string, Record<string, unknown>> = {
  // Operations

  '/': {
    get: operation('homePage', {
      tag: 'Documentation',
      summary: 'What this server is, with links to the reference, this document, a room board and health (HTML)',
      auth: false,
      params: [queryParam('room', 'A room slug: redirects to its board, `/board/{slug}` (what the page\'s form sends)', { type: 'string' })],
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
      description: 'An HTML page that asks for an API key (or creates a guest), joins the room and shows it live. `?overlay=1` gives a transparent background for streaming software.',
      auth: false,
      params: [slug, queryParam('overlay', 'Transparent background, no forms (for streamers)', { enum: ['1', 'true'] })],
      success: [{ status: '200', description: 'The board', content: html('HTML page') }],
      errors: ['not_found'],
      validated: false,
    }),
  },
  '/board/assets/{file}': {
    get: operation('boardAsset', {
      tag: 'Board',
      summary: "The board's script and style sheet (bundled at start-up, no CDN)",
      auth: false,
      params: [pathParam('file', 'Asset name', { enum: ['board.js', 'board.css'] })],
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

  '/share/{code}': {
    get: operation('sharePage', {
      tag: 'Share requests',
      summary: 'The page a share link opens in a browser (no key needed)',
      auth: false,
      limited: true,
      params: [shareCode],
      success: [{ status: '200', description: 'What the link offers and how to accept it', content: html('HTML page') }],
      errors: ['not_found', 'gone'],
      validated: false,
      htmlErrors: ['404', '410'],
    }),
  },

  // Users

  '/api/1.0/user': {
    post: operation('createGuest', {
      tag: 'Users',
      summary: 'Create a guest user (no key needed)',
      description: 'Answers the new API key. Limited per client address (`GUESTS_PER_HOUR`); refused with 403 when the server disallows guests.',
      auth: false,
      limited: true,
      success: [{ status: '201', description: 'The API key of the new guest', schema: envelope('string', { type: 'string', pattern: '^dk_[\\w-]{43}$' }), headers: rateHeaders }],
      errors: ['forbidden'],
    }),
    get: operation('getUser', {
      tag: 'Users',
      summary: "The key's own user",
      success: [{ status: '200', description: 'The user', schema: envelope('user', ref('User')) }],
    }),
    patch: operation('updateUser', {
      tag: 'Users',
      summary: 'Change your own name or username',
      description: 'Usernames are unique regardless of case (409 `username_taken`), and the `guest-` prefix belongs to guests. A field left out is left as it is.',
      body: {
        type: 'object',
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 255, description: 'Not blank, no control characters' },
          username: { type: 'string', pattern: '^[\\w.-]{1,64}$', description: '1 to 64 letters, digits, dots, dashes or underscores' },
        },
      },
      example: { name: 'Alice Liddell', username: 'alice' },
      success: [{ status: '200', description: 'The user, changed', schema: envelope('user', ref('User')) }],
      errors: ['username_taken'],
    }),
  },
  '/api/1.0/user/key': {
    get: operation('listApiKeys', {
      tag: 'Users',
      summary: 'Your live API keys (never the keys themselves: only their prefixes)',
      success: [{ status: '200', description: 'Your live keys, oldest first', schema: listOf('api_key', ref('ApiKey')) }],
    }),
    post: operation('createApiKey', {
      tag: 'Users',
      summary: 'Create another API key: the whole key is in this answer only',
      description: 'Keys are stored as hashes, so the key cannot be shown again: keep it now. At most 20 live keys (409 `quota_exceeded`).',
      body: { type: 'object', properties: { name: { type: 'string', minLength: 1, maxLength: 64, description: 'A label to tell your keys apart', default: 'api' } } },
      bodyOptional: true,
      example: { name: 'stream overlay' },
      success: [{ status: '201', description: 'The new key, with `key`', schema: envelope('api_key', ref('NewApiKey')) }],
      errors: ['quota_exceeded'],
    }),
  },
  '/api/1.0/user/key/{prefix}': {
    delete: operation('deleteApiKey', {
      tag: 'Users',
      summary: 'Revoke one of your keys: it stops working at once (not your last live key: 409 `last_key`)',
      params: [pathParam('prefix', 'The key prefix, as the list shows it', { type: 'string', pattern: '^dk_[\\w-]{8}$' })],
      success: [{ status: '204', description: 'Revoked' }],
      errors: ['not_found', 'last_key'],
    }),
  },

  // Rooms

  '/api/1.0/room': {
    get: operation('listRooms', {
      tag: 'Rooms',
      summary: 'Rooms you created or joined',
      params: pageParams,
      success: [{ status: '200', description: 'A page of rooms, newest first', schema: pageOf('room', ref('Room')) }],
    }),
    post: operation('createRoom', {
      tag: 'Rooms',
      summary: 'Create a room',
      description: 'The creator joins as the first participant. A private room without a chosen passcode gets a generated one.',
      body: {
        type: 'object',
        properties: {
          name: { type: 'string', maxLength: 255, description: 'Default: a name made from your username' },
          is_public: { type: 'boolean', default: true },
          passcode: chosenPasscode,
        },
      },
      bodyOptional: true,
      example: { name: 'Friday game', is_public: false },
      success: [{ status: '201', description: 'The room', schema: room }],
      errors: ['quota_exceeded'],
    }),
  },
  '/api/1.0/room/{slug}': {
    get: operation('getRoom', {
      tag: 'Rooms',
      summary: 'A room with its participants',
      description: 'A private room needs its passcode unless you own it or are a participant.',
      params: [slug, queryParam('passcode', "A private room's passcode", { type: 'string', maxLength: 200 })],
      success: [{ status: '200', description: 'The room', schema: room }],
      errors: ['forbidden', 'not_found'],
    }),
    patch: operation('updateRoom', {
      tag: 'Rooms',
      summary: 'Rename a room, make it public or private, change its passcode or remove its background (owner only)',
      description: 'Changing the passcode of a private room removes every participant but the owner: they must join again with the new one.',
      params: [slug],
      body: {
        type: 'object',
        properties: {
          name: { type: 'string', maxLength: 255 },
          is_public: { type: 'boolean' },
          passcode: chosenPasscode,
          bg_file_path: { type: ['string', 'null'], description: 'Only null (remove the background); upload an image with POST /room/{slug}' },
        },
      },
      example: { name: 'Saturday game', is_public: true },
      success: [{ status: '200', description: 'The room', schema: room }],
      errors: ['forbidden', 'not_found', 'unprocessable'],
    }),
    post: operation('setRoomBackground', {
      tag: 'Rooms',
      summary: "Upload the room's background image (owner only)",
      params: [slug],
      multipart: {
        type: 'object',
        required: ['bg_file_path'],
        properties: { bg_file_path: { type: 'string', contentMediaType: 'image/*', description: 'PNG, JPEG, WebP or GIF, at most 5 MB' } },
      },
      success: [{ status: '200', description: 'The room, `bg_file_path` naming the image URL', schema: room }],
      errors: ['forbidden', 'not_found', 'quota_exceeded'],
    }),
    delete: operation('deleteRoom', {
      tag: 'Rooms',
      summary: 'Delete a room (owner only)',
      params: [slug],
      success: [{ status: '204', description: 'Deleted' }],
      errors: ['forbidden', 'not_found'],
    }),
  },
  '/api/1.0/room/{slug}/background/{file}': {
    get: operation('getRoomBackground', {
      tag: 'Rooms',
      summary: "The room's background image (no key: loaded by <img>)",
      auth: false,
      limited: true,
      params: [slug, pathParam('file', 'SHA-256 of the image and an extension', { type: 'string', pattern: '^[0-9a-f]{64}(\\.[a-z]{3,4})?$' })],
      success: [{ status: '200', description: 'The image', content: image }],
      errors: ['not_found'],
    }),
  },
  '/api/1.0/room/{slug}/participant': {
    post: operation('joinRoom', {
      tag: 'Participants',
      summary: 'Join a room',
      description: 'A private room needs its passcode, in the body or the query (`?passcode=`).',
      params: [slug, queryParam('passcode', "A private room's passcode", { type: 'string', maxLength: 200 })],
      body: { type: 'object', properties: { passcode } },
      bodyOptional: true,
      example: { passcode: 'h3k9wqz2' },
      success: [{ status: '200', description: 'The room, with you among its participants', schema: room }],
      errors: ['forbidden', 'not_found', 'already_participant', 'quota_exceeded'],
    }),
  },
  '/api/1.0/room/{slug}/participant/{participant}': {
    patch: operation('updateParticipant', {
      tag: 'Participants',
      summary: 'Change a participant’s username or colour (the participant or the owner)',
      params: [slug, participant],
      body: {
        type: 'object',
        properties: {
          username: {
            type: 'string',
            maxLength: 64,
            description: 'Stored normalized (NFKC, single spaces); no invisible, control or text-direction characters; not the name of another participant of the room (409 name_taken)',
          },
          color: { type: 'string', pattern: '^#[0-9a-fA-F]{6}$' },
          passcode,
        },
      },
      example: { username: 'Alice', color: '#4363d8' },
      success: [{ status: '200', description: 'The room', schema: room }],
      errors: ['forbidden', 'not_found', 'name_taken'],
    }),
    delete: operation('removeParticipant', {
      tag: 'Participants',
      summary: 'Leave a room, or remove a participant (owner)',
      params: [slug, participant],
      success: [{ status: '204', description: 'Removed' }],
      errors: ['forbidden', 'not_found'],
    }),
  },

  // Rolls

  '/api/1.0/roll': {
    post: operation('createRoll', {
      tag: 'Rolls',
      summary: 'Roll dice',
      description: 'Give `dice` (each with a `type` and a `theme`), or an `equation` in d20 syntax with a `theme` for all its dice.',
      body: {
        type: 'object',
        properties: {
          dice: { type: 'array', minItems: 1, maxItems: 100, items: ref('DieInput') },
          equation: { type: 'string', maxLength: 1000, examples: ['4d6kh3+2'] },
          theme: { type: 'string', description: 'Theme of every die of `equation`', default: 'standard' },
          operator: ref('Operator'),
          external_id: { type: 'string', maxLength: 255 },
          label: { type: 'string', maxLength: 255 },
          room: { type: ['string', 'null'], description: 'Room slug: the roll goes to that room' },
          whisper: { type: ['array', 'null'], items: { type: 'integer' }, description: 'Participant ids who alone (with you) see the roll' },
          direction: { type: 'number', minimum: 0, maximum: 360, description: 'Angle in degrees the roll was thrown (default: random)' },
          velocity: { type: 'number', minimum: 0, maximum: 100, description: 'How hard the roll was thrown (default: random)' },
        },
      },
      example: { dice: [{ type: 'd20', theme: 'standard' }, { type: 'mod', value: 5 }], room: 'k7d2mqx9h4tbw3ze', label: 'Perception' },
      success: [
        { status: '201', description: 'The roll', schema: roll },
        { status: '200', description: 'A roll you already made with this `external_id` (a retry): that roll, unchanged', schema: roll },
      ],
      errors: [...DICE_CODES, 'forbidden', 'not_found', 'unknown_theme', 'unknown_participant'],
    }),
    delete: operation('clearRoomTable', {
      tag: 'Rolls',
      summary: "Clear a room's table (its history): the room owner",
      params: [queryParam('room', 'Room slug', { type: 'string' })],
      success: [{ status: '204', description: 'Cleared' }],
      errors: ['forbidden', 'not_found'],
    }),
    patch: operation('updateRolls', {
      tag: 'Rolls',
      summary: 'Hide or show dice of several rolls',
      body: {
        type: 'object',
        required: ['rolls'],
        properties: {
          rolls: {
            type: 'array',
            items: {
              type: 'object',
              required: ['uuid', 'dice'],
              properties: { uuid: { type: 'string' }, dice: { type: 'array', items: ref('DieChange') } },
            },
          },
        },
      },
      example: { rolls: [{ uuid: '1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b', dice: [{ uuid: '6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f', is_hidden: false }] }] },
      success: [{ status: '200', description: 'The rolls', schema: listOf('roll', ref('Roll')) }],
      errors: ['unknown_roll_value', 'forbidden', 'not_found'],
    }),
  },
  '/api/1.0/roll/{uuid}': {
    get: operation('getRoll', {
      tag: 'Rolls',
      summary: 'A roll',
      params: [rollId],
      success: [{ status: '200', description: 'The roll', schema: roll }],
      errors: ['not_found'],
    }),
    patch: operation('updateRoll', {
      tag: 'Rolls',
      summary: 'Hide or show some of a roll’s dice (the roller)',
      params: [rollId],
      body: { type: 'object', required: ['dice'], properties: { dice: { type: 'array', items: ref('DieChange') } } },
      example: { dice: [{ uuid: '6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f', is_hidden: false }] },
      success: [{ status: '200', description: 'The roll', schema: roll }],
      errors: ['unknown_roll_value', 'forbidden', 'not_found'],
    }),
  },
  '/api/1.0/room/{slug}/roll': {
    get: operation('listRoomRolls', {
      tag: 'Rolls',
      summary: 'The rolls of a room you may see, newest first (participants)',
      description: 'Cursor-paged: follow `links.next` (`?before=<uuid of the last roll>`), null at the end.',
      params: [slug, queryParam('before', 'Only rolls older than this roll (its uuid)', { type: 'string', format: 'uuid' }), queryParam('limit', 'Rolls per page', { type: 'integer', minimum: 1, maximum: 100, default: 20 })],
      success: [{ status: '200', description: 'A page of rolls', schema: cursorPageOf('roll', ref('Roll')) }],
      errors: ['forbidden', 'not_found'],
    }),
    patch: operation('updateRoomRolls', {
      tag: 'Rolls',
      summary: 'Change the flags of all your dice in a room (clear the board, reveal...)',
      params: [slug],
      body: {
        type: 'object',
        required: ['dice'],
        properties: { dice: { type: 'object', properties: { is_hidden: { type: 'boolean' }, is_visible: { type: 'boolean' }, is_cleared: { type: 'boolean' } } } },
      },
      example: { dice: { is_cleared: true } },
      success: [{ status: '200', description: 'The rolls changed', schema: listOf('roll', ref('Roll')) }],
      errors: ['forbidden', 'not_found'],
    }),
  },

  // Themes

  '/api/1.0/theme': {
    get: operation('listThemes', {
      tag: 'Themes',
      summary: 'Themes you can roll with, latest version of each',
      params: pageParams,
      success: [{ status: '200', description: 'A page of themes', schema: pageOf('theme', ref('Theme')) }],
    }),
    post: operation('createTheme', {
      tag: 'Themes',
      summary: 'Publish a theme (or a new version of yours)',
      multipart: {
        type: 'object',
        required: ['manifest'],
        properties: {
          manifest: { type: 'string', contentMediaType: 'application/json', description: 'The JSON theme manifest (spec 4.4)' },
          frag_shader: { type: 'string' },
          vert_shader: { type: 'string' },
          assets: { type: 'array', items: { type: 'string', contentMediaType: 'application/octet-stream' }, description: 'Files named as the manifest references them' },
        },
      },
      success: [{ status: '201', description: 'The theme version', schema: theme }],
      errors: ['forbidden', 'not_found', 'version_conflict', 'quota_exceeded', 'unprocessable'],
    }),
  },
  '/api/1.0/theme/{id}': {
    get: operation('getTheme', {
      tag: 'Themes',
      summary: 'The latest version of a theme',
      params: [themeId],
      success: [{ status: '200', description: 'The theme', schema: theme }],
      errors: ['not_found'],
    }),
    delete: operation('deleteTheme', {
      tag: 'Themes',
      summary: 'Delete a theme, all its versions (owner only)',
      params: [themeId],
      success: [{ status: '204', description: 'Deleted' }],
      errors: ['forbidden', 'not_found'],
    }),
  },
  '/api/1.0/theme/{id}/version': {
    get: operation('listThemeVersions', {
      tag: 'Themes',
      summary: 'Every version of a theme, newest first',
      params: [themeId, ...pageParams],
      success: [{ status: '200', description: 'A page of versions', schema: pageOf('theme', ref('Theme')) }],
      errors: ['not_found'],
    }),
  },
  '/api/1.0/theme/{id}/version/{version}': {
    get: operation('getThemeVersion', {
      tag: 'Themes',
      summary: 'One version of a theme',
      params: [themeId, pathParam('version', 'SemVer version')],
      success: [{ status: '200', description: 'The theme version', schema: theme }],
      errors: ['not_found'],
    }),
  },
  '/api/1.0/theme/{id}/version/{version}/asset/{name}': {
    get: operation('getThemeAsset', {
      tag: 'Themes',
      summary: 'A file of a theme version (mesh, texture, sound)',
      params: [themeId, pathParam('version', 'SemVer version'), pathParam('name', 'File name as the manifest gives it')],
      success: [
        {
          status: '200',
          description: 'The file, with its sniffed type (FBX meshes: application/octet-stream)',
          content: Object.fromEntries(['image/png', 'image/jpeg', 'image/webp', 'image/ktx2', 'audio/wav', 'audio/mpeg', 'application/octet-stream'].map((type) => [type, { schema: { type: 'string' } }])),
          headers: { ETag: { type: 'string' } },
        },
        { status: '304', description: 'Not modified (If-None-Match)' },
      ],
      errors: ['not_found'],
    }),
  },

  // Dice box

  '/api/1.0/dice-box': {
    get: operation('listDiceBox', {
      tag: 'Dice box',
      summary: 'Themes in your dice box',
      params: [queryParam('filter', 'Only themes whose id or name contains this text'), queryParam('ids', 'Comma-separated theme ids'), ...pageParams],
      success: [{ status: '200', description: 'A page of themes', schema: pageOf('theme', ref('Theme')) }],
    }),
  },
  '/api/1.0/dice-box/{id}': {
    get: operation('getDiceBoxTheme', {
      tag: 'Dice box',
      summary: 'A theme of your dice box, at the version you hold',
      params: [themeId],
      success: [{ status: '200', description: 'The theme', schema: theme }],
      errors: ['not_found'],
    }),
    patch: operation('upgradeDiceBoxTheme', {
      tag: 'Dice box',
      summary: 'Upgrade a theme of your dice box to its latest version',
      params: [themeId],
      success: [{ status: '200', description: 'The theme at its latest version', schema: theme }],
      errors: ['not_found'],
    }),
    delete: operation('removeDiceBoxTheme', {
      tag: 'Dice box',
      summary: 'Take a theme out of your dice box (not the built-in theme: 403)',
      params: [themeId],
      success: [{ status: '204', description: 'Removed' }],
      errors: ['forbidden', 'not_found'],
    }),
  },

  // Share requests

  '/api/1.0/share-request': {
    get: operation('listShareRequests', {
      tag: 'Share requests',
      summary: 'Your share requests',
      params: pageParams,
      success: [{ status: '200', description: 'A page of share requests', schema: pageOf('share_request', ref('ShareRequest')) }],
    }),
    post: operation('createShareRequest', {
      tag: 'Share requests',
      summary: 'Share one of your themes through a URL',
      body: {
        type: 'object',
        required: ['theme'],
        properties: {
          theme: { type: 'string', maxLength: 100, description: 'Id of a theme you own' },
          expires_at: { type: ['string', 'null'], format: 'date-time', description: 'In the future; null: never' },
          max_uses: { type: ['integer', 'null'], minimum: 1, maximum: 1000000, description: 'null: unlimited' },
        },
      },
      example: { theme: 'oak', expires_at: '2030-01-31T12:00:00Z', max_uses: 10 },
      success: [{ status: '201', description: 'The share request, with its `url`', schema: shareRequest }],
      errors: ['forbidden', 'not_found', 'quota_exceeded'],
    }),
  },
  '/api/1.0/share-request/code/{code}': {
    get: operation('previewShareRequest', {
      tag: 'Share requests',
      summary: 'What a share link offers (anyone with a key)',
      params: [shareCode],
      success: [{ status: '200', description: 'The share request, without its owner-only fields', schema: shareRequest }],
      errors: ['not_found', 'gone'],
    }),
  },
  '/api/1.0/share-request/code/{code}/accept': {
    post: operation('acceptShareRequest', {
      tag: 'Share requests',
      summary: 'Accept a share link: its theme joins your dice box',
      params: [shareCode],
      success: [{ status: '200', description: 'The theme now in your dice box', schema: theme }],
      errors: ['not_found', 'already_in_dice_box', 'gone'],
    }),
  },
  '/api/1.0/share-request/{id}': {
    get: operation('getShareRequest', {
      tag: 'Share requests',
      summary: 'One of your share requests',
      params: [shareId],
      success: [{ status: '200', description: 'The share request', schema: shareRequest }],
      errors: ['not_found'],
    }),
    patch: operation('updateShareRequest', {
      tag: 'Share requests',
      summary: 'Change the expiry or the number of uses of your share request',
      params: [shareId],
      body: {
        type: 'object',
        properties: {
          expires_at: { type: ['string', 'null'], format: 'date-time' },
          max_uses: { type: ['integer', 'null'], minimum: 1, maximum: 1000000 },
        },
      },
      example: { max_uses: 20 },
      success: [{ status: '200', description: 'The share request', schema: shareRequest }],
      errors: ['not_found'],
    }),
    delete: operation('deleteShareRequest', {
      tag: 'Share requests',
      summary: 'Revoke your share request: its URL stops working',
      params: [shareId],
      success: [{ status: '204', description: 'Revoked' }],
      errors: ['not_found'],
    }),
  },
};

const apiKeyFields = {
  prefix: { type: 'string', pattern: '^dk_[\\w-]{8}$', description: 'The first characters of the key: they name it here and in the operators\' CLI' },
  name: { type: 'string' },
  is_current: { type: 'boolean', description: 'The key this request was made with' },
  created_at: { type: 'string', pattern: TIMESTAMP_PATTERN },
};

export const extraSchemas: Record<string, Schema> = {
  ApiKey: strict(apiKeyFields, { description: 'One of your API keys, without its secret' }),
  NewApiKey: strict({ ...apiKeyFields, key: { type: 'string', pattern: '^dk_[\\w-]{43}$', description: 'The whole key: shown once, never again' } }, { description: 'A key just created' }),
  DieChange: {
    type: 'object',
    description: 'New flags for one die of a roll; give at least one',
    required: ['uuid'],
    properties: { uuid: { type: 'string', format: 'uuid' }, is_hidden: { type: 'boolean' }, is_visible: { type: 'boolean' }, is_cleared: { type: 'boolean' } },
  },
};
