import { operation, pathParam, queryParam } from '../operations';
import { html, slug, themeId } from '../params';

/** The success of a page asset: a bundled script or a style sheet. */
const scriptOrStyle = [
  {
    status: '200' as const,
    description: 'The asset',
    content: { 'text/javascript': { schema: { type: 'string' } }, 'text/css': { schema: { type: 'string' } } },
  },
];

/**
 * A room's pages besides its board (src/pages/room, src/pages/stream; docs/board.md "Room page" and
 * "dddice's addresses"), and the dice pages (src/pages/diceBox, src/pages/theme; docs/pages.md): the
 * dice box and a theme's page, dddice's address of a theme. HTML for people; each page's script calls
 * /api/1.0 with a Bearer key like any client.
 */
export const roomPagesPaths: Record<string, Record<string, unknown>> = {
  '/room/{slug}/settings': {
    get: operation('roomSettingsPage', {
      tag: 'Board',
      summary: "A room's page: its invite link, its players, the owner's and each player's controls (HTML)",
      description:
        "The page reads and changes the room through /api/1.0 with the browser's key (the signed-in session's page key, else the guest key the board keeps): what it shows and allows is what the API answers that key. Never framed (`frame-ancestors 'none'`), `Cache-Control: no-store`, `Referrer-Policy: no-referrer`.",
      auth: false,
      params: [slug, queryParam('passcode', "A private room's passcode, to see it without being a player (an invite opened here)", { type: 'string' })],
      success: [{ status: '200', description: 'The page', content: html('HTML page') }],
      errors: ['not_found'],
      validated: false,
    }),
  },
  '/room/{slug}/stream': {
    get: operation('roomStreamPage', {
      tag: 'Board',
      summary: "dddice's stream address: the board's overlay, signed in with the key in the query (HTML)",
      description:
        "The transparent overlay (`/board/{slug}?overlay=1`) signed in with `key`, as dddice's integrations send it. The page's first script moves `key` and `passcode` out of the address bar at once (into memory and the tab's sessionStorage); no log line of the server writes them. Framable by any site, as the overlay is; `Cache-Control: no-store`, `Referrer-Policy: no-referrer`.",
      auth: false,
      params: [
        slug,
        queryParam('key', 'An API key of a player of the room (never logged)', { type: 'string' }),
        queryParam('passcode', "The room's passcode, when the key's user must join a private room (never logged)", { type: 'string' }),
        queryParam('sound', "The theme's sounds (silent by default, as in the overlay)", { enum: ['1'] }),
      ],
      success: [{ status: '200', description: 'The overlay', content: html('HTML page') }],
      errors: ['not_found'],
      validated: false,
    }),
  },
  '/room-page/assets/{file}': {
    get: operation('roomPageAsset', {
      tag: 'Board',
      summary: "The room page's script and style sheet, and the stream address's first script (bundled at start-up, no CDN)",
      auth: false,
      params: [pathParam('file', 'Asset name', { enum: ['room.js', 'room.css', 'stream.js'] })],
      success: scriptOrStyle,
      errors: ['not_found'],
      validated: false,
    }),
  },
  '/dice/{id}': {
    get: operation('diceThemePage', {
      tag: 'Themes',
      summary: "A theme's page, dddice's address of a theme: its versions, its dice in 3D, its manifest in words (HTML)",
      description:
        "The page reads the theme through /api/1.0 with the browser's key (docs/pages.md); without one it shows what the keyless preview shows: a public theme, or any theme with `?share=` the code of a live share link of it. An id that names no theme is a 404 page. Never framed, `Cache-Control: no-store`, `Referrer-Policy: no-referrer`.",
      auth: false,
      params: [themeId, queryParam('share', 'The code of a share link of this theme (for a browser without a key)', { type: 'string', maxLength: 64 })],
      success: [{ status: '200', description: 'The page', content: html('HTML page') }],
      errors: ['not_found'],
      validated: false,
      htmlErrors: ['404'],
    }),
  },
  '/dice-box': {
    get: operation('diceBoxPage', {
      tag: 'Themes',
      summary: 'The dice box page: your themes with pictures of their dice, filter, upgrade, remove (HTML)',
      description:
        "The page reads and changes the dice box through /api/1.0 with the browser's key, and shows themes arriving on the user's socket at once (docs/pages.md). Never framed, `Cache-Control: no-store`.",
      auth: false,
      success: [{ status: '200', description: 'The page', content: html('HTML page') }],
      errors: [],
      validated: false,
    }),
  },
  '/dice-pages/assets/{file}': {
    get: operation('dicePageAsset', {
      tag: 'Themes',
      summary: "The dice pages' scripts and style sheet (bundled on first use, no CDN)",
      auth: false,
      params: [
        pathParam('file', 'Asset name', { enum: ['diceBox.js', 'theme.js', 'share.js', 'dice.css'] }),
        queryParam('of', 'For `dice.css`: the script whose content hash `v` is', { enum: ['diceBox.js', 'theme.js', 'share.js'] }),
      ],
      success: scriptOrStyle,
      errors: ['not_found'],
      validated: false,
    }),
  },
  '/dice/new': {
    get: operation('diceUploadPage', {
      tag: 'Themes',
      summary: 'The upload page: a new dice theme from a form or a manifest file, its files dropped in (HTML)',
      description:
        'The page publishes through `POST /api/1.0/theme` with the browser\'s key and shows the API\'s `details` beside the field or file each names (docs/pages.md, "Making dice"). Without a session: 303 to /signin, which comes back. Never framed, `Cache-Control: no-store`.',
      auth: false,
      success: [
        { status: '200', description: 'The page', content: html('HTML page') },
        { status: '303', description: 'Not signed in: to /signin?next=/dice/new', headers: { Location: { type: 'string' } } },
      ],
      errors: [],
      validated: false,
    }),
  },
  '/dice/{id}/edit': {
    get: operation('diceEditorPage', {
      tag: 'Themes',
      summary: "The dice editor: a theme's uniforms, label colours, faces, sizes, sounds and shaders with a live 3D preview; Save version (HTML)",
      description:
        'The page reads the theme and publishes new versions through /api/1.0 with the browser\'s key (docs/pages.md, "Making dice"). Without a session: 303 to /signin, which comes back. An id that cannot be a theme\'s is a 404. Never framed, `Cache-Control: no-store`.',
      auth: false,
      params: [themeId],
      success: [
        { status: '200', description: 'The page', content: html('HTML page') },
        { status: '303', description: 'Not signed in: to /signin?next=this page', headers: { Location: { type: 'string' } } },
      ],
      errors: ['not_found'],
      validated: false,
    }),
  },
  '/dice-editor/assets/{file}': {
    get: operation('diceEditorAsset', {
      tag: 'Themes',
      summary: "The upload page's and the editor's script and style sheet (bundled on first use, no CDN)",
      auth: false,
      params: [pathParam('file', 'Asset name', { enum: ['editor.js', 'editor.css'] })],
      success: scriptOrStyle,
      errors: ['not_found'],
      validated: false,
    }),
  },
};
