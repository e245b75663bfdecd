import * as shareRequests from '../../themes/shareRequests/schema';
import { fromJoi, withNotes } from '../fromJoi';
import { operation, pageParams, pathParam, queryParam, type Success } from '../operations';
import { shareCode, shareId, shareRequest, theme, themeId } from '../params';
import { pageOf, ref } from '../schemas';

/** What a theme file's routes answer. */
const assetAnswers: Success[] = [
  {
    status: '200',
    description: 'The file, with its sniffed type (FBX meshes: application/octet-stream; glTF: model/gltf-binary, model/gltf+json)',
    content: Object.fromEntries(
      [
        'image/png',
        'image/jpeg',
        'image/webp',
        'image/ktx2',
        'audio/wav',
        'audio/mpeg',
        'model/gltf-binary',
        'model/gltf+json',
        'application/octet-stream',
      ].map((type) => [type, { schema: { type: 'string' } }]),
    ),
    headers: { ETag: { type: 'string' } },
  },
  { status: '304', description: 'Not modified (If-None-Match)' },
];

const shareQuery = queryParam('share', 'The code of a share link of this theme (the last part of its `url`)', { type: 'string', maxLength: 64 });
const previewRule =
  'Without a key, only the built-in theme, or a theme whose live share link code comes as `?share=`; any other theme (or a code of another theme) is the same 404 as an unknown id, and a code that stopped working is a 410. The answer names no owner (`user`: null) and is `Cache-Control: no-store`.';

/** Themes, the dice box and share requests. */
export const themesPaths: Record<string, Record<string, unknown>> = {
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
          manifest: { type: 'string', contentMediaType: 'application/json', description: 'The JSON theme manifest (docs/spec.md §4.4)' },
          frag_shader: { type: 'string' },
          vert_shader: { type: 'string' },
          assets: {
            type: 'array',
            items: { type: 'string', contentMediaType: 'application/octet-stream' },
            description: 'Files named as the manifest references them',
          },
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
      success: assetAnswers,
      errors: ['not_found'],
    }),
  },

  '/api/1.0/theme/{id}/version/{version}/asset/{sha256}/{name}': {
    get: operation('getThemeAssetByHash', {
      tag: 'Themes',
      summary: 'A file of a theme version by its content-addressed URL (no key)',
      description:
        'The URL a theme answer gives for each file (`assets`, and every file field of the manifest). No key: `<img>`, `<audio>` and three.js loaders fetch it as it is; the SHA-256 of the bytes makes it unguessable. A wrong hash is a 404 like a missing file. Same answer as the keyed route: sniffed type, `ETag`, `Cache-Control: private, max-age=31536000, immutable`, `X-Content-Type-Options: nosniff`, a sandboxing Content-Security-Policy.',
      auth: false,
      limited: true,
      params: [
        themeId,
        pathParam('version', 'SemVer version'),
        pathParam('sha256', 'SHA-256 of the file, lower-case hex', { type: 'string', pattern: '^[0-9a-f]{64}$' }),
        pathParam('name', 'File name as the manifest gives it'),
      ],
      success: assetAnswers,
      errors: ['not_found'],
    }),
  },
  '/api/1.0/theme/{id}/preview': {
    get: operation('previewTheme', {
      tag: 'Themes',
      summary: 'The latest version of a theme, for its preview page (no key)',
      description: previewRule,
      auth: false,
      limited: true,
      params: [themeId, shareQuery],
      success: [{ status: '200', description: 'The theme (`user`: null)', schema: theme }],
      errors: ['not_found', 'gone'],
    }),
  },
  '/api/1.0/theme/{id}/version/{version}/preview': {
    get: operation('previewThemeVersion', {
      tag: 'Themes',
      summary: 'One version of a theme, for its preview page (no key)',
      description: previewRule,
      auth: false,
      limited: true,
      params: [themeId, pathParam('version', 'SemVer version'), shareQuery],
      success: [{ status: '200', description: 'The theme version (`user`: null)', schema: theme }],
      errors: ['not_found', 'gone'],
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
      body: withNotes(fromJoi(shareRequests.createBody), {
        theme: { description: 'Id of a theme you own' },
        expires_at: { description: 'In the future; null: never' },
        max_uses: { description: 'null: unlimited' },
      }),
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
      body: withNotes(fromJoi(shareRequests.updateBody), {
        '': { description: 'At least one of the two' },
        expires_at: { description: 'In the future; null: never' },
        max_uses: { description: 'null: unlimited' },
      }),
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
