import test from 'ava';
import { useServer } from '../helpers/server';

const ctx = useServer(test, { RATE_LIMIT_PER_MINUTE: '5', GUESTS_PER_HOUR: '3', AUTH_FAILURES_PER_MINUTE: '3' });

test.serial('guest creation is limited per client address with Retry-After', async (t) => {
  for (let i = 0; i < 3; i++) t.is((await ctx.server.api.post('/user')).status, 201);
  const limited = await ctx.server.api.post('/user');
  t.is(limited.status, 429);
  t.is(limited.body.data.code, 'rate_limited');
  t.true(Number(limited.headers.get('retry-after')) > 0);
  t.is(limited.headers.get('ratelimit-limit'), '3');
  t.is(limited.headers.get('ratelimit-remaining'), '0');
});

test.serial("requests are limited per key, and one key does not spend another key's budget", async (t) => {
  const { createGuest } = await import('../../src/users/create');
  const [{ key: a }, { key: b }] = [await createGuest(), await createGuest()];
  const api = ctx.server.api;
  for (let i = 0; i < 5; i++) {
    const res = await api.as(a).get('/user');
    t.is(res.status, 200);
    t.is(res.headers.get('ratelimit-remaining'), String(4 - i));
  }
  const limited = await api.as(a).get('/user');
  t.is(limited.status, 429);
  t.truthy(limited.headers.get('retry-after'));
  t.is((await api.as(b).get('/user')).status, 200);
});

test.serial('unknown keys from one address turn from 401 to 429, while a good key keeps working', async (t) => {
  const { createGuest } = await import('../../src/users/create');
  const { key } = await createGuest();
  const guess = ctx.server.api.as('dk_guessguessguessguessguessguessguessguessgue');
  for (let i = 0; i < 3; i++) t.is((await guess.get('/room')).status, 401);
  const limited = await guess.get('/room');
  t.is(limited.status, 429);
  t.is(limited.body.data.code, 'rate_limited');
  t.true(Number(limited.headers.get('retry-after')) > 0);
  t.is((await ctx.server.api.as(key).get('/user')).status, 200, 'a good key from the same address still works');
  t.is((await ctx.server.api.get('/user')).status, 401, 'no key at all is not a guess: still 401');
});
