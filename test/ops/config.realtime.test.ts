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

test('SOCKET_MAX_BUFFERED_BYTES: 4 MiB by default, whole bytes from 256 KiB to 1 GiB; a bad value is named with the reason', (t) => {
  t.is(loadConfig({}).socketMaxBufferedBytes, 4 * 1024 * 1024);
  t.is(loadConfig({ SOCKET_MAX_BUFFERED_BYTES: '1048576' }).socketMaxBufferedBytes, 1024 * 1024);
  const reasons: Record<string, RegExp> = {
    '1000': /at least 262144 bytes/,
    '2000000000': /at most 1073741824 bytes/,
    '1.5': /whole number/,
    lots: /whole number/,
    '-1': /at least/,
  };
  for (const [bad, reason] of Object.entries(reasons)) {
    const error = t.throws(() => loadConfig({ SOCKET_MAX_BUFFERED_BYTES: bad }), { instanceOf: ConfigError }, bad);
    t.regex(error!.message, /^Invalid configuration: SOCKET_MAX_BUFFERED_BYTES is invalid \(.+; got ".*"\)\.$/);
    t.regex(error!.message, reason);
  }
});
