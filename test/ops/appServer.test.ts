import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import express from 'express';
import { createAppServer } from '../../src/http/appServer';
import { startTestServer } from '../helpers/server';
import { NOT_THE_SERVICE } from '../openapi/recorder';

/**
 * src/http/appServer.ts: requests and responses are born with the Express app's prototypes, so
 * Express's per-request Object.setPrototypeOf changes nothing (it moved ~10 KiB of every request into
 * V8's old generation: `npm run bench:gc`). What is tested here is behaviour: the objects Node hands
 * to the app already are Express's, and everything Express gives a route still works.
 */

/** What the server's requests and responses are when they arrive, before Express sees them. */
function watchArrivals(server: http.Server): Array<{ url: string; express: boolean }> {
  const seen: Array<{ url: string; express: boolean }> = [];
  server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const r = req as unknown as { get?: unknown; app?: unknown };
    seen.push({
      url: req.url ?? '',
      express: typeof r.get === 'function' && r.app !== undefined && typeof (res as unknown as { json?: unknown }).json === 'function',
    });
  });
  return seen;
}

/** Listen on a free port. These small Express apps are not the API: the suite-wide OpenAPI check leaves them out. */
async function listen(server: http.Server): Promise<string> {
  (server as unknown as Record<symbol, unknown>)[NOT_THE_SERVICE] = true;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test("a route on createAppServer gets everything Express gives it, from objects born with the app's prototypes", async (t) => {
  const app = express();
  // Changed before the server exists, as createApp does with `ip`: still in the chain afterwards.
  Object.defineProperty(app.request, 'ip', { configurable: true, get: () => '203.0.113.9' });
  app.get('/things/:id', (req, res) => {
    res
      .status(202)
      .set('x-proto', String(Object.getPrototypeOf(req) === app.request && Object.getPrototypeOf(res) === app.response))
      .json({ id: req.params.id, q: req.query.q, ip: req.ip, accept: req.get('accept'), app: req.app === app });
  });
  const server = createAppServer(app);
  const arrivals = watchArrivals(server);
  const base = await listen(server);
  t.teardown(() => server.close());

  const res = await fetch(`${base}/things/42?q=dice`, { headers: { accept: 'application/json' } });
  t.is(res.status, 202);
  t.is(res.headers.get('x-proto'), 'true');
  t.deepEqual(await res.json(), { id: '42', q: 'dice', ip: '203.0.113.9', accept: 'application/json', app: true });
  // Express's own 404 (finalhandler) answers through the same objects.
  t.is((await fetch(`${base}/nowhere`)).status, 404);
  t.deepEqual(
    arrivals.map((a) => a.express),
    [true, true],
  );
});

test("Node's own server hands Express plain requests (what the test above tells apart)", async (t) => {
  const app = express();
  app.get('/ping', (_req, res) => void res.json({ ok: true }));
  const server = http.createServer(app);
  const arrivals = watchArrivals(server);
  const base = await listen(server);
  t.teardown(() => server.close());
  t.is((await fetch(`${base}/ping`)).status, 200);
  t.deepEqual(
    arrivals.map((a) => a.express),
    [false],
  );
});

test("the service's requests, its API's and Socket.IO's, arrive born with the app's prototypes and are answered as before", async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.stop());
  const arrivals = watchArrivals(server.http);
  const user = await server.newUser();
  const me = await user.api.get('/user');
  t.is(me.status, 200);
  t.is(me.body.data.uuid, user.user.uuid);
  const health = await fetch(`${server.url}/healthz`);
  t.is(health.status, 200);
  t.truthy(health.headers.get('x-request-id'));
  const polling = await fetch(`${server.url}/socket.io/?EIO=4&transport=polling`);
  t.is(polling.status, 200);
  t.regex(await polling.text(), /"sid":"/);
  t.true(arrivals.length >= 4);
  t.deepEqual(
    arrivals.filter((a) => !a.express),
    [],
  );
  t.true(arrivals.some((a) => a.url.startsWith('/socket.io/')));
});
