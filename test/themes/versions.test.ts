import test from 'ava';
import { compareVersions, isSemVer, latestOf, sortNewestFirst, versionConflict } from '../../src/themes/versions';

test('SemVer 2.0.0 strings are accepted as they are', (t) => {
  for (const v of [
    '0.0.0',
    '1.0.0',
    '10.20.30',
    '1.0.0-alpha',
    '1.0.0-alpha.1',
    '1.0.0-0.3.7',
    '1.0.0-x.7.z.92',
    '1.0.0+20130313144700',
    '1.0.0-beta+exp.sha.5114f85',
    '1.0.0-x-y-z.--',
  ]) {
    t.true(isSemVer(v), v);
  }
});

test('anything else is refused: prefixes, partial versions, leading zeros, spaces, huge numbers', (t) => {
  for (const v of [
    'v1.0.0',
    '=1.0.0',
    '1.0',
    '1',
    '01.0.0',
    '1.01.0',
    '1.0.0-01',
    ' 1.0.0',
    '1.0.0 ',
    '1.0.0-',
    '1.0.0+',
    '1.0.0-a..b',
    '',
    '9007199254740993.0.0',
    'x'.repeat(300),
  ]) {
    t.false(isSemVer(v), v);
  }
  t.false(isSemVer(1 as unknown));
});

test('precedence follows SemVer: pre-releases before their release, numeric identifiers as numbers', (t) => {
  const ordered = [
    '1.0.0-alpha',
    '1.0.0-alpha.1',
    '1.0.0-alpha.beta',
    '1.0.0-beta',
    '1.0.0-beta.2',
    '1.0.0-beta.11',
    '1.0.0-rc.1',
    '1.0.0',
    '1.0.1',
    '1.2.0',
    '1.10.0',
    '2.0.0',
  ];
  for (let i = 1; i < ordered.length; i++) t.true(compareVersions(ordered[i - 1]!, ordered[i]!) < 0, `${ordered[i - 1]} < ${ordered[i]}`);
  const shuffled = [...ordered].reverse().sort(() => 0);
  t.deepEqual(
    sortNewestFirst(shuffled, (v) => v),
    [...ordered].reverse(),
  );
  t.is(
    latestOf(['1.9.0', '1.10.0', '1.10.0-rc.1'], (v) => v),
    '1.10.0',
  );
  t.is(
    latestOf([], (v: string) => v),
    null,
  );
});

test('build metadata does not count for precedence', (t) => {
  t.is(compareVersions('1.0.0+a', '1.0.0+b'), 0);
  t.is(compareVersions('1.0.0+zzz', '1.0.0'), 0);
});

test('a new version must be greater than every existing one', (t) => {
  t.is(versionConflict('1.0.0', []), null);
  t.is(versionConflict('1.0.1', ['1.0.0']), null);
  t.is(versionConflict('2.0.0-rc.1', ['1.5.0', '1.0.0']), null);
  t.regex(versionConflict('1.0.0', ['1.0.0'])!, /already exists/);
  t.regex(versionConflict('1.0.0', ['1.2.0', '0.9.0'])!, /lower than the latest version 1\.2\.0/);
  t.regex(versionConflict('1.0.0+b', ['1.0.0+a'])!, /same precedence/);
  t.regex(versionConflict('1.0.0-rc.1', ['1.0.0'])!, /lower/);
});
