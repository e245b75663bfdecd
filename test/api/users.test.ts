import test from 'ava';
import { useServer } from '../helpers/server';
import { request } from '../helpers/http';

const ctx = useServer(test);
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

test('a guest is created without a key and its key answers GET /user', async (t) => {
  const res = await ctx.server.api.post('/user');
  t.is(res.status, 201);
  t.is(res.body.type, 'string');
  t.regex(res.body.data, /^dk_[\w-]{43}$/);
  const me = await ctx.server.api.as(res.body.data).get('/user');
  t.is(me.status, 200);
  t.is(me.body.type, 'user');
  t.regex(me.body.data.uuid, /^[0-9a-f-]{36}$/);
  t.regex(me.body.data.username, /^guest-/);
  t.false(me.body.data.is_registered);
  t.regex(me.body.data.created_at, TIMESTAMP);
  t.regex(me.body.data.updated_at, TIMESTAMP);
  t.false('id' in me.body.data, 'internal ids never leave the server');
});

test('the empty form-encoded POST real SDKs send creates a guest', async (t) => {
  const res = await request(`${ctx.server.url}/api/1.0/user`, 'POST', {
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '0' },
  });
  t.is(res.status, 201);
});

test('two guests get different keys and different users', async (t) => {
  const [a, b] = await Promise.all([ctx.server.newUser(), ctx.server.newUser()]);
  t.not(a.key, b.key);
  t.not(a.user.uuid, b.user.uuid);
});

const families = ['/user', '/user/key', '/room', '/room/abc', '/room/abc/roll', '/roll/abc', '/theme', '/theme/x/version', '/dice-box', '/share-request'];

for (const [label, header] of [
  ['no header', undefined],
  ['a malformed header', 'Token abc'],
  ['an empty bearer', 'Bearer '],
  ['an unknown key', 'Bearer dk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
] as const) {
  test(`401 with ${label} on every route family`, async (t) => {
    for (const path of families) {
      const res = await request(`${ctx.server.url}/api/1.0${path}`, 'GET', { headers: header ? { authorization: header } : {} });
      t.is(res.status, 401, path);
      t.is(res.body.type, 'error');
      t.is(res.body.data.code, 'unauthorized');
      t.is(typeof res.body.data.message, 'string');
    }
  });
}

test('a revoked key stops working at once', async (t) => {
  const { key, api } = await ctx.server.newUser();
  t.is((await api.get('/user')).status, 200);
  const { revokeApiKeys } = await import('../../src/users/apiKeys');
  t.is(await revokeApiKeys(key.slice(0, 11)), 1);
  const after = await api.get('/user');
  t.is(after.status, 401);
  t.is(after.body.data.code, 'unauthorized');
  t.is((await api.post('/room', { name: 'x' })).status, 401);
});

test('malformed JSON is a 400 malformed_json', async (t) => {
  const { key } = await ctx.server.newUser();
  const res = await request(`${ctx.server.url}/api/1.0/room`, 'POST', { key, raw: '{"name": ', headers: { 'content-type': 'application/json' } });
  t.is(res.status, 400);
  t.is(res.body.data.code, 'malformed_json');
});

test('a non-JSON body is a 415', async (t) => {
  const { key } = await ctx.server.newUser();
  const res = await request(`${ctx.server.url}/api/1.0/room`, 'POST', { key, raw: 'name=x', headers: { 'content-type': 'text/plain' } });
  t.is(res.status, 415);
  t.is(res.body.data.code, 'unsupported_media_type');
});

test('a body over the limit is a 413', async (t) => {
  const { key } = await ctx.server.newUser();
  const res = await request(`${ctx.server.url}/api/1.0/room`, 'POST', { key, body: { name: 'x'.repeat(1_100_000) } });
  t.is(res.status, 413);
  t.is(res.body.data.code, 'payload_too_large');
});

test('an unknown route is a 404 with the error body, naming the whole path', async (t) => {
  const { api } = await ctx.server.newUser();
  const res = await api.get('/no-such-thing?x=1');
  t.is(res.status, 404);
  t.is(res.body.type, 'error');
  t.is(res.body.data.code, 'route_not_found');
  t.is(res.body.data.message, 'There is no GET /api/1.0/no-such-thing.');
  const outside = await request(`${ctx.server.url}/nothing-here`, 'GET');
  t.is(outside.status, 404);
  t.is(outside.body.data.message, 'There is no GET /nothing-here.');
});

test('a route the API does not have is a 404 before authentication, with or without a key', async (t) => {
  for (const [method, path] of [
    ['GET', '/api/1.0/nothing'],
    ['GET', '/api/1.0/'],
    ['GET', '/api/1.0'],
    ['PUT', '/api/1.0/room'],
    ['DELETE', '/api/1.0/user'],
    ['GET', '/api/1.0/room/abc/nothing'],
    ['POST', '/api/1.0/roll/abc'],
  ] as const) {
    for (const authorization of [undefined, 'Bearer dk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA']) {
      const res = await request(`${ctx.server.url}${path}`, method, { headers: authorization ? { authorization } : {} });
      t.is(res.status, 404, `${method} ${path}`);
      t.is(res.body.data.code, 'route_not_found');
      t.is(res.body.data.message, `There is no ${method} ${path}.`);
    }
  }
  // Routes that exist still ask for a key first, whatever their parameters.
  for (const path of ['/api/1.0/room/anything', '/api/1.0/ROOM/', '/api/1.0/theme/x/version/1.0.0/asset/a.png']) {
    t.is((await request(`${ctx.server.url}${path}`, 'GET')).status, 401, path);
  }
});

test('every response carries a request id, and a sane given one is echoed', async (t) => {
  const res = await request(`${ctx.server.url}/healthz`, 'GET', { headers: { 'x-request-id': 'abc-123' } });
  t.is(res.headers.get('x-request-id'), 'abc-123');
  const other = await request(`${ctx.server.url}/healthz`, 'GET', { headers: { 'x-request-id': 'bad id with spaces' } });
  t.regex(other.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
});

test('health and readiness answer', async (t) => {
  const health = await request(`${ctx.server.url}/healthz`, 'GET');
  t.is(health.status, 200);
  const ready = await request(`${ctx.server.url}/readyz`, 'GET');
  t.is(ready.status, 200);
  t.is(ready.body.checks.database, 'ok');
});
