import test from 'ava';
import { loadConfig } from '../../src/config';
import { useServer } from '../helpers/server';
import { WebClient } from './webClient';

const ctx = useServer(test, { ALLOW_SIGNUP: 'false', TRUST_PROXY: '1', GUESTS_PER_HOUR: '2' });

test('ALLOW_SIGNUP=false refuses sign-up with a reason, and the page says so', async (t) => {
  const web = new WebClient(ctx.server.url, '198.51.100.1');
  const page = await web.get('/signup');
  t.false(page.state!.signupAllowed);
  t.regex(page.state!.error!, /Sign-up is turned off/);
  const res = await web.post('/signup', { username: 'someone', password: 'a long password' });
  t.is(res.status, 403);
  t.regex(res.state!.error!, /Sign-up is turned off/);
});

test('a bad ALLOW_SIGNUP is refused with a sentence naming it', (t) => {
  t.throws(() => loadConfig({ ALLOW_SIGNUP: 'maybe' }), { message: /ALLOW_SIGNUP is invalid \(must be true or false/ });
});

test('claims count per address like guests (GUESTS_PER_HOUR), answered on the page', async (t) => {
  const web = new WebClient(ctx.server.url, '198.51.100.2');
  await web.get('/claim');
  const statuses: number[] = [];
  for (let i = 0; i < 3; i++) statuses.push((await web.post('/claim', { key: 'dk_nothing', username: `claimer${i}`, password: 'a long password' })).status);
  t.deepEqual(statuses, [401, 401, 429]);
  const last = await web.post('/claim', { key: 'dk_nothing', username: 'claimer9', password: 'a long password' });
  t.regex(last.state!.error!, /Too many requests/);
});
