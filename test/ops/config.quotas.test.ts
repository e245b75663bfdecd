import test from 'ava';
import { ConfigError, loadConfig } from '../../src/config';
import { DEFAULT_QUOTAS } from '../../src/quotaConfig';

test('quotas have defaults a person never reaches: 100 rooms, 500 joined, 100 themes of 100 versions, 256 MiB, 100 share requests', (t) => {
  t.deepEqual(loadConfig({}).quotas, {
    roomsOwned: 100,
    roomsJoined: 500,
    themesOwned: 100,
    versionsPerTheme: 100,
    assetBytes: 256 * 1024 * 1024,
    shareRequests: 100,
  });
  t.deepEqual(loadConfig({}).quotas, DEFAULT_QUOTAS);
  t.true(Object.isFrozen(loadConfig({}).quotas));
});

test('quotas are read from the environment; sizes take a unit', (t) => {
  const { quotas } = loadConfig({
    ROOMS_PER_USER: '3',
    ROOMS_JOINED_PER_USER: '4',
    THEMES_PER_USER: '5',
    VERSIONS_PER_THEME: '6',
    ASSET_BYTES_PER_USER: '20kb',
    SHARE_REQUESTS_PER_USER: '7',
  });
  t.deepEqual(quotas, { roomsOwned: 3, roomsJoined: 4, themesOwned: 5, versionsPerTheme: 6, assetBytes: 20 * 1024, shareRequests: 7 });
  t.is(loadConfig({ ASSET_BYTES_PER_USER: '1GB' }).quotas.assetBytes, 1024 ** 3);
  t.is(loadConfig({ ASSET_BYTES_PER_USER: '1000' }).quotas.assetBytes, 1000, 'a plain number is bytes');
});

test('a bad quota stops start-up with one sentence per variable', (t) => {
  const error = t.throws(() => loadConfig({ ROOMS_PER_USER: '0', VERSIONS_PER_THEME: 'many', ASSET_BYTES_PER_USER: '12tb', SHARE_REQUESTS_PER_USER: '-1' }), {
    instanceOf: ConfigError,
  });
  const message = error!.message;
  t.regex(message, /ROOMS_PER_USER is invalid \(must be greater than or equal to 1; got "0"\)\./);
  t.regex(message, /VERSIONS_PER_THEME is invalid \(must be a number; got "many"\)\./);
  t.regex(message, /ASSET_BYTES_PER_USER is invalid \(must be a positive number of bytes, or a number followed by kb, mb or gb, such as 256mb; got "12tb"\)\./);
  t.regex(message, /SHARE_REQUESTS_PER_USER is invalid/);
  t.throws(() => loadConfig({ ASSET_BYTES_PER_USER: '0' }), { instanceOf: ConfigError }, 'no upload at all is not a quota');
  t.throws(() => loadConfig({ ASSET_BYTES_PER_USER: '99999999999gb' }), { instanceOf: ConfigError }, 'beyond a safe integer');
});
