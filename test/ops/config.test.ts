import test from 'ava';
import { ConfigError, loadConfig } from '../../src/config';
import { freshDataDir, runMainExpectingExit } from '../helpers/process';

test('defaults need no environment at all', (t) => {
  const config = loadConfig({});
  t.is(config.port, 3000);
  t.is(config.databaseUrl, null);
  t.is(config.redisUrl, null);
  t.is(config.redisPrefix, 'dice:');
  t.is(config.dataDir, './data');
  t.true(config.allowGuests);
  t.true(Object.isFrozen(config));
});

test('variables are parsed and typed', (t) => {
  const config = loadConfig({
    PORT: '8080',
    DATABASE_URL: 'postgres://u@h:5432/d',
    REDIS_URL: 'redis://h:6379',
    PUSHER_APP_SECRET: 'a-shared-secret-0123456789',
    ALLOW_GUESTS: 'false',
    LOG_LEVEL: 'debug',
    PUBLIC_URL: 'https://dice.example/',
  });
  t.is(config.port, 8080);
  t.is(config.databaseUrl, 'postgres://u@h:5432/d');
  t.is(config.redisUrl, 'redis://h:6379');
  t.false(config.allowGuests);
  t.is(config.logLevel, 'debug');
  t.is(config.publicUrl, 'https://dice.example', 'a trailing slash is dropped so links join cleanly');
});

test('every bad variable is named in one sentence each', (t) => {
  const error = t.throws(() => loadConfig({ PORT: 'abc', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud' }), { instanceOf: ConfigError });
  t.regex(error!.message, /^Invalid configuration: /);
  t.regex(error!.message, /PORT is invalid/);
  t.regex(error!.message, /DATABASE_URL is invalid/);
  t.regex(error!.message, /LOG_LEVEL is invalid/);
  t.regex(error!.message, /"abc"/);
});

test('CORS_ORIGINS: any origin by default, a list of origins, one sentence for a bad entry', (t) => {
  t.is(loadConfig({}).corsOrigins, null);
  t.is(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins, null);
  t.deepEqual(loadConfig({ CORS_ORIGINS: 'https://vtt.example, http://localhost:8080/' }).corsOrigins, ['https://vtt.example', 'http://localhost:8080']);
  for (const bad of ['https://vtt.example/app', 'vtt.example', 'ftp://vtt.example', 'https://vtt.example, *', 'https://user@vtt.example']) {
    const error = t.throws(() => loadConfig({ CORS_ORIGINS: bad }), { instanceOf: ConfigError }, bad);
    t.regex(error!.message, /^Invalid configuration: CORS_ORIGINS is invalid \(each entry must be an origin such as https:\/\/app\.example\.com/, bad);
    t.is(error!.message.split('. ').length, 1, `one sentence: ${error!.message}`);
  }
});

test('FRAME_ANCESTORS: this server only by default, origins and subdomain wildcards, * for any site, one sentence for a bad entry', (t) => {
  t.deepEqual(loadConfig({}).frameAncestors, []);
  t.is(loadConfig({ FRAME_ANCESTORS: '*' }).frameAncestors, null);
  t.deepEqual(loadConfig({ FRAME_ANCESTORS: 'https://VTT.example.com, https://*.example.org:8443 http://localhost:3000/' }).frameAncestors, [
    'https://vtt.example.com',
    'https://*.example.org:8443',
    'http://localhost:3000',
  ]);
  // Each would change the policy's meaning if passed through: a directive, a keyword, a path, a bare host.
  for (const bad of [
    'https://vtt.example.com; script-src *',
    "'unsafe-inline'",
    'https://vtt.example.com/app',
    'vtt.example.com',
    '*.example.com',
    'data:',
    'https://vtt.example.com, *',
    'https://vtt.example.com:70000',
  ]) {
    const error = t.throws(() => loadConfig({ FRAME_ANCESTORS: bad }), { instanceOf: ConfigError }, bad);
    t.regex(error!.message, /^Invalid configuration: FRAME_ANCESTORS is invalid \(each entry must be an origin such as https:\/\/vtt\.example\.com/, bad);
    t.is(error!.message.split('. ').length, 1, `one sentence: ${error!.message}`);
  }
});

test('a bad value stops start-up with a clear sentence and no stack trace', async (t) => {
  const { code, stderr } = await runMainExpectingExit({ PORT: 'not-a-port', DATA_DIR: freshDataDir() });
  t.is(code, 2);
  t.regex(stderr, /Invalid configuration: PORT is invalid/);
  t.notRegex(stderr, /\n\s+at /, 'no stack trace');
});

test('an unreachable database stops start-up with a clear sentence', async (t) => {
  const { code, stderr } = await runMainExpectingExit({ PORT: '0', DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
  t.is(code, 1);
  t.regex(stderr, /^Cannot start: /m);
  t.notRegex(stderr, /\n\s+at /, 'no stack trace');
});

test('ALLOWED_HOSTS: loopback names by default, a comma-separated list of hosts (optionally with a port) when set', (t) => {
  t.deepEqual([...loadConfig({}).allowedHosts], ['localhost', '127.0.0.1', '[::1]']);
  t.deepEqual(
    [...loadConfig({ ALLOWED_HOSTS: ' dice.example.com, dice.example.com:8443 ,10.0.0.7,[fd00::1]:80' }).allowedHosts],
    ['dice.example.com', 'dice.example.com:8443', '10.0.0.7', '[fd00::1]:80'],
  );
  t.true(Object.isFrozen(loadConfig({ ALLOWED_HOSTS: 'a.example' }).allowedHosts));
  for (const bad of ['https://dice.example', 'dice.example/path', 'evil.example,*', 'dice example', 'dice.example:port']) {
    const error = t.throws(() => loadConfig({ ALLOWED_HOSTS: bad }), { instanceOf: ConfigError }, bad);
    t.regex(error!.message, /ALLOWED_HOSTS is invalid \(must be host names or host:port/, bad);
  }
});

test('PUBLIC_URL is bounded (200 characters) so that stored links fit their column', (t) => {
  t.is(loadConfig({ PUBLIC_URL: `https://${'a'.repeat(180)}.example` }).publicUrl?.length, 196);
  const error = t.throws(() => loadConfig({ PUBLIC_URL: `https://${'a'.repeat(200)}.example` }), { instanceOf: ConfigError });
  t.regex(error!.message, /PUBLIC_URL is invalid/);
});

test('REDIS_CLUSTER_NODES: host:port seed nodes instead of REDIS_URL; both at once, a bad entry or no shared Pusher secret is refused', (t) => {
  const config = loadConfig({ REDIS_CLUSTER_NODES: ' 10.0.0.1:7000,redis-b.internal:7001 , [fd00::7]:7002', PUSHER_APP_SECRET: 'a-shared-secret-0123456789' });
  t.deepEqual(config.redisClusterNodes, [
    { host: '10.0.0.1', port: 7000 },
    { host: 'redis-b.internal', port: 7001 },
    { host: 'fd00::7', port: 7002 },
  ]);
  t.is(config.redisUrl, null);
  t.true(Object.isFrozen(config.redisClusterNodes));
  t.is(loadConfig({}).redisClusterNodes, null);

  const both = t.throws(() => loadConfig({ REDIS_URL: 'redis://h:6379', REDIS_CLUSTER_NODES: 'h:7000', PUSHER_APP_SECRET: 'a-shared-secret-0123456789' }), {
    instanceOf: ConfigError,
  });
  t.regex(both!.message, /REDIS_URL and REDIS_CLUSTER_NODES are both set/);
  const secret = t.throws(() => loadConfig({ REDIS_CLUSTER_NODES: 'h:7000' }), { instanceOf: ConfigError });
  t.regex(secret!.message, /PUSHER_APP_SECRET is required with REDIS_CLUSTER_NODES/);
  for (const bad of ['h', 'h:0', 'h:70000', 'redis://h:7000', 'h:7000,,h2', 'h:7000;h2:7001', ',']) {
    const error = t.throws(() => loadConfig({ REDIS_CLUSTER_NODES: bad, PUSHER_APP_SECRET: 'a-shared-secret-0123456789' }), { instanceOf: ConfigError }, bad);
    t.regex(error!.message, /REDIS_CLUSTER_NODES is invalid \((each entry must be host:port|must name at least one node)/, bad);
  }
});

test('an unreachable Redis Cluster stops start-up with a clear sentence naming REDIS_CLUSTER_NODES', async (t) => {
  const { code, stderr } = await runMainExpectingExit({
    PORT: '0',
    DATA_DIR: freshDataDir(),
    REDIS_CLUSTER_NODES: '127.0.0.1:1,127.0.0.1:2',
    PUSHER_APP_SECRET: 'a-shared-secret-0123456789',
  });
  t.is(code, 1);
  t.regex(stderr, /^Cannot start: Cannot reach the Redis Cluster at REDIS_CLUSTER_NODES \(127\.0\.0\.1:1,127\.0\.0\.1:2\)/m);
  t.notRegex(stderr, /\n\s+at /, 'no stack trace');
});

test('RATE_LIMIT_LEASE_MAX: 64 by default, 1 turns leases off, 0 or a fraction is refused', (t) => {
  t.is(loadConfig({}).rateLimitLeaseMax, 64);
  t.is(loadConfig({ RATE_LIMIT_LEASE_MAX: '1' }).rateLimitLeaseMax, 1);
  for (const bad of ['0', '1.5', 'many']) {
    const error = t.throws(() => loadConfig({ RATE_LIMIT_LEASE_MAX: bad }), { instanceOf: ConfigError });
    t.regex(error!.message, /RATE_LIMIT_LEASE_MAX is invalid/);
  }
});

test('PRESENCE_TTL_MS: 30 s by default, from 3 s to 10 minutes in whole milliseconds', (t) => {
  t.is(loadConfig({}).presenceTtlMs, 30_000);
  t.is(loadConfig({ PRESENCE_TTL_MS: '6000' }).presenceTtlMs, 6000);
  for (const bad of ['2999', '600001', '4500.5', 'soon']) {
    const error = t.throws(() => loadConfig({ PRESENCE_TTL_MS: bad }), { instanceOf: ConfigError });
    t.regex(error!.message, /PRESENCE_TTL_MS/);
  }
});
