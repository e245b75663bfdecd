import test from 'ava';
import { choosePubSub, redisVersionFrom } from '../../src/realtime/transport/pubsubMode';

// The choice of the realtime fabric at start-up (src/realtime/transport/pubsubMode.ts). The shared Redis here
// is 7.x, so the old-server branches are exercised on the decision itself; test/cluster/classic.test.ts
// runs real instances on the classic path (REDIS_PUBSUB=classic).

test('the version is read from INFO server', (t) => {
  t.is(redisVersionFrom('# Server\r\nredis_version:7.0.15\r\nredis_git_sha1:00000000\r\n'), '7.0.15');
  t.is(redisVersionFrom('# Server\nredis_version:6.2.14\n'), '6.2.14');
  t.is(redisVersionFrom('# Server\r\nredis_mode:standalone\r\n'), null);
});

test('auto: sharded on Redis 7 and newer, without a warning', (t) => {
  for (const version of ['7.0.0', '7.0.15', '7.4.1', '8.0.2', '10.1.0'])
    t.deepEqual(choosePubSub('auto', version), { mode: 'sharded', warning: null }, version);
});

test('auto on an older or unknown Redis: classic, with one warning naming the version and the ceiling', (t) => {
  for (const version of ['6.2.14', '5.0.7', null]) {
    const { mode, warning } = choosePubSub('auto', version);
    t.is(mode, 'classic');
    t.true(warning!.includes(version ?? 'could not be read'), warning!);
    t.regex(warning!, /x136 Redis CPU per publish at 3,000 live rooms/);
    t.regex(warning!, /about 270 rolls\/s for one Redis/);
    t.regex(warning!, /Redis 7 or newer/);
  }
});

test('classic when asked, on any Redis, with the same warning of its ceiling', (t) => {
  for (const version of ['7.0.15', '6.2.14']) {
    const { mode, warning } = choosePubSub('classic', version);
    t.is(mode, 'classic');
    t.regex(warning!, /^REDIS_PUBSUB=classic: .*x136 .*270 rolls\/s/);
  }
});

test('sharded when asked: fine on Redis 7, a start-up error naming the version and the way out below it', (t) => {
  t.deepEqual(choosePubSub('sharded', '7.2.4'), { mode: 'sharded', warning: null });
  for (const version of ['6.2.14', null]) {
    const error = t.throws(() => choosePubSub('sharded', version));
    t.regex(error!.message, /^REDIS_PUBSUB=sharded needs Redis 7 or newer/);
    t.true(error!.message.includes(version ?? 'could not be read'));
    t.regex(error!.message, /set REDIS_PUBSUB=auto or classic/);
  }
});
