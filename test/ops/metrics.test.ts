import { randomUUID } from 'node:crypto';
import test from 'ava';
import { ConfigError, loadConfig } from '../../src/config';
import { useServer } from '../helpers/server';
import { closeAll, connectWelcomed, type Client } from '../helpers/sockets';
import { labelValues, parseMetrics, scrape, valueOf, type Sample } from '../helpers/metrics';
import { rollOk, table } from '../api/rolls.support';

const TOKEN = 'metrics-token-for-the-ops-test-0123456789';
const ctx = useServer(test, { METRICS_TOKEN: TOKEN });
const metricsUrl = () => `${ctx.server.url}/metrics`;
const clients: Client[] = [];
test.after.always(() => closeAll(...clients));

/** `after` minus `before` for one series (or the sum of the series matching `labels`). */
const delta = (before: Sample[], after: Sample[], name: string, labels: Record<string, string> = {}) =>
  valueOf(after, name, labels) - valueOf(before, name, labels);

async function until(check: () => Promise<boolean>, what: string) {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never happened: ${what}`);
}

test('after some traffic the counters moved, and no label carries a slug, a uuid or a key', async (t) => {
  const before = await scrape(metricsUrl(), TOKEN);
  const s = await table(ctx.server);
  const [roller, bystander] = await Promise.all([
    connectWelcomed(ctx.server.url, s.slug, { token: s.roller.key }, clients),
    connectWelcomed(ctx.server.url, s.slug, { token: s.bystander.key }, clients),
  ]);

  const live = await scrape(metricsUrl(), TOKEN);
  t.is(valueOf(live, 'dice_realtime_sockets', { namespace: 'room' }), 2, 'two sockets in a room');
  t.is(valueOf(live, 'dice_realtime_rooms'), 1, 'one live room');
  t.true(valueOf(live, 'dice_realtime_connections') >= 2);

  const roll = await rollOk(s.roller, { dice: [{ type: 'd20', theme: 'standard' }], room: s.slug });
  await bystander.waitFor('RollCreateEvent', (p) => p.data.uuid === roll.uuid);
  await roller.waitFor('RollCreateEvent', (p) => p.data.uuid === roll.uuid);
  t.is((await s.bystander.api.get(`/roll/${roll.uuid}`)).status, 200);
  // Errors answered by the app's error handler still carry their route's pattern.
  t.is((await s.roller.api.post('/roll', { dice: 'not a list' })).status, 400);
  const missingSlug = `no-such-room-${randomUUID().slice(0, 8)}`;
  t.is((await s.roller.api.get(`/room/${missingSlug}`)).status, 404);
  // Paths no route knows: the raw path must not become a label.
  const strayPath = `/stray-${randomUUID()}`;
  t.is((await fetch(`${ctx.server.url}${strayPath}`)).status, 404);
  t.is((await s.roller.api.get(`/room/${s.slug}/nothing/${randomUUID()}`)).status, 404);

  const after = await scrape(metricsUrl(), TOKEN);
  const http = 'dice_http_requests_total';
  t.true(delta(before, after, http, { route: '/api/1.0/user', method: 'POST', status: '201' }) >= 4, 'guests created');
  t.true(delta(before, after, http, { route: '/api/1.0/room', method: 'POST', status: '201' }) >= 1, 'room created');
  t.is(delta(before, after, http, { route: '/api/1.0/roll', method: 'POST', status: '201' }), 1, 'the roll');
  t.is(delta(before, after, http, { route: '/api/1.0/roll', method: 'POST', status: '400' }), 1, 'the bad roll, under its route');
  t.is(delta(before, after, http, { route: '/api/1.0/roll/:uuid', method: 'GET', status: '200' }), 1);
  t.is(delta(before, after, http, { route: '/api/1.0/room/:slug', method: 'GET', status: '404' }), 1, 'a 404 of a route keeps its pattern');
  t.is(delta(before, after, http, { route: 'unmatched', status: '404' }), 2, 'the two paths no route answers');
  t.is(delta(before, after, 'dice_http_request_duration_seconds_count', { route: '/api/1.0/roll', method: 'POST', status: '201' }), 1, 'timed');
  t.true(delta(before, after, 'dice_http_request_duration_seconds_sum', { route: '/api/1.0/roll', method: 'POST', status: '201' }) > 0);
  t.is(delta(before, after, 'dice_rolls_created_total'), 1);
  t.true(delta(before, after, 'dice_realtime_events_published_total', { event: 'RollCreateEvent' }) >= 1, 'published');
  t.is(delta(before, after, 'dice_realtime_events_delivered_total', { event: 'RollCreateEvent' }), 2, 'delivered to each socket once');
  t.true(
    after.some((x) => x.name === 'dice_db_pool_connections'),
    'database pool gauges',
  );
  t.true(
    after.some((x) => x.name === 'process_cpu_user_seconds_total'),
    'default process metrics',
  );
  t.true(
    after.some((x) => x.name === 'nodejs_eventloop_lag_seconds'),
    'default Node.js metrics',
  );

  // Label hygiene: nothing that names a room, a user, a roll or a key, and no uuid at all.
  const text = await (await fetch(metricsUrl(), { headers: { authorization: `Bearer ${TOKEN}` } })).text();
  const secrets = [
    s.slug,
    missingSlug,
    strayPath.slice(1),
    roll.uuid,
    ...[s.roller, s.whisperee, s.bystander, s.outsider].flatMap((u) => [u.key, u.user.uuid, u.user.username]),
  ];
  for (const secret of secrets) t.false(text.includes(secret), `the metrics mention ${secret}`);
  const values = labelValues(parseMetrics(text));
  for (const value of values) {
    t.notRegex(value, /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-/i, 'no uuid in a label');
    for (const secret of secrets) t.false(value.includes(secret), `label ${value}`);
  }
  const routes = new Set(
    parseMetrics(text)
      .filter((x) => x.name === http)
      .map((x) => x.labels.route!),
  );
  for (const route of routes) t.true(route === 'unmatched' || /^\/[\w./:-]*$/.test(route), `route label ${route}`);
  t.true(routes.has('/api/1.0/room/:slug/participant'), 'patterns of nested routers are joined to their mount path');

  // Made-up paths and slugs add no series (an attacker cannot grow the server's memory through labels).
  const seriesOf = (samples: Sample[]) => samples.filter((x) => x.name === http && x.labels.route !== '/metrics').length;
  const series = seriesOf(after);
  for (let i = 0; i < 20; i++) {
    await fetch(`${ctx.server.url}/made-up/${randomUUID()}`);
    await s.roller.api.get(`/room/made-up-${randomUUID()}`);
  }
  t.is(seriesOf(await scrape(metricsUrl(), TOKEN)), series, 'no new series');

  // Gauges are read at scrape time: the sockets and the room go with the clients.
  closeAll(roller, bystander);
  let now = before;
  await until(async () => {
    now = await scrape(metricsUrl(), TOKEN);
    return valueOf(now, 'dice_realtime_sockets', { namespace: 'room' }) === 0 && valueOf(now, 'dice_realtime_rooms') === 0;
  }, 'the sockets and the room leave the gauges');
  t.is(valueOf(now, 'dice_realtime_sockets', { namespace: 'room' }), 0, 'no room socket is counted');
  t.is(valueOf(now, 'dice_realtime_rooms'), 0, 'no room is counted');
});

test('GET /metrics on the main port needs METRICS_TOKEN: 401 with the JSON error body without it or with another', async (t) => {
  for (const authorization of [undefined, `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, 'Bearer ', TOKEN, `Basic ${TOKEN}`]) {
    const res = await fetch(metricsUrl(), { headers: authorization === undefined ? {} : { authorization } });
    t.is(res.status, 401, String(authorization));
    t.regex(res.headers.get('content-type') ?? '', /application\/json/);
    const body = await res.json();
    t.is(body.type, 'error');
    t.is(body.data.code, 'unauthorized');
    t.false(JSON.stringify(body).includes(TOKEN.slice(0, 10)), 'the token is not echoed');
  }
  // An API key is not the metrics token.
  const user = await ctx.server.newUser();
  t.is((await fetch(metricsUrl(), { headers: { authorization: `Bearer ${user.key}` } })).status, 401);
  const ok = await fetch(metricsUrl(), { headers: { authorization: `Bearer ${TOKEN}` } });
  t.is(ok.status, 200);
  t.regex(ok.headers.get('content-type') ?? '', /^text\/plain/);
  t.regex(await ok.text(), /^# HELP /m);
  t.is((await fetch(metricsUrl(), { headers: { authorization: `bearer ${TOKEN}` } })).status, 200, 'the scheme in any case, as for API keys');
});

test('METRICS_TOKEN and METRICS_PORT are validated, one sentence each, and the token is never echoed', (t) => {
  t.is(loadConfig({}).metricsToken, null);
  t.is(loadConfig({}).metricsPort, null);
  t.is(loadConfig({ METRICS_PORT: '9100' }).metricsPort, 9100);
  const short = 'short-secret';
  const error = t.throws(() => loadConfig({ METRICS_TOKEN: short, METRICS_PORT: 'ninety' }), { instanceOf: ConfigError });
  t.regex(error!.message, /METRICS_TOKEN is invalid \(length must be at least 16 characters long; got 12 characters\)\./);
  t.regex(error!.message, /METRICS_PORT is invalid/);
  t.false(error!.message.includes(short), 'the secret stays out of the message');
  t.throws(() => loadConfig({ METRICS_TOKEN: 'has a space in the middle of it' }), { message: /METRICS_TOKEN is invalid .*printable ASCII without spaces/ });
  t.throws(() => loadConfig({ PORT: '3000', METRICS_PORT: '3000' }), { message: /METRICS_PORT is invalid \(must differ from PORT/ });
});
