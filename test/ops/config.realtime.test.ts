import test from 'ava';
import { ConfigError, loadConfig } from '../../src/config';

test('REALTIME_REVALIDATE_MS: 30 s by default, a whole number of ms between 100 and one hour', (t) => {
  t.is(loadConfig({}).realtimeRevalidateMs, 30_000);
  t.is(loadConfig({ REALTIME_REVALIDATE_MS: '500' }).realtimeRevalidateMs, 500);
  for (const bad of ['0', '99', '3600001', '1.5', 'soon', '-1']) {
    const error = t.throws(() => loadConfig({ REALTIME_REVALIDATE_MS: bad }), { instanceOf: ConfigError }, bad);
    t.regex(error!.message, /^Invalid configuration: REALTIME_REVALIDATE_MS is invalid \(.+; got ".*"\)\.$/);
  }
});

test('REDIS_PUBSUB: auto by default; auto, sharded or classic (any case); anything else names the variable', (t) => {
  t.is(loadConfig({}).redisPubsub, 'auto');
  t.is(loadConfig({ REDIS_PUBSUB: '' }).redisPubsub, 'auto');
  t.is(loadConfig({ REDIS_PUBSUB: 'sharded' }).redisPubsub, 'sharded');
  t.is(loadConfig({ REDIS_PUBSUB: 'Classic' }).redisPubsub, 'classic');
  for (const bad of ['shard', 'pattern', '7', 'true']) {
    const error = t.throws(() => loadConfig({ REDIS_PUBSUB: bad }), { instanceOf: ConfigError }, bad);
    t.regex(error!.message, /^Invalid configuration: REDIS_PUBSUB is invalid \(.+; got ".*"\)\.$/);
  }
});
