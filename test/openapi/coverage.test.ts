import test from 'ava';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { MemoryRateLimitStore } from '../../src/http/rateLimit';
import { createLogger } from '../../src/logger';
import { Metrics } from '../../src/metrics';
import { openApiDocument } from '../../src/openapi';
import { appRoutes, documentedOperations, validateSchema } from '../helpers/openapi';
import { useServer } from '../helpers/server';

const ctx = useServer(test);
const doc = openApiDocument();
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** With metrics on (METRICS_TOKEN): the walk sees every route the app can serve, GET /metrics included. */
function app() {
  return createApp({
    config: loadConfig({ METRICS_TOKEN: 'a-token-for-the-route-walk' }),
    logger: createLogger('silent'),
    rateLimitStore: new MemoryRateLimitStore(),
    redis: null,
    metrics: new Metrics(),
  });
}

const key = (r: { method: string; path: string }) => `${r.method.toUpperCase()} ${r.path}`;

test('every route of the app is in the document, and the document has no route the app lacks', (t) => {
  const routes = new Set(appRoutes(app()).map(key));
  const documented = new Set(documentedOperations(doc).map(key));
  t.true(routes.size > 30, `the router walk found ${routes.size} routes`);
  t.deepEqual([...routes].filter((r) => !documented.has(r)).sort(), [], 'routes missing from the document');
  t.deepEqual([...documented].filter((r) => !routes.has(r)).sort(), [], 'documented routes the app does not have');
});

test('the router walk sees what Express serves (a sanity check of the walk itself)', (t) => {
  const routes = appRoutes(app()).map(key);
  for (const expected of [
    'GET /healthz',
    'POST /api/1.0/user',
    'GET /api/1.0/user',
    'GET /api/1.0/room/{slug}',
    'GET /api/1.0/openapi.json',
    'GET /board/{slug}',
  ]) {
    t.true(routes.includes(expected), expected);
  }
});

test('every operation: a unique id, its path parameters declared, a success response, errors as Error', (t) => {
  const ids = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    for (const [method, op] of Object.entries(item as Record<string, any>)) {
      t.true(METHODS.includes(method), `${method} ${path}`);
      t.false(ids.has(op.operationId), `duplicate operationId ${op.operationId}`);
      ids.add(op.operationId);
      const declared = (op.parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => p.name);
      t.deepEqual(declared, names, `path parameters of ${method} ${path}`);
      const statuses = Object.keys(op.responses);
      t.true(
        statuses.some((s) => /^[23]\d\d$/.test(s)),
        `${method} ${path} has a success response`,
      );
      t.true(statuses.includes('default'), `${method} ${path} documents unexpected failures`);
      if ((op.security ?? doc.security).length) t.true(statuses.includes('401'), `${method} ${path} needs a key: 401 documented`);
    }
  }
});

test('every $ref of the document resolves, and every schema compiles in the validator', (t) => {
  const root = doc as unknown as Record<string, unknown>;
  const refs: string[] = [];
  const visit = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) {
        if (k === '$ref' && typeof v === 'string') refs.push(v);
        else visit(v);
      }
    }
  };
  visit(doc);
  t.true(refs.length > 20);
  for (const ref of new Set(refs)) {
    let node: any = root;
    for (const part of ref.slice(2).split('/')) node = node?.[part];
    t.truthy(node, ref);
  }
  // The validator throws on any keyword it does not implement: run every schema once.
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    t.notThrows(() => validateSchema(schema as Record<string, unknown>, null, root), name);
  }
});

test('GET /api/1.0/openapi.json answers the document without a key', async (t) => {
  const res = await fetch(`${ctx.server.url}/api/1.0/openapi.json`);
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /application\/json/);
  const body = await res.json();
  t.is(body.openapi, '3.1.0');
  t.deepEqual(body, JSON.parse(JSON.stringify(doc)));
});

test('GET /docs is a readable page of every operation, with no script and nothing from a CDN', async (t) => {
  const res = await fetch(`${ctx.server.url}/docs`);
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /text\/html/);
  t.regex(res.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  const html = await res.text();
  t.notRegex(html, /<script/i);
  t.notRegex(html, /(src|href)="https?:/i);
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const op of Object.values(item as Record<string, any>)) {
      t.true(html.includes(`id="op-${op.operationId}"`), `${path}: ${op.operationId}`);
    }
    t.true(html.includes(`<code>${path}</code>`), path);
  }
  for (const name of Object.keys(doc.components.schemas)) t.true(html.includes(`id="schema-${name}"`), name);
  t.true(html.includes('RollCreateEvent'), 'the realtime events are listed');
});

test('request examples of the document match their own schemas', (t) => {
  const root = doc as unknown as Record<string, unknown>;
  let examples = 0;
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item as Record<string, any>)) {
      const media = op.requestBody?.content?.['application/json'];
      if (media?.example === undefined) continue;
      examples++;
      t.deepEqual(validateSchema(media.schema, media.example, root), [], `${method} ${path}`);
    }
  }
  t.true(examples >= 8, `${examples} examples`);
});

test('each operation lists the errors it can give, not every code of the API', (t) => {
  const codesOf = (path: string, method: string) => {
    const responses = (doc.paths as Record<string, any>)[path][method].responses as Record<string, any>;
    return Object.fromEntries(
      Object.entries(responses)
        .filter(([status]) => /^[45]\d\d$/.test(status))
        .map(([status, r]) => [status, r['x-codes'] ?? 'html']),
    );
  };
  t.deepEqual(codesOf('/share/{code}', 'get'), { '400': ['malformed_url'], '404': 'html', '410': 'html', '429': ['rate_limited'] });
  t.deepEqual(codesOf('/api/1.0/user', 'get'), { '400': ['malformed_url'], '401': ['unauthorized'], '429': ['rate_limited'] });
  t.deepEqual(codesOf('/api/1.0/roll/{uuid}', 'get'), {
    '400': ['validation_error', 'malformed_url'],
    '401': ['unauthorized'],
    '404': ['not_found'],
    '429': ['rate_limited'],
  });
  const roll = codesOf('/api/1.0/roll', 'post');
  for (const code of ['invalid_dice', 'invalid_equation', 'validation_error', 'malformed_json']) t.true(roll['400'].includes(code), code);
  t.deepEqual(roll['422'], ['unknown_die', 'unknown_theme', 'unknown_participant', 'idempotency_key_reused']);
  t.deepEqual(roll['409'], ['idempotency_key_in_flight']);
  t.deepEqual(codesOf('/api/1.0/user/key/{prefix}', 'delete')['409'], ['last_key']);
  // No operation but those that throw dice (rolling, adding dice to a roll) lists the dice engine's codes.
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item as Record<string, any>)) {
      const codes: string[] = op.responses['400']?.['x-codes'] ?? [];
      const throwsDice = (path === '/api/1.0/roll' && method === 'post') || (path === '/api/1.0/roll/{uuid}' && method === 'patch');
      if (!throwsDice) t.false(codes.includes('invalid_dice'), `${method} ${path}`);
    }
  }
});

test('/docs shows each operation with its own error codes', async (t) => {
  const html = await (await fetch(`${ctx.server.url}/docs`)).text();
  const section = (id: string) => html.slice(html.indexOf(`id="op-${id}"`), html.indexOf('</section>', html.indexOf(`id="op-${id}"`)));
  t.notRegex(section('sharePage'), /invalid_dice/);
  t.regex(section('sharePage'), /malformed_url/);
  t.regex(section('createRoll'), /invalid_dice/);
  t.notRegex(section('getUser'), /validation_error/);
  t.regex(section('deleteApiKey'), /last_key/);
});
