import { ref, type Schema } from './schemas';

/** Small builders for operations, so each endpoint in paths/*.ts reads as one declaration. */

export const ERROR_RESPONSES = {
  '400': {
    description: 'The request is invalid: `details` lists every bad field',
    codes: [
      'validation_error',
      'malformed_json',
      'malformed_url',
      'bad_request',
      'invalid_upload',
      'invalid_dice',
      'invalid_operator',
      'invalid_equation',
      'too_many_dice',
      'unknown_roll_value',
    ],
  },
  '401': { description: 'No API key, a malformed header, or an unknown or revoked key', codes: ['unauthorized'] },
  '403': { description: 'Not allowed (not the owner, wrong or missing passcode, guests disabled)', codes: ['forbidden'] },
  '404': { description: 'No such resource, or one you may not know exists', codes: ['not_found'] },
  '409': {
    description: 'Conflict with the current state',
    codes: [
      'conflict',
      'already_participant',
      'name_taken',
      'version_conflict',
      'already_in_dice_box',
      'username_taken',
      'last_key',
      'quota_exceeded',
      'idempotency_key_in_flight',
    ],
  },
  '410': { description: 'Gone: a share link that expired, was used up or revoked', codes: ['gone'] },
  '413': { description: 'The body or upload is over its limit', codes: ['payload_too_large'] },
  '415': { description: 'A body that is neither JSON nor (where taken) multipart, or an unsupported file type', codes: ['unsupported_media_type'] },
  '422': {
    description: 'Valid JSON that makes no sense (a die the theme does not have, a theme you cannot roll with...)',
    codes: ['unprocessable', 'unknown_die', 'unknown_theme', 'unknown_participant', 'idempotency_key_reused', 'dice_not_addable'],
  },
  '429': { description: 'Over a rate limit: `Retry-After` says when to come back', codes: ['rate_limited'] },
  '503': { description: 'The database is unreachable: try again shortly', codes: ['service_unavailable'] },
} as const satisfies Record<string, { description: string; codes: readonly string[] }>;

/** Every error code an operation can list (each belongs to one status). */
export type Code = (typeof ERROR_RESPONSES)[keyof typeof ERROR_RESPONSES]['codes'][number];

const STATUS_OF = new Map<string, Status>(Object.entries(ERROR_RESPONSES).flatMap(([status, info]) => info.codes.map((code) => [code, status as Status])));

export function statusOf(code: Code): Status {
  return STATUS_OF.get(code)!;
}

/** The dice engine's refusals of a roll request (docs/dice.md). */
export const DICE_CODES: Code[] = ['invalid_dice', 'invalid_operator', 'invalid_equation', 'too_many_dice', 'unknown_die'];
/** What reading any request body can answer, before the route sees it (src/http/body.ts): every write. */
export const BODY_CODES: Code[] = ['malformed_json', 'bad_request', 'payload_too_large', 'unsupported_media_type'];

export type Status = keyof typeof ERROR_RESPONSES;

export interface Param {
  name: string;
  in: 'path' | 'query' | 'header';
  description?: string;
  required?: boolean;
  schema: Schema;
}

export const pathParam = (name: string, description: string, schema: Schema = { type: 'string' }): Param => ({
  name,
  in: 'path',
  required: true,
  description,
  schema,
});
export const queryParam = (name: string, description: string, schema: Schema = { type: 'string' }): Param => ({ name, in: 'query', description, schema });
export const headerParam = (name: string, description: string, schema: Schema = { type: 'string' }): Param => ({ name, in: 'header', description, schema });

export const pageParams: Param[] = [
  queryParam('page', 'Page number, from 1', { type: 'integer', minimum: 1, default: 1 }),
  queryParam('per_page', 'Items per page', { type: 'integer', minimum: 1, maximum: 100, default: 20 }),
];

export interface Success {
  status: '200' | '201' | '202' | '204' | '303' | '304';
  description: string;
  /** JSON body schema; absent for 204. */
  schema?: Schema;
  /** Other content types (images, HTML...). */
  content?: Record<string, { schema: Schema }>;
  headers?: Record<string, Schema>;
}

export interface OperationSpec {
  summary: string;
  description?: string;
  tag: string;
  /** Needs `Authorization: Bearer <key>` (default true). */
  auth?: boolean;
  params?: Param[];
  body?: Schema;
  /** An example request body, shown on /docs. */
  example?: unknown;
  multipart?: Schema;
  /** Express accepts a missing body as {} (body-less POST/PATCH from SDKs). */
  bodyOptional?: boolean;
  success: Success[];
  /**
   * The error codes this operation can answer besides those it gets from its shape (a key: 401 and
   * 429; parameters: `malformed_url`, and `validation_error` unless `validated` is false; a body:
   * validation and body errors). The SQLite test pass checks every response against these lists.
   */
  errors?: Code[];
  /** Its parameters are checked (a 400 `validation_error`); default true. Pages that take any value say false. */
  validated?: boolean;
  /** Error statuses answered as an HTML page (pages for browsers) instead of the JSON error. */
  htmlErrors?: Status[];
  /** Rate limited (every keyed endpoint is; the default follows `auth`). */
  limited?: boolean;
}

/** An error response listing the codes one operation can give (`x-codes`, checked by the tests). */
export function errorResponse(status: Status, codes: readonly string[]) {
  return {
    description: `${ERROR_RESPONSES[status].description}. Codes: ${codes.map((c) => `\`${c}\``).join(', ')}.`,
    'x-codes': [...codes],
    ...(status === '429' ? { headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } } } : {}),
    content: { 'application/json': { schema: ref('Error') } },
  };
}

/** Error responses by status for a set of codes; `html` statuses are pages for browsers. */
export function errorResponses(codes: readonly Code[], html: readonly Status[] = []): Record<string, unknown> {
  const byStatus = new Map<Status, Code[]>();
  for (const code of codes) {
    const status = statusOf(code);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, unknown> = {};
  for (const status of [...byStatus.keys()].sort()) {
    const listed = ERROR_RESPONSES[status].codes.filter((c) => byStatus.get(status)!.includes(c));
    if (!html.includes(status)) {
      out[status] = errorResponse(status, listed);
      continue;
    }
    // A page's 400 is its HTML page, or the JSON error when the address itself is refused before any
    // page runs (http/urlShape.ts: malformed paths and query values, for every route alike).
    const content: Record<string, unknown> = { 'text/html': { schema: { type: 'string' } } };
    if (status === '400') content['application/json'] = { schema: ref('Error') };
    out[status] = { description: ERROR_RESPONSES[status].description, content };
  }
  return out;
}

/** Reusable responses: only unexpected failures, the same for every operation. */
export function errorResponseComponents() {
  return {
    Default: {
      'x-codes': ['internal_error', 'service_unavailable'],
      description: 'An unexpected failure (`internal_error`, a bug: the message names the request id) or `service_unavailable`.',
      content: { 'application/json': { schema: ref('Error') } },
    },
  };
}

export function operation(id: string, spec: OperationSpec) {
  const auth = spec.auth ?? true;
  const responses: Record<string, unknown> = {};
  for (const s of spec.success) {
    const content: Record<string, unknown> = { ...(s.content ?? {}) };
    if (s.schema) content['application/json'] = { schema: s.schema };
    responses[s.status] = {
      description: s.description,
      ...(s.headers ? { headers: Object.fromEntries(Object.entries(s.headers).map(([k, v]) => [k, { schema: v }])) } : {}),
      ...(Object.keys(content).length ? { content } : {}),
    };
  }
  const codes = new Set<Code>(spec.errors ?? []);
  if (auth) codes.add('unauthorized');
  if (spec.limited ?? auth) codes.add('rate_limited');
  if (spec.body) for (const code of ['validation_error', ...BODY_CODES] as Code[]) codes.add(code);
  if (spec.multipart) for (const code of ['validation_error', 'invalid_upload', ...BODY_CODES] as Code[]) codes.add(code);
  const params = spec.params ?? [];
  // Every URL passes one rule before any route (src/http/urlShape.ts): a path segment or query value that
  // is not percent-encoded UTF-8, holds a control character or is too long is a 400 malformed_url anywhere.
  codes.add('malformed_url');
  if (params.length && spec.validated !== false) codes.add('validation_error');
  Object.assign(responses, errorResponses([...codes], spec.htmlErrors));
  responses.default = { $ref: '#/components/responses/Default' };

  const op: Record<string, unknown> = {
    operationId: id,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: [spec.tag],
    security: auth ? [{ apiKey: [] }] : [],
    ...(spec.params?.length ? { parameters: spec.params } : {}),
    responses,
  };
  if (spec.body) {
    op.requestBody = {
      required: !spec.bodyOptional,
      content: { 'application/json': { schema: spec.body, ...(spec.example !== undefined ? { example: spec.example } : {}) } },
    };
  }
  if (spec.multipart) op.requestBody = { required: true, content: { 'multipart/form-data': { schema: spec.multipart } } };
  return op;
}
