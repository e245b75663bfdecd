import test from 'ava';
import { rollableVersions } from '../../src/themes/policy';

const v = (boxed: boolean, id: number, slug: string, version: string) => ({ boxed, id, slug, version });

test('a boxed theme rolls at the version its box pins, not at a later one', (t) => {
  const out = rollableVersions([v(true, 3, 'neon', '1.0.0')]);
  t.deepEqual([...out.entries()], [['neon', { id: 3, slug: 'neon', version: '1.0.0' }]]);
});

test('the built-in theme rolls at its latest version by SemVer when no box pins it', (t) => {
  const out = rollableVersions([v(false, 1, 'standard', '1.2.0'), v(false, 2, 'standard', '1.10.0'), v(false, 4, 'standard', '1.9.9')]);
  t.deepEqual(out.get('standard'), { id: 2, slug: 'standard', version: '1.10.0' });
});

test('a box that pins the built-in theme wins over its latest version', (t) => {
  const out = rollableVersions([v(false, 2, 'standard', '2.0.0'), v(true, 1, 'standard', '1.0.0')]);
  t.deepEqual(out.get('standard'), { id: 1, slug: 'standard', version: '1.0.0' });
});

test('nothing boxed and no built-in versions: nothing to roll with', (t) => {
  t.is(rollableVersions([]).size, 0);
});

test('every public theme rolls at its own latest version; a pin wins for its id only', (t) => {
  const out = rollableVersions([
    v(false, 1, 'standard', '1.0.0'),
    v(false, 5, 'dddice-bees', '1.0.0'),
    v(false, 6, 'dddice-bees', '1.1.0'),
    v(false, 7, 'dddice-red', '2.0.0'),
    v(true, 8, 'dddice-red', '1.0.0'),
  ]);
  t.deepEqual(out.get('standard'), { id: 1, slug: 'standard', version: '1.0.0' });
  t.deepEqual(out.get('dddice-bees'), { id: 6, slug: 'dddice-bees', version: '1.1.0' });
  t.deepEqual(out.get('dddice-red'), { id: 8, slug: 'dddice-red', version: '1.0.0' });
});
