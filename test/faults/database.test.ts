import test from 'ava';
import { createTestDatabase } from '../helpers/env';
import { startProxy } from '../helpers/proxy';
import { spawnInstance } from '../helpers/process';
import { request } from '../helpers/http';

// PostgreSQL suite only: an instance whose database goes away answers 503, fails readiness,
// does not crash, and recovers by itself when the database returns.
test('readiness fails and the API answers 503 while PostgreSQL is unreachable, then recovers', async (t) => {
  const database = await createTestDatabase();
  t.teardown(() => database.drop());
  const target = new URL(database.databaseUrl!);
  const proxy = await startProxy(target.hostname, Number(target.port || 5432));
  t.teardown(() => proxy.close());
  const viaProxy = new URL(target);
  viaProxy.port = String(proxy.port);
  const instance = await spawnInstance({ DATABASE_URL: viaProxy.toString() });
  t.teardown(() => instance.stop('SIGKILL'));

  const guest = await request(`${instance.url}/api/1.0/user`, 'POST');
  t.is(guest.status, 201);
  const key = guest.body.data;
  t.is((await request(`${instance.url}/readyz`, 'GET')).status, 200);

  await proxy.cut();
  const ready = await request(`${instance.url}/readyz`, 'GET');
  t.is(ready.status, 503);
  t.is(ready.body.checks.database, 'unreachable', 'says what is down, not where it lives');
  const me = await request(`${instance.url}/api/1.0/user`, 'GET', { key });
  t.is(me.status, 503);
  t.is(me.body.data.code, 'service_unavailable');
  const roll = await request(`${instance.url}/api/1.0/roll`, 'POST', { key, body: { dice: [{ type: 'd6', theme: 'standard' }] } });
  t.is(roll.status, 503, 'a roll too, not a 500');
  t.is((await request(`${instance.url}/healthz`, 'GET')).status, 200, 'the process itself is alive');

  await proxy.restore();
  let recovered = false;
  for (let i = 0; i < 50 && !recovered; i++) {
    recovered = (await request(`${instance.url}/readyz`, 'GET')).status === 200;
    if (!recovered) await new Promise((r) => setTimeout(r, 200));
  }
  t.true(recovered, 'ready again once the database is back');
  t.is((await request(`${instance.url}/api/1.0/user`, 'GET', { key })).status, 200);
  // The roll paths run on a pool of their own (src/db/sql.ts): it recovers too.
  const rolled = await request(`${instance.url}/api/1.0/roll`, 'POST', { key, body: { dice: [{ type: 'd6', theme: 'standard' }] } });
  t.is(rolled.status, 201, rolled.text);
  t.is((await request(`${instance.url}/api/1.0/roll/${rolled.body.data.uuid}`, 'GET', { key })).status, 200);
  t.is(instance.child.exitCode, null, 'never crashed');
});
