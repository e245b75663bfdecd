import net from 'node:net';
import test from 'ava';
import { useServer } from '../helpers/server';
import { scrape, valueOf } from '../helpers/metrics';

// METRICS_PORT alone: a listener of its own, no token, nothing on the main port.
const ctx = useServer(test, { METRICS_PORT: '0' });

test.serial('METRICS_PORT serves GET /metrics on its own listener without a token', async (t) => {
  t.truthy(ctx.server.metricsUrl);
  t.not(new URL(ctx.server.metricsUrl!).port, String(ctx.server.port));
  const user = await ctx.server.newUser();
  t.is((await user.api.get('/user')).status, 200);
  const samples = await scrape(ctx.server.metricsUrl!);
  t.true(valueOf(samples, 'dice_http_requests_total', { route: '/api/1.0/user', method: 'GET', status: '200' }) >= 1, 'requests to the main port are counted');
  const head = await fetch(ctx.server.metricsUrl!, { method: 'HEAD' });
  t.is(head.status, 200);
});

test.serial('the metrics port serves nothing else, and the main port has no /metrics without METRICS_TOKEN', async (t) => {
  const base = ctx.server.metricsUrl!.replace(/\/metrics$/, '');
  // (Paths the API documents are left out: the suite checks every recorded answer against the document, whatever the port.)
  for (const [method, path] of [
    ['GET', '/nothing-here'],
    ['GET', '/api/1.0/nothing'],
    ['POST', '/metrics'],
    ['GET', '/metrics/more'],
  ] as const) {
    const res = await fetch(base + path, { method });
    t.is(res.status, 404, `${method} ${path}`);
    t.is((await res.json()).data.code, 'route_not_found');
  }
  const main = await fetch(`${ctx.server.url}/metrics`);
  t.is(main.status, 404);
  t.is((await main.json()).type, 'error');
});

test.serial('last: graceful shutdown closes the metrics listener', async (t) => {
  const port = Number(new URL(ctx.server.metricsUrl!).port);
  await ctx.server.stop();
  const refused = await new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(true));
  });
  t.true(refused, 'nothing listens on the metrics port any more');
});
