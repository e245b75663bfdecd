import test from 'ava';
import { useCluster } from '../helpers/cluster';

// Quotas hold across instances: the per-user lock is PostgreSQL's (an advisory lock), not a process's.
const LIMIT = 5;
const cluster = useCluster(test, 2, { ROOMS_PER_USER: String(LIMIT), ROOMS_JOINED_PER_USER: String(LIMIT) });

test(`20 rooms created at once through two instances with ROOMS_PER_USER=${LIMIT}: exactly ${LIMIT} exist`, async (t) => {
  const me = await cluster.current.newUser(0);
  const [a, b] = cluster.current.instances.map((i) => i.api.as(me.key));
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a! : b!).post('/room', { name: `Flood ${i}` })));
  const statuses = answers.map((r) => r.status);
  t.is(statuses.filter((s) => s === 201).length, LIMIT, statuses.join(','));
  t.true(
    answers.every((r) => r.status === 201 || r.body.data.code === 'quota_exceeded'),
    statuses.join(','),
  );
  t.is((await b!.get('/room')).body.meta.total, LIMIT);
});

test(`20 rooms of others joined at once through two instances with ROOMS_JOINED_PER_USER=${LIMIT}: exactly ${LIMIT} joined`, async (t) => {
  const owners = await Promise.all([0, 1, 0, 1].map((i) => cluster.current.newUser(i)));
  const slugs: string[] = [];
  for (const owner of owners) for (let i = 0; i < LIMIT; i++) slugs.push((await owner.api.post('/room', {})).body.data.slug);
  const me = await cluster.current.newUser(1);
  const [a, b] = cluster.current.instances.map((i) => i.api.as(me.key));
  const answers = await Promise.all(slugs.map((slug, i) => (i % 2 ? a! : b!).post(`/room/${slug}/participant`)));
  const statuses = answers.map((r) => r.status);
  t.is(statuses.filter((s) => s === 200).length, LIMIT, statuses.join(','));
  t.true(
    answers.every((r) => r.status === 200 || r.body.data.code === 'quota_exceeded'),
    statuses.join(','),
  );
  t.is((await a!.get('/room')).body.meta.total, LIMIT);
});
