import test from 'ava';
import { request as httpRequest } from 'node:http';
import { openApiDocument } from '../../src/openapi';
import { useServer } from '../helpers/server';

/**
 * Every route of the OpenAPI document (which lists every route the app serves: test/openapi/coverage.test.ts),
 * each of its path and query parameters in turn given hostile values, the others valid ones (so that
 * the request goes as deep as it can): NUL and other control characters, escapes that are not UTF-8,
 * overlong values, and look-alikes of valid values. No answer is a 5xx, every refusal is the JSON error
 * envelope, and the server still answers afterwards. Runs on SQLite and, in the postgres pass, PostgreSQL.
 *
 * HOSTILE_URL_ALL=1 tries every hostile value on every parameter, the undeclared query names included
 * (several times the requests of the default run).
 */

// The preview and share pages are limited per client address: each request comes from its own.
const ctx = useServer(test, { TRUST_PROXY: '1' });
const ALL = process.env.HOSTILE_URL_ALL === '1';

/** Written as a client would put them in a URL: already percent-encoded (or not, on purpose). */
const HOSTILE = [
  '%00',
  'a%00b',
  '%ff',
  '%C0%80',
  '%ED%A0%80',
  '%E0%A4%A',
  '%',
  '%zz',
  '%0A',
  '%7F',
  '%1B%5B31m',
  'x'.repeat(3000),
  '%C3%A9'.repeat(600),
  '%F0%9F%8E%B2'.repeat(300),
  // look-alikes: fullwidth digits, Cyrillic and Armenian letters, bidi and zero-width marks, traversal
  '%EF%BC%91',
  '%D1%95tandard',
  'standar%D4%81',
  '%E2%80%AEdrats',
  'standard%E2%80%8B',
  '%EF%BB%BFstandard',
  '..',
  '%2e%2e',
  '..%2F..%2Fetc%2Fpasswd',
  '%2F',
  '%20',
  '+',
  '-1',
  '0',
  '99999999999999999999',
  '1e3',
  '0x10',
  '1.5',
  'NaN',
  '__proto__',
  'constructor',
  "'%20OR%20'1'%3D'1",
];
/** The default run's share of them: each family once. */
const QUICK = [
  '%00',
  'a%00b',
  '%ff',
  '%C0%80',
  '%ED%A0%80',
  '%E0%A4%A',
  '%0A',
  'x'.repeat(3000),
  '%C3%A9'.repeat(600),
  '%EF%BC%91',
  '%D1%95tandard',
  '%E2%80%AEdrats',
  '..%2F..%2Fetc%2Fpasswd',
  '99999999999999999999',
  '__proto__',
];
/** Query names some route reads without declaring them everywhere: sent to every GET. */
const EXTRA_QUERY = ['share', 'passcode', 'room', 'before', 'v', 'overlay', 'filter', 'ids'];

interface Operation {
  method: string;
  template: string;
  pathParams: string[];
  queryParams: string[];
}

function operations(): Operation[] {
  const out: Operation[] = [];
  for (const [template, item] of Object.entries(openApiDocument().paths)) {
    for (const [method, op] of Object.entries(item as Record<string, { parameters?: Array<{ in: string; name: string }> }>)) {
      const params = op.parameters ?? [];
      out.push({
        method: method.toUpperCase(),
        template,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: params.filter((p) => p.in === 'query').map((p) => p.name),
      });
    }
  }
  return out;
}

interface Probe {
  method: string;
  url: string;
  what: string;
}

let address = 0;
/** A fresh client address per request (X-Forwarded-For, TRUST_PROXY=1): per-address limits never answer first. */
const nextAddress = () => `10.${(address >> 16) & 255}.${(address >> 8) & 255}.${address++ & 255}`;

async function send(base: string, key: string, probe: Probe): Promise<string | null> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, 'x-forwarded-for': nextAddress() };
  let body: string | undefined;
  if (probe.method !== 'GET' && probe.method !== 'DELETE') {
    headers['content-type'] = 'application/json';
    body = '{}';
  }
  const res = await fetch(base + probe.url, { method: probe.method, headers, body, redirect: 'manual', signal: AbortSignal.timeout(20_000) });
  const text = await res.text();
  if (res.status >= 500) return `${probe.what}: ${res.status} ${text.slice(0, 200)}`;
  if (res.status >= 400 && (res.headers.get('content-type') ?? '').includes('json')) {
    const parsed = JSON.parse(text) as { type?: string; data?: { code?: unknown; message?: unknown } };
    if (parsed.type !== 'error' || typeof parsed.data?.code !== 'string' || typeof parsed.data?.message !== 'string')
      return `${probe.what}: ${res.status} without the error envelope: ${text.slice(0, 200)}`;
  }
  return null;
}

/** node:http sends bytes 0x80-0xff of a path as they are (one byte per character), which fetch would encode. */
function sendRaw(base: string, key: string, method: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(base + '/', { method, path, headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': nextAddress() } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

test('every path and query parameter of every route: hostile values are a 4xx with the error envelope, never a 5xx', async (t) => {
  const { server } = ctx;
  const owner = await server.newUser();
  const room = await owner.api.post('/room', { name: 'walk' });
  t.is(room.status, 201, room.text);
  const slug: string = room.body.data.slug;
  const roll = await owner.api.post('/roll', { dice: [{ type: 'd6' }], room: slug });
  t.is(roll.status, 201, roll.text);
  const keys = await owner.api.get('/user/key');
  const standard = await owner.api.get('/theme/standard');
  const valid: Record<string, string> = {
    slug,
    participant: String(room.body.data.participants[0].id),
    uuid: roll.body.data.uuid,
    id: 'standard',
    version: encodeURIComponent(standard.body.data.version),
    prefix: keys.body.data[0]?.prefix ?? 'dk_abcdefgh',
    file: 'board.js',
    sha256: 'a'.repeat(64),
    name: 'x.png',
    code: 'AbCdEfGh12',
  };
  const values = ALL ? HOSTILE : QUICK;
  const probes: Probe[] = [];
  // Destructive routes last: a look-alike that happens to be valid would delete what the others use.
  const ops = operations().sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
  for (const op of ops) {
    const fill = (hostile: string | null, value: string) =>
      op.template.replace(/\{(\w+)\}/g, (_, name: string) => (name === hostile ? value : (valid[name] ?? 'x')));
    for (const param of op.pathParams) {
      for (const value of values)
        probes.push({ method: op.method, url: fill(param, value), what: `${op.method} ${op.template} {${param}}=${value.slice(0, 40)}` });
    }
    const queryNames = op.method === 'GET' ? [...new Set([...op.queryParams, ...EXTRA_QUERY])] : op.queryParams;
    for (const name of queryNames) {
      const declared = op.queryParams.includes(name);
      for (const value of declared || ALL ? values : values.slice(0, 5)) {
        probes.push({ method: op.method, url: `${fill(null, '')}?${name}=${value}`, what: `${op.method} ${op.template} ?${name}=${value.slice(0, 40)}` });
      }
    }
  }
  t.true(probes.length > 500, `${probes.length} requests`);

  const problems: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 6 }, async () => {
      while (next < probes.length) {
        const probe = probes[next++]!;
        const problem = await send(server.url, owner.key, probe).catch((err: Error) => `${probe.what}: ${err.message}`);
        if (problem) problems.push(problem);
      }
    }),
  );
  t.log(`${probes.length} requests over ${ops.length} routes`);
  t.deepEqual(problems.slice(0, 20), [], `${problems.length} of ${probes.length} requests broke a rule`);

  const health = await fetch(`${server.url}/healthz`);
  t.is(health.status, 200);
});

// Node's HTTP parser refuses these before the app sees them; kept here so that a lenient parser (or a
// proxy that passes them) would show up: the URL rule refuses them too.
test('bytes outside ASCII sent raw in a path or query (not UTF-8 escapes) are a 400, on pages and API routes alike', async (t) => {
  const { server } = ctx;
  const owner = await server.newUser();
  for (const [method, path] of [
    ['GET', '/theme/standard/version/\xff/preview'],
    ['GET', '/theme/standard/preview?share=\xe9'],
    ['GET', '/board/caf\xe9'],
    ['GET', '/share/\xc0\x80'],
    ['GET', '/api/1.0/room/\xff'],
    ['GET', '/api/1.0/theme/standard/version/\xfe\xff'],
    ['DELETE', '/api/1.0/roll?room=\xff'],
  ] as const) {
    t.is(await sendRaw(server.url, owner.key, method, path), 400, `${method} ${path}`);
  }
});

test('the URL rule refuses NUL before a page reads it: the keyless preview page of a version named %00 is a 400, not a 500', async (t) => {
  const res = await fetch(`${ctx.server.url}/theme/standard/version/%00/preview`);
  t.is(res.status, 400);
  const body = (await res.json()) as { type: string; data: { code: string } };
  t.is(body.type, 'error');
  t.is(body.data.code, 'malformed_url');
});
