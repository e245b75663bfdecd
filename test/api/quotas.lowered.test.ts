import test from 'ava';
import { configureQuotas, currentQuotas } from '../../src/users/quotas';
import { useServer } from '../helpers/server';

// An operator lowers a quota below what a user already holds (a restart with a smaller value: the
// server runs in this process, so setting its quotas is what start-up does). Nothing is removed;
// creations are refused until the user is back under the limit, and the message says by how many.
const ctx = useServer(test, { ROOMS_PER_USER: '5' });

test('a user over a lowered limit keeps its rooms, is told how many to delete, and can create again once under it', async (t) => {
  const me = await ctx.server.newUser();
  const slugs: string[] = [];
  for (let i = 0; i < 5; i++) slugs.push((await me.api.post('/room', {})).body.data.slug);
  configureQuotas({ ...currentQuotas(), roomsOwned: 2 });
  const refused = await me.api.post('/room', {});
  t.is(refused.status, 409);
  t.is(refused.body.data.code, 'quota_exceeded');
  t.is(refused.body.data.message, 'You own 5 rooms, and 2 is the most allowed (ROOMS_PER_USER): delete 4 to create another.');
  t.is((await me.api.get('/room')).body.meta.total, 5, 'nothing was removed');
  for (const slug of slugs.slice(0, 3)) t.is((await me.api.delete(`/room/${slug}`)).status, 204);
  t.is((await me.api.post('/room', {})).body.data.message, 'You own 2 rooms, and 2 is the most allowed (ROOMS_PER_USER): delete one to create another.');
  t.is((await me.api.delete(`/room/${slugs[3]}`)).status, 204);
  t.is((await me.api.post('/room', {})).status, 201);
});
