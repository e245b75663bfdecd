import test from 'ava';
import { SDK_KEY } from '../helpers/pusher';
import { useServer } from '../helpers/server';
import { healthz, rawUpgrade, RawPusher, upgradeRequest } from './realtimeWire';

// The inputs that once stopped the whole process from the Pusher gateway, each on its own: an upgrade
// whose key does not decode, an upgrade whose path is not a path, and frames whose `channel` is an
// object that cannot be turned into a string. The server answers each with the protocol's refusal and
// goes on serving (the properties in realtime.properties.test.ts try their other shapes).
const ctx = useServer(test);

test('an upgrade to /app/%C0%80 (not UTF-8 once decoded) is answered 400 and the server lives', async (t) => {
  const outcome = await rawUpgrade(ctx.server.url, upgradeRequest('/app/%C0%80?protocol=7'));
  t.is(outcome.status, 400, outcome.head);
  t.is(await healthz(ctx.server.url), 200);
});

test('an upgrade to // (no path at all) does not stop the server', async (t) => {
  const outcome = await rawUpgrade(ctx.server.url, upgradeRequest('//'));
  t.not(outcome.status, 101, outcome.head);
  t.is(await healthz(ctx.server.url), 200);
  const pusher = await RawPusher.open(ctx.server.url);
  await pusher.pingPong();
  pusher.close();
});

test('an upgrade to /app/{key} whose query string does not decode still opens or refuses by protocol, never crashes', async (t) => {
  const outcome = await rawUpgrade(ctx.server.url, upgradeRequest(`/app/${SDK_KEY}?protocol=%E0%A4%A&x=%ZZ`));
  t.is(outcome.status, 101, outcome.head);
  t.is(await healthz(ctx.server.url), 200);
});

for (const event of ['pusher:unsubscribe', 'pusher:subscribe']) {
  test(`${event} with {"channel": {"toString": 1}} is a pusher:error 4300; the connection and the server live`, async (t) => {
    const pusher = await RawPusher.open(ctx.server.url);
    pusher.send(JSON.stringify({ event, data: { channel: { toString: 1 } } }));
    const error = await pusher.until(() => pusher.frames.find((f) => f.event === 'pusher:error'), 'pusher:error');
    t.is(error.data.code, 4300);
    t.regex(error.data.message, /channel/);
    await pusher.pingPong();
    t.true(pusher.open);
    pusher.close();
    t.is(await healthz(ctx.server.url), 200);
  });
}
