import { headerParam, operation, pathParam, queryParam } from '../operations';
import { strict } from '../schemas';
import { html } from '../params';

/**
 * The account pages (src/accounts, docs/accounts.md): HTML for people, forms posted as
 * application/x-www-form-urlencoded with a `_csrf` token. A refused form is the page again with its
 * sentence (an HTML answer with the error's status); a body over 4 KiB is the JSON 413.
 */

const next = queryParam('next', 'A path of this site to go to once done (anything else: /account)', { type: 'string', maxLength: 512 });
const page = (id: string, summary: string, params = [next]) =>
  operation(id, {
    tag: 'Accounts',
    summary,
    auth: false,
    params,
    validated: false,
    success: [
      { status: '200', description: 'The page', content: html('HTML page') },
      { status: '303', description: 'Signed in already: to `next` or /account', headers: { Location: { type: 'string' } } },
    ],
  });
const form = (id: string, summary: string, description: string, success: Array<{ status: '200' | '201' | '303'; description: string }>) =>
  operation(id, {
    tag: 'Accounts',
    summary,
    description: `${description} Form fields (application/x-www-form-urlencoded) with \`_csrf\`, the token of the page the form came from: without it, 403.`,
    auth: false,
    limited: true,
    validated: false,
    errors: ['validation_error', 'unauthorized', 'forbidden', 'not_found', 'conflict', 'payload_too_large'],
    htmlErrors: ['400', '401', '403', '404', '409', '429'],
    success: success.map((s) => (s.status === '303' ? { ...s, headers: { Location: { type: 'string' } } } : { ...s, content: html('HTML page') })),
  });

export const accountsPaths: Record<string, Record<string, unknown>> = {
  '/signup': {
    get: page('signUpPage', 'The sign-up page (off with ALLOW_SIGNUP=false)'),
    post: form('signUp', 'Make an account and sign this browser in', 'Fields `username`, `password`, optional `next`. Limited per address (GUESTS_PER_HOUR).', [
      { status: '303', description: 'Signed in: to `next` or /account' },
    ]),
  },
  '/signin': {
    get: page('signInPage', 'The sign-in page'),
    post: form(
      'signIn',
      'Sign this browser in',
      'Fields `username`, `password`, optional `next`. Wrong passwords: one 401 sentence whether or not the user exists; limited per account and per address (429).',
      [{ status: '303', description: 'Signed in: to `next` or /account' }],
    ),
  },
  '/signout': {
    post: form('signOut', 'Sign this browser out (its session ends)', 'No fields but `_csrf`.', [{ status: '303', description: 'To /signin' }]),
  },
  '/claim': {
    get: page('claimPage', "A guest keeps its account: the page sends the board's kept guest key"),
    post: form(
      'claimGuest',
      'A guest becomes registered, keeping its rooms, rolls and dice box',
      "Fields `key` (the guest's API key), `username`, `password`, optional `next`. Limited per address (GUESTS_PER_HOUR).",
      [{ status: '303', description: 'Signed in: to `next` or /account' }],
    ),
  },
  '/account': {
    get: operation('accountPage', {
      tag: 'Accounts',
      summary: 'The developer settings: API keys (label, prefix, created, last used) and the password',
      auth: false,
      success: [
        { status: '200', description: 'The page', content: html('HTML page') },
        { status: '303', description: 'Not signed in: to /signin', headers: { Location: { type: 'string' } } },
      ],
    }),
  },
  '/account/keys': {
    post: form(
      'createKeyFromSettings',
      'Create an API key (shown once, on the page answered)',
      'Field `label` (1 to 64 characters). At most MAX_LIVE_KEYS live keys (409).',
      [{ status: '201', description: 'The page with the new key' }],
    ),
  },
  '/account/keys/revoke': {
    post: form(
      'revokeKeyFromSettings',
      'Revoke one of your API keys (its open sockets close)',
      'Field `prefix` (as the page lists it). The last key may be revoked here.',
      [{ status: '303', description: 'To /account' }],
    ),
  },
  '/account/password': {
    post: form(
      'changePassword',
      'Change your password: every session of the account ends',
      'Fields `current`, `password` (8 to 256 characters). A wrong current password counts as a failed sign-in.',
      [{ status: '303', description: 'To /signin' }],
    ),
  },
  '/account/page-key': {
    post: operation('pageKey', {
      tag: 'Accounts',
      summary: "The signed-in browser's page key: an API key bound to its session, revoked when the session ends",
      description:
        'For the pages\' own scripts: the session cookie, the session\'s CSRF token in `X-CSRF-Token`, and an `Origin` of this server (other origins and cross-site fetches: 403). The key is labelled "Web session", expires with the session, and is revoked by sign-out and password change; a session holds at most 4 live ones (the oldest is revoked). Not signed in: 401. `Cache-Control: no-store`.',
      auth: false,
      limited: true,
      validated: false,
      params: [headerParam('X-CSRF-Token', "The session's CSRF token (the page's `data-csrf`)")],
      errors: ['unauthorized', 'forbidden'],
      success: [
        {
          status: '201',
          description: 'A new page key, answered once',
          schema: strict({ key: { type: 'string', pattern: '^dk_' }, expires_at: { type: 'string', format: 'date-time' } }),
        },
      ],
    }),
  },
  '/accounts/assets/{file}': {
    get: operation('accountAsset', {
      tag: 'Accounts',
      summary: "The account pages' script and style sheet (bundled on first use, no CDN)",
      auth: false,
      params: [pathParam('file', 'Asset name', { enum: ['accounts.js', 'accounts.css'] })],
      success: [
        { status: '200', description: 'The asset', content: { 'text/javascript': { schema: { type: 'string' } }, 'text/css': { schema: { type: 'string' } } } },
      ],
      errors: ['not_found'],
      validated: false,
    }),
  },
};
