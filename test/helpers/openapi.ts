/**
 * Keeping the OpenAPI document true:
 * - `appRoutes(app)` lists every route of an Express app by walking its router stack;
 * - `validateSchema` checks a value against the JSON Schema subset the document uses (and refuses any
 *   keyword it does not know, so a constraint is never skipped in silence);
 * - `recordResponses(httpServer)` records every response a test server gives (method, path, status,
 *   content type, body) without touching production code: a `request` listener put before the app's;
 * - `checkRecord` / `checkRecords` match a response to its operation and validate it.
 *
 * Suite-wide: with OPENAPI_RECORD_DIR set, `recordResponsesToDir(server.http, dir)` (call it where a
 * test server starts) appends every response to `<dir>/<pid>-<thread>.jsonl` (one per test worker), and
 * `npx tsx test/helpers/openapiCheck.ts <dir>` validates them all afterwards (exit 1 on a mismatch).
 */
import type { Express } from 'express';
import { openApiDocument, type OpenApiDocument } from '../../src/openapi';
import type { ResponseRecord } from '../openapi/recorder';

type Json = Record<string, any>;

// JSON Schema (subset)

const ANNOTATIONS = new Set(['description', 'examples', 'default', 'title', 'contentMediaType', 'deprecated', 'readOnly', 'writeOnly']);
const KNOWN = new Set([
  '$ref',
  'type',
  'const',
  'enum',
  'anyOf',
  'oneOf',
  'allOf',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'not',
  'minProperties',
  'maxProperties',
  'patternProperties',
  ...ANNOTATIONS,
]);

const FORMATS: Record<string, RegExp> = {
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/,
  uri: /^https?:\/\/[^\s]+$/,
};

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'object':
      return typeOf(value) === 'object';
    default:
      return typeOf(value) === type;
  }
}

function resolveRef(root: Json, ref: string): Json {
  if (!ref.startsWith('#/')) throw new Error(`Only local $refs are supported: ${ref}`);
  let node: any = root;
  for (const part of ref.slice(2).split('/')) {
    node = node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    if (node === undefined) throw new Error(`Unresolvable $ref ${ref}`);
  }
  return node;
}

/** Problems of `value` against `schema` (empty when it conforms), each as "path: what". */
export function validateSchema(schema: Json | boolean, value: unknown, root: Json, at = '$'): string[] {
  if (schema === true) return [];
  if (schema === false) return [`${at}: nothing is allowed here`];
  for (const key of Object.keys(schema)) if (!KNOWN.has(key)) throw new Error(`The validator does not know the keyword "${key}" (at ${at})`);
  const errors: string[] = [];
  if (schema.$ref) errors.push(...validateSchema(resolveRef(root, schema.$ref), value, root, at));
  if (schema.type !== undefined) {
    const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((t) => hasType(value, t))) return [...errors, `${at}: expected ${types.join(' or ')}, got ${typeOf(value)}`];
  }
  if ('const' in schema && JSON.stringify(schema.const) !== JSON.stringify(value))
    errors.push(`${at}: expected ${JSON.stringify(schema.const)}, got ${JSON.stringify(value)}`);
  if (schema.enum && !schema.enum.some((v: unknown) => JSON.stringify(v) === JSON.stringify(value)))
    errors.push(`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`);
  if (schema.anyOf) {
    const results = schema.anyOf.map((s: Json) => validateSchema(s, value, root, at));
    if (!results.some((r: string[]) => r.length === 0)) errors.push(`${at}: matches none of anyOf (${results.map((r: string[]) => r[0]).join(' | ')})`);
  }
  if (schema.oneOf) {
    const matches = schema.oneOf.filter((s: Json) => validateSchema(s, value, root, at).length === 0).length;
    if (matches !== 1) errors.push(`${at}: matches ${matches} of oneOf, expected exactly 1`);
  }
  for (const sub of schema.allOf ?? []) errors.push(...validateSchema(sub, value, root, at));
  if (schema.not !== undefined && validateSchema(schema.not, value, root, at).length === 0)
    errors.push(`${at}: matches what "not" forbids (${JSON.stringify(schema.not)})`);
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && [...value].length < schema.minLength) errors.push(`${at}: shorter than ${schema.minLength}`);
    if (schema.maxLength !== undefined && [...value].length > schema.maxLength) errors.push(`${at}: longer than ${schema.maxLength}`);
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value))
      errors.push(`${at}: ${JSON.stringify(value)} does not match ${schema.pattern}`);
    if (schema.format !== undefined && FORMATS[schema.format] && !FORMATS[schema.format]!.test(value))
      errors.push(`${at}: ${JSON.stringify(value)} is not a ${schema.format}`);
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) errors.push(`${at}: ${value} < ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) errors.push(`${at}: ${value} > ${schema.maximum}`);
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) errors.push(`${at}: fewer than ${schema.minItems} items`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems) errors.push(`${at}: more than ${schema.maxItems} items`);
    if (schema.items !== undefined) value.forEach((item, i) => errors.push(...validateSchema(schema.items, item, root, `${at}[${i}]`)));
  }
  if (typeOf(value) === 'object') {
    const obj = value as Json;
    const count = Object.keys(obj).length;
    if (schema.minProperties !== undefined && count < schema.minProperties) errors.push(`${at}: fewer than ${schema.minProperties} properties`);
    if (schema.maxProperties !== undefined && count > schema.maxProperties) errors.push(`${at}: more than ${schema.maxProperties} properties`);
    for (const name of schema.required ?? []) if (!(name in obj)) errors.push(`${at}: missing required "${name}"`);
    const properties: Json = schema.properties ?? {};
    for (const [name, v] of Object.entries(obj)) {
      const patterned = Object.entries((schema.patternProperties ?? {}) as Json).filter(([pattern]) => new RegExp(pattern, 'u').test(name));
      for (const [, sub] of patterned) errors.push(...validateSchema(sub, v, root, `${at}.${name}`));
      if (name in properties) errors.push(...validateSchema(properties[name], v, root, `${at}.${name}`));
      else if (patterned.length) continue;
      else if (schema.additionalProperties !== undefined)
        errors.push(
          ...(schema.additionalProperties === false
            ? [`${at}: unexpected property "${name}"`]
            : validateSchema(schema.additionalProperties, v, root, `${at}.${name}`)),
        );
    }
  }
  return errors;
}

// Routes of an Express app

export interface AppRoute {
  method: string;
  /** OpenAPI style: `/api/1.0/room/{slug}` */
  path: string;
}

/** `/room/:slug` -> `/room/{slug}`; a trailing slash dropped (a router's `/` under its mount path). */
export function toOpenApiPath(expressPath: string): string {
  const joined = expressPath.replace(/\/{2,}/g, '/').replace(/(.)\/$/, '$1');
  return joined.replace(/:(\w+)/g, '{$1}');
}

/** Every route of the app: Express 5 keeps them in `app.router.stack`, routers nested in layers. */
export function appRoutes(app: Express): AppRoute[] {
  const out: AppRoute[] = [];
  const walk = (stack: any[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        const routePath = layer.route.path;
        if (typeof routePath !== 'string') throw new Error(`A route with a non-string path (${String(routePath)}) cannot be documented`);
        for (const method of Object.keys(layer.route.methods)) {
          if (method === '_all') throw new Error(`router.all(${routePath}) cannot be documented: name its methods`);
          out.push({ method, path: toOpenApiPath(prefix + routePath) });
        }
      } else if (Array.isArray(layer.handle?.stack)) {
        if (typeof layer.rawPath !== 'string') throw new Error(`A router mounted at a non-string path (${String(layer.rawPath)})`);
        walk(layer.handle.stack, layer.slash ? prefix : prefix + layer.rawPath);
      }
    }
  };
  walk((app as unknown as { router: { stack: unknown[] } }).router.stack, '');
  return out;
}

/** Every operation of the document, by method and path. */
export function documentedOperations(doc: OpenApiDocument = openApiDocument()): AppRoute[] {
  const out: AppRoute[] = [];
  for (const [p, item] of Object.entries(doc.paths)) for (const method of Object.keys(item)) out.push({ method, path: p });
  return out;
}

/** Path templates compared without their parameter names (`{slug}` = `{id}`). */
export const shapeOf = (p: string) => p.replace(/\{[^}]+\}/g, '{}');

// Recording responses

// Recording lives in test/openapi/recorder.ts, which imports nothing heavy: it is preloaded into every
// test file of the SQLite pass (test/openapi/record.ts), where this module's imports (the whole
// OpenAPI document and every feature's schemas) cost each test file about half a second of CPU.
export { recordResponses, recordResponsesToDir, type ResponseRecord } from '../openapi/recorder';

// Matching and checking

export interface Match {
  path: string;
  operation: Json;
}

const templateRegex = new Map<string, RegExp>();

/** The operation a request was answered by: the template with most literal segments wins. */
export function findOperation(method: string, requestPath: string, doc: OpenApiDocument = openApiDocument()): Match | null {
  let best: Match | null = null;
  let bestLiterals = -1;
  for (const [template, item] of Object.entries(doc.paths)) {
    const operation = (item as Json)[method];
    if (!operation) continue;
    let regex = templateRegex.get(template);
    if (!regex) {
      regex = new RegExp(
        `^${template
          .split(/\{[^}]+\}/)
          .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('[^/]+')}/?$`,
      );
      templateRegex.set(template, regex);
    }
    if (!regex.test(requestPath)) continue;
    const literals = template.split('/').filter((s) => s && !s.startsWith('{')).length;
    if (literals > bestLiterals) {
      best = { path: template, operation };
      bestLiterals = literals;
    }
  }
  return best;
}

function responseFor(doc: OpenApiDocument, operation: Json, status: number): Json | null {
  let response = operation.responses[String(status)] ?? (status >= 500 ? operation.responses.default : undefined);
  if (!response) return null;
  if (response.$ref) response = resolveRef(doc as unknown as Json, response.$ref);
  return response;
}

function mediaMatches(documented: string, actual: string): boolean {
  const type = actual.split(';')[0]!.trim().toLowerCase();
  if (documented.endsWith('/*')) return type.startsWith(documented.slice(0, -1));
  return documented === type;
}

/** Problems of one recorded response against the document (empty when it conforms). */
export function checkRecord(record: ResponseRecord, doc: OpenApiDocument = openApiDocument()): string[] {
  const label = `${record.method.toUpperCase()} ${record.path} -> ${record.status}`;
  const root = doc as unknown as Json;
  const match = findOperation(record.method, record.path, doc);
  if (!match) {
    // Not an endpoint (an unknown path, HEAD...): whatever is said must still be a proper error.
    if (record.status < 400 || record.body === undefined)
      return record.status < 400 && record.method !== 'head' && record.method !== 'options' ? [`${label}: no such operation in the document`] : [];
    return validateSchema({ $ref: '#/components/schemas/Error' }, record.body, root).map((e) => `${label}: ${e}`);
  }
  const response = responseFor(doc, match.operation, record.status);
  if (!response) return [`${label}: status ${record.status} is not documented for ${record.method.toUpperCase()} ${match.path}`];
  const content: Json | undefined = response.content;
  if (!content) return record.body !== undefined ? [`${label}: a body where the document says there is none`] : [];
  const json = content['application/json'];
  if (record.contentType.includes('json') && json) {
    const errors = validateSchema(json.schema, record.body, root).map((e) => `${label}: ${e}`);
    // An error's code must be one the document lists for that status.
    const codes: string[] | undefined = response['x-codes'];
    const code = (record.body as Json | undefined)?.data?.code;
    if (codes && typeof code === 'string' && !codes.includes(code))
      errors.push(`${label}: error code "${code}" is not documented for ${record.status} (${codes.join(', ')})`);
    return errors;
  }
  if (!Object.keys(content).some((type) => mediaMatches(type, record.contentType))) {
    return [`${label}: content type "${record.contentType}" is not one of ${Object.keys(content).join(', ')}`];
  }
  return [];
}

export function checkRecords(records: ResponseRecord[], doc: OpenApiDocument = openApiDocument()): string[] {
  return records.flatMap((r) => checkRecord(r, doc).map((e) => (r.source ? `${e} (${r.source})` : e)));
}

/** Which operations the records exercised with a success status: `get /api/1.0/room/{slug}`. */
export function exercised(records: ResponseRecord[], doc: OpenApiDocument = openApiDocument()): Set<string> {
  const out = new Set<string>();
  for (const r of records) {
    if (r.status >= 400) continue;
    const match = findOperation(r.method, r.path, doc);
    if (match) out.add(`${r.method} ${match.path}`);
  }
  return out;
}
