import test from 'ava';
import { loadConfig } from '../../src/config';
import { useServer } from '../helpers/server';
import { WebClient } from './webClient';

const ctx = useServer(test, { ALLOW_SIGNUP: 'false' });

test('ALLOW_SIGNUP=false refuses sign-up with a reason, and the page says so', async (t) => {
  const web = new WebClient(ctx.server.url);
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
