import test from 'ava';
import { useServer } from '../helpers/server';

/** CORS_ORIGINS restricts the origins whose pages may read the API; the others get no CORS header. */
const ctx = useServer(test, { CORS_ORIGINS: 'https://vtt.example, https://overlay.example:8443/' });

function preflight(origin: string) {
  return fetch(`${ctx.server.url}/api/1.0/roll`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
  });
}

test('a listed origin is reflected, with credentials allowed', async (t) => {
  for (const origin of ['https://vtt.example', 'https://overlay.example:8443']) {
    const res = await preflight(origin);
    t.is(res.status, 204, origin);
    t.is(res.headers.get('access-control-allow-origin'), origin);
    t.is(res.headers.get('access-control-allow-credentials'), 'true');
    const answer = await fetch(`${ctx.server.url}/api/1.0/user`, { headers: { origin } });
    t.is(answer.status, 401);
    t.is(answer.headers.get('access-control-allow-origin'), origin);
  }
});

test('an origin outside the list gets no CORS header, so browsers refuse; its preflight is still no 401', async (t) => {
  for (const origin of ['https://evil.example', 'http://vtt.example', 'https://vtt.example:444', 'null']) {
    const res = await preflight(origin);
    t.is(res.status, 204, origin);
    t.is(res.headers.get('access-control-allow-origin'), null, origin);
    t.is(res.headers.get('access-control-allow-credentials'), null, origin);
    const answer = await fetch(`${ctx.server.url}/api/1.0/openapi.json`, { headers: { origin } });
    t.is(answer.status, 200, 'the server answers (CORS is for browsers to enforce)');
    t.is(answer.headers.get('access-control-allow-origin'), null, origin);
    t.true((answer.headers.get('vary') ?? '').toLowerCase().includes('origin'));
  }
});
