import test from 'ava';
import { EXPOSED_HEADERS, PREFLIGHT_MAX_AGE } from '../../src/http/cors';
import { useServer } from '../helpers/server';

/**
 * CORS through plain HTTP, any origin allowed (the default): the preflight of every route group is
 * answered without a key, and every answer (errors included) lets the page read it. The browser side
 * is test/browser/cors.test.ts; a restricted list, test/api/cors.origins.test.ts.
 */
const ctx = useServer(test, { RATE_LIMIT_PER_MINUTE: '3' });
const ORIGIN = 'https://vtt.example';
const UUID = '1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b';

/** One path per route group, with every method the API answers there. */
const GROUPS: [string, string[]][] = [
  ['/api/1.0/user', ['GET', 'POST', 'PATCH']],
  ['/api/1.0/user/key', ['GET', 'POST']],
  ['/api/1.0/user/key/dk_abcdefgh', ['DELETE']],
  ['/api/1.0/room', ['GET', 'POST']],
  ['/api/1.0/room/k7d2mqx9h4tbw3ze', ['GET', 'PATCH', 'POST', 'DELETE']],
  ['/api/1.0/room/k7d2mqx9h4tbw3ze/participant', ['POST']],
  ['/api/1.0/room/k7d2mqx9h4tbw3ze/participant/1', ['PATCH', 'DELETE']],
  ['/api/1.0/room/k7d2mqx9h4tbw3ze/roll', ['GET', 'PATCH']],
  [`/api/1.0/room/k7d2mqx9h4tbw3ze/background/${'a'.repeat(64)}.png`, ['GET']],
  ['/api/1.0/roll', ['POST', 'PATCH', 'DELETE']],
  [`/api/1.0/roll/${UUID}`, ['GET', 'PATCH']],
  ['/api/1.0/theme', ['GET', 'POST']],
  ['/api/1.0/theme/standard', ['GET', 'DELETE']],
  ['/api/1.0/theme/standard/version', ['GET']],
  ['/api/1.0/theme/standard/version/1.0.0/asset/oak.png', ['GET']],
  ['/api/1.0/dice-box', ['GET']],
  ['/api/1.0/dice-box/standard', ['GET', 'PATCH', 'DELETE']],
  ['/api/1.0/share-request', ['GET', 'POST']],
  ['/api/1.0/share-request/abc', ['GET', 'PATCH', 'DELETE']],
  ['/api/1.0/share-request/code/abc', ['GET']],
  ['/api/1.0/share-request/code/abc/accept', ['POST']],
  ['/api/1.0/openapi.json', ['GET']],
  ['/broadcasting/auth', ['POST']],
];

const list = (value: string | null) =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);

function preflight(path: string, method: string, origin = ORIGIN) {
  return fetch(`${ctx.server.url}${path}`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization,content-type,x-extension' },
  });
}

test('the preflight of every route group: 204 without a key, its methods, the three headers, a max-age', async (t) => {
  for (const [path, methods] of GROUPS) {
    for (const method of methods) {
      const res = await preflight(path, method);
      const label = `OPTIONS ${path} for ${method}`;
      t.is(res.status, 204, label);
      t.is(await res.text(), '', label);
      t.is(res.headers.get('access-control-allow-origin'), ORIGIN, label);
      t.is(res.headers.get('access-control-allow-credentials'), 'true', label);
      t.true(
        list(res.headers.get('access-control-allow-methods')).includes(method.toLowerCase()),
        `${label}: ${res.headers.get('access-control-allow-methods')}`,
      );
      t.deepEqual(list(res.headers.get('access-control-allow-headers')), ['authorization', 'content-type', 'x-extension', 'idempotency-key'], label);
      t.is(res.headers.get('access-control-max-age'), String(PREFLIGHT_MAX_AGE), label);
      t.true(list(res.headers.get('vary')).includes('origin'), `${label}: the answer depends on Origin, caches must know`);
      t.is(res.headers.get('ratelimit-remaining'), null, `${label}: a preflight is not counted against any limit`);
    }
  }
});

test('answers carry the CORS headers and expose what a page needs, errors, 404s and 429s included', async (t) => {
  const { key } = await ctx.server.newUser(); // 1 request of this key's 3
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${ctx.server.url}${path}`, { headers: { origin: ORIGIN, ...headers } });
  const bearer = { authorization: `Bearer ${key}` };
  const answers: [string, Response, number][] = [
    ['no key', await get('/api/1.0/room'), 401],
    ['unknown key', await get('/api/1.0/room', { authorization: 'Bearer dk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }), 401],
    ['unknown route', await get('/api/1.0/nothing'), 404],
    ['unknown room', await get('/api/1.0/room/no-such-room', bearer), 404],
    ['bad query', await get('/api/1.0/room?page=0', bearer), 400],
    ['over the limit', await get('/api/1.0/user', bearer), 429],
    ['document', await get('/api/1.0/openapi.json'), 200],
    ['room background (no key)', await get(`/api/1.0/room/x/background/${'b'.repeat(64)}.png`), 404],
    ['channel authorisation without a key', await fetch(`${ctx.server.url}/broadcasting/auth`, { method: 'POST', headers: { origin: ORIGIN } }), 401],
  ];
  for (const [what, res, status] of answers) {
    t.is(res.status, status, what);
    t.is(res.headers.get('access-control-allow-origin'), ORIGIN, what);
    t.is(res.headers.get('access-control-allow-credentials'), 'true', what);
    t.deepEqual(
      list(res.headers.get('access-control-expose-headers')),
      EXPOSED_HEADERS.map((h) => h.toLowerCase()),
      what,
    );
    if (status >= 400) t.is((await res.json()).type, 'error', `${what}: the page can show the server's message`);
  }
  const limited = answers.find(([what]) => what === 'over the limit')![1];
  t.truthy(limited.headers.get('retry-after'));
  t.is(limited.headers.get('ratelimit-remaining'), '0');
});

test('pages of this server are not opened to other origins: the board, the docs, health', async (t) => {
  for (const path of ['/', '/docs', '/healthz', '/board/k7d2mqx9h4tbw3ze']) {
    const res = await fetch(`${ctx.server.url}${path}`, { headers: { origin: ORIGIN } });
    t.is(res.headers.get('access-control-allow-origin'), null, path);
  }
});
