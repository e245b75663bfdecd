import test from 'ava';
import { createTestDatabase } from '../helpers/env';
import { request } from '../helpers/http';
import { spawnInstance, type Instance } from '../helpers/process';
import { isolatedRedis, teardownSteps } from './support';

// Two instances sharing PostgreSQL and Redis: a client that spreads its requests over both (as a
// load balancer does) gets one budget, not one per instance.
const LIMIT = 10;
const GUESTS = 4;
let a: Instance;
let b: Instance;
const keys: string[] = [];
const teardown = teardownSteps(test);

test.before(async () => {
  const database = await createTestDatabase();
  teardown.push(() => database.drop());
  const redis = await isolatedRedis();
  teardown.push(() => redis.close());
  teardown.push(() => Promise.allSettled([a?.stop('SIGKILL'), b?.stop('SIGKILL')]));
  const env = { DATABASE_URL: database.databaseUrl!, ...redis.env, RATE_LIMIT_PER_MINUTE: String(LIMIT), GUESTS_PER_HOUR: String(GUESTS) };
  [a, b] = await Promise.all([spawnInstance(env), spawnInstance(env)]);
  // Two guests through instance a: half of this address's guest budget.
  for (let i = 0; i < 2; i++) {
    const res = await request(`${a.url}/api/1.0/user`, 'POST');
    if (res.status !== 201) throw new Error(`guest creation failed: ${res.status} ${res.text}`);
    keys.push(res.body.data);
  }
});

test.serial('guest creation per client address is one budget across instances', async (t) => {
  // Two spent on a already: b has two left, not four.
  const statuses: number[] = [];
  for (const instance of [b, b, a, b]) statuses.push((await request(`${instance.url}/api/1.0/user`, 'POST')).status);
  t.deepEqual(statuses, [201, 201, 429, 429]);
});

test.serial('requests per key are one budget across instances, and another key keeps its own', async (t) => {
  const [mine, other] = keys as [string, string];
  const remaining: string[] = [];
  for (let i = 0; i < LIMIT; i++) {
    const instance = i % 2 === 0 ? a : b;
    const res = await request(`${instance.url}/api/1.0/user`, 'GET', { key: mine });
    t.is(res.status, 200, `request ${i + 1} of ${LIMIT}`);
    remaining.push(res.headers.get('ratelimit-remaining') ?? '');
  }
  t.deepEqual(
    remaining,
    Array.from({ length: LIMIT }, (_, i) => String(LIMIT - 1 - i)),
    'both instances count into one window',
  );
  for (const instance of [a, b]) {
    const limited = await request(`${instance.url}/api/1.0/user`, 'GET', { key: mine });
    t.is(limited.status, 429);
    t.is(limited.body.data.code, 'rate_limited');
    const retryAfter = Number(limited.headers.get('retry-after'));
    t.true(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter} within the window`);
    t.is(limited.headers.get('ratelimit-limit'), String(LIMIT));
    t.is(limited.headers.get('ratelimit-remaining'), '0');
  }
  for (const instance of [a, b]) t.is((await request(`${instance.url}/api/1.0/user`, 'GET', { key: other })).status, 200);
});
