import { headerParam, operation, pathParam, queryParam } from '../operations';
import { html, rateHeaders } from '../params';
import { envelope, strict, TIMESTAMP_PATTERN, type Schema } from '../schemas';

/**
 * Activation codes, dddice's device login (src/activation, docs/accounts.md "Activation codes"): two
 * API routes without a key, and the page where a signed-in person approves a code.
 */

const code: Schema = { type: 'string', pattern: '^[ABCDEFGHJKMNPQRSTUVWXYZ2-9]{6}$', description: '6 characters without look-alikes (no 0, O, 1, I or L)' };
const expiresAt: Schema = { type: 'string', pattern: TIMESTAMP_PATTERN, description: '10 minutes after the code was made' };
const ruleOfPage =
  'Signed out: 303 to /signin with `next` back here. A code that matches none counts against ACTIVATION_FAILURES_PER_HOUR (per account) and ACTIVATION_ADDRESS_FAILURES_PER_HOUR (per address): past either, 429 even for a right code.';

export const activationPaths: Record<string, Record<string, unknown>> = {
  '/api/1.0/activate': {
    post: operation('createActivationCode', {
      tag: 'Users',
      summary: 'Ask for an activation code: how an integration logs in as a person (no key needed)',
      description:
        'Answers a `code` the person types at `/activate` on this server and a `secret` only this caller holds (shown once; the server keeps its hash). The `X-Extension` header names the integration to the person and labels the key it gets. Then poll `GET /api/1.0/activate/{code}` with `Authorization: Secret <secret>`. Limited per client address (`ACTIVATIONS_PER_HOUR`).',
      auth: false,
      limited: true,
      params: [headerParam('X-Extension', "The integration's name (printable, at most 64 characters kept)", { type: 'string' })],
      validated: false,
      success: [
        {
          status: '201',
          description: 'The code and its secret',
          schema: envelope(
            'activate',
            strict({
              code,
              secret: { type: 'string', pattern: '^[\\w-]{43}$', description: 'Send it as `Authorization: Secret <secret>` when polling' },
              expires_at: expiresAt,
            }),
          ),
          headers: rateHeaders,
        },
      ],
    }),
  },
  '/api/1.0/activate/{code}': {
    get: operation('pollActivationCode', {
      tag: 'Users',
      summary: 'Poll an activation code: `token` is null until a person approves it, then the new API key, once',
      description:
        'With `Authorization: Secret <secret>` (not a Bearer key). The answer that carries the key spends the code: the next poll is 410. Two polls at once, on any instances, hand the key out once. Wrong secret 401; unknown code 404; expired (10 minutes) or spent 410; 409 `quota_exceeded` while the approving account holds 20 live keys (the code stays unspent). Polls are limited per code (60 a minute; the SDK polls every 5 s) and per address (`RATE_LIMIT_PER_MINUTE`).',
      auth: false,
      limited: true,
      params: [pathParam('code', 'The code POST /api/1.0/activate answered'), headerParam('Authorization', '`Secret <secret>`', { type: 'string' })],
      validated: false,
      success: [
        {
          status: '200',
          description: 'Waiting (`token` null) or approved (`token` the new API key)',
          schema: envelope(
            'activate',
            strict({
              code,
              expires_at: expiresAt,
              token: {
                anyOf: [{ type: 'null' }, { type: 'string', pattern: '^dk_[\\w-]{43}$' }],
                description: 'The new API key, in this one answer; null until approved',
              },
            }),
          ),
          headers: rateHeaders,
        },
      ],
      errors: ['unauthorized', 'not_found', 'gone', 'quota_exceeded'],
    }),
  },
  '/activate': {
    get: operation('activatePage', {
      tag: 'Accounts',
      summary: 'Approve an activation code: the page takes the code, then names the integration that asks',
      description: `With \`code\`: the integration's name and an Approve button (404 page for an unknown code, 410 for an expired or approved one). ${ruleOfPage}`,
      auth: false,
      limited: true,
      params: [queryParam('code', 'The code to look up (case, spaces and dashes forgiven)', { type: 'string', maxLength: 32 })],
      validated: false,
      success: [
        { status: '200', description: 'The page', content: html('HTML page') },
        { status: '303', description: 'Signed out: to /signin, and back here once signed in', headers: { Location: { type: 'string' } } },
      ],
      errors: ['validation_error', 'not_found', 'gone'],
      htmlErrors: ['400', '404', '410', '429'],
    }),
    post: operation('approveActivationCode', {
      tag: 'Accounts',
      summary: "Approve an activation code: its integration's next poll gets a new API key of this account",
      description: `Form fields (application/x-www-form-urlencoded) \`code\` and \`_csrf\`, the token of the page the form came from: without it, 403. 409 when the account holds 20 live keys or the code was approved meanwhile. ${ruleOfPage}`,
      auth: false,
      limited: true,
      validated: false,
      errors: ['validation_error', 'forbidden', 'not_found', 'conflict', 'quota_exceeded', 'gone', 'payload_too_large'],
      htmlErrors: ['400', '403', '404', '409', '410', '429'],
      success: [
        { status: '200', description: 'The page saying the integration can now roll as this account', content: html('HTML page') },
        { status: '303', description: 'Signed out: to /signin', headers: { Location: { type: 'string' } } },
      ],
    }),
  },
  '/activation/assets/{file}': {
    get: operation('activationAsset', {
      tag: 'Accounts',
      summary: "The activation page's script and style sheet (bundled on first use, no CDN)",
      auth: false,
      params: [pathParam('file', 'Asset name', { enum: ['activate.js', 'activate.css'] })],
      success: [
        { status: '200', description: 'The asset', content: { 'text/javascript': { schema: { type: 'string' } }, 'text/css': { schema: { type: 'string' } } } },
      ],
      errors: ['not_found'],
      validated: false,
    }),
  },
};
