import test from 'ava';
import { useServer } from '../helpers/server';
import { closeAll, connectUser, refusal, type Client } from '../helpers/sockets';

// A small budget: handshakes count per client address per minute, like the API's requests.
const ctx = useServer(test, { RATE_LIMIT_PER_MINUTE: '5' });

test('handshakes over the per-address limit are refused with "rate_limited"', async (t) => {
  const { key } = await ctx.server.newUser();
  const clients: Client[] = [];
  t.teardown(() => closeAll(...clients));
  for (let i = 0; i < 5; i++) clients.push(await connectUser(ctx.server.url, key));
  const refused = await refusal(ctx.server.url, '/user', { token: key });
  t.is(refused.code, 'rate_limited');
  t.regex(refused.data.message, /try again in \d+ seconds?/);
  t.is((await refusal(ctx.server.url, '/room/any-room', { token: key })).code, 'rate_limited');
});
