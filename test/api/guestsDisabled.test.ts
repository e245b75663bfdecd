import test from 'ava';
import { useServer } from '../helpers/server';

const ctx = useServer(test, { ALLOW_GUESTS: 'false' });

test('ALLOW_GUESTS=false refuses guest creation with a reason', async (t) => {
  const res = await ctx.server.api.post('/user');
  t.is(res.status, 403);
  t.is(res.body.data.code, 'forbidden');
  t.regex(res.body.data.message, /Guest accounts are disabled/);
});
