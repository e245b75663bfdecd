import test from 'ava';
import { useCluster } from '../helpers/cluster';
import { closeAll, connectWelcomed, type Client } from '../helpers/sockets';
import { scrape, valueOf, type Sample } from '../helpers/metrics';

// Two instances, PostgreSQL + Redis: the production shape, where realtime emits go through Redis.
const TOKEN = 'cluster-metrics-token-0123456789';
const cluster = useCluster(test, 2, { METRICS_TOKEN: TOKEN });
const clients: Client[] = [];
test.after.always(() => closeAll(...clients));

const metricsOf = (i: number) => scrape(`${cluster.current.instances[i]!.url}/metrics`, TOKEN);
const delta = (before: Sample[], after: Sample[], name: string, labels: Record<string, string> = {}) =>
  valueOf(after, name, labels) - valueOf(before, name, labels);

test('a roll through A: A counts its Redis PUBLISH and its emit, B counts the delivery to its socket', async (t) => {
  const [roller, listener] = await Promise.all([cluster.current.newUser(0), cluster.current.newUser(1)]);
  const slug = (await roller.api.post('/room', { name: 'Metrics' })).body.data.slug as string;
  t.is((await listener.api.post(`/room/${slug}/participant`, {})).status, 200);
  const socket = await connectWelcomed(cluster.current.instances[1]!.url, slug, { token: listener.key }, clients);

  const [a0, b0] = await Promise.all([metricsOf(0), metricsOf(1)]);
  const rolled = await roller.api.post('/roll', { dice: [{ type: 'd6', theme: 'standard' }], room: slug });
  t.is(rolled.status, 201);
  await socket.waitFor('RollCreateEvent', (p) => p.data.uuid === rolled.body.data.uuid);
  const [a1, b1] = await Promise.all([metricsOf(0), metricsOf(1)]);

  t.is(delta(a0, a1, 'dice_rolls_created_total'), 1);
  t.true(delta(a0, a1, 'dice_redis_publish_duration_seconds_count') >= 1, 'A timed its PUBLISH to Redis');
  t.true(delta(a0, a1, 'dice_redis_publish_duration_seconds_sum') > 0);
  t.is(delta(a0, a1, 'dice_redis_publish_failures_total'), 0);
  t.true(delta(a0, a1, 'dice_realtime_events_published_total', { event: 'RollCreateEvent' }) >= 1, 'A emitted the roll');
  t.is(delta(b0, b1, 'dice_realtime_events_published_total', { event: 'RollCreateEvent' }), 0, 'B emitted nothing');
  t.is(delta(b0, b1, 'dice_realtime_events_delivered_total', { event: 'RollCreateEvent' }), 1, 'B handed it to its socket');
  t.is(delta(a0, a1, 'dice_realtime_events_delivered_total', { event: 'RollCreateEvent' }), 0, 'A has no socket in the room');
  t.is(valueOf(b1, 'dice_realtime_rooms'), 1);
  t.is(valueOf(a1, 'dice_realtime_rooms'), 0);
  for (const pool of ['models', 'sql'])
    t.true(
      a1.some((s) => s.name === 'dice_db_pool_connections' && s.labels.pool === pool),
      `pool ${pool}`,
    );
  t.true(valueOf(a1, 'dice_db_pool_connections', { pool: 'sql' }) >= 1, 'the hot-path pool opened a connection for the roll');
});
