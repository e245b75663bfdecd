import * as users from '../../users/schema';
import { fromJoi, withNotes } from '../fromJoi';
import { operation, pathParam } from '../operations';
import { rateHeaders } from '../params';
import { envelope, listOf, ref, strict, TIMESTAMP_PATTERN, type Schema } from '../schemas';

/** Users: guests, the key's own user, its API keys. */
export const usersPaths: Record<string, Record<string, unknown>> = {
  '/api/1.0/user': {
    post: operation('createGuest', {
      tag: 'Users',
      summary: 'Create a guest user (no key needed)',
      description: 'Answers the new API key. Limited per client address (`GUESTS_PER_HOUR`); refused with 403 when the server disallows guests.',
      auth: false,
      limited: true,
      success: [
        {
          status: '201',
          description: 'The API key of the new guest',
          schema: envelope('string', { type: 'string', pattern: '^dk_[\\w-]{43}$' }),
          headers: rateHeaders,
        },
      ],
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
      description:
        'Usernames are unique regardless of case (409 `username_taken`), and the `guest-` prefix belongs to guests. A field left out is left as it is.',
      body: withNotes(fromJoi(users.updateUserBody), {
        name: { description: 'Not blank, no control characters' },
        username: { description: '1 to 64 letters, digits, dots, dashes or underscores' },
      }),
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
      body: withNotes(fromJoi(users.createKeyBody), { name: { description: 'A label to tell your keys apart', default: 'api' } }),
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
};

const apiKeyFields = {
  prefix: { type: 'string', pattern: '^dk_[\\w-]{8}$', description: "The first characters of the key: they name it here and in the operators' CLI" },
  name: { type: 'string' },
  is_current: { type: 'boolean', description: 'The key this request was made with' },
  created_at: { type: 'string', pattern: TIMESTAMP_PATTERN },
};

export const userSchemas: Record<string, Schema> = {
  ApiKey: strict(apiKeyFields, { description: 'One of your API keys, without its secret' }),
  NewApiKey: strict(
    { ...apiKeyFields, key: { type: 'string', pattern: '^dk_[\\w-]{43}$', description: 'The whole key: shown once, never again' } },
    { description: 'A key just created' },
  ),
};
