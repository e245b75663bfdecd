import test from 'ava';
import { resolveDieForRoll } from '../../src/themes/rollable';
import { emptyDefaults, type StoredManifest } from '../../src/themes/manifest/manifest';

const manifest = (over: Partial<StoredManifest>): StoredManifest => ({
  ...emptyDefaults(),
  label: { color: '#000000', background_color: '#ffffff' },
  extend: null,
  ...over,
});

test('a die without values has the plain faces of its shape', (t) => {
  const m = manifest({});
  t.deepEqual(resolveDieForRoll(m, 'd20'), { id: 'd20', type: 'd20', notation: 'd20', faces: Array.from({ length: 20 }, (_, i) => i + 1) });
  t.deepEqual(resolveDieForRoll(m, 'd10x')!.faces, [0, 10, 20, 30, 40, 50, 60, 70, 80, 90]);
});

test('die types are matched case-insensitively; unknown dice are null', (t) => {
  const m = manifest({});
  t.is(resolveDieForRoll(m, 'D20')!.id, 'd20');
  t.is(resolveDieForRoll(m, 'd2'), null, "not in this theme's available_dice");
  t.is(resolveDieForRoll(m, 'mod'), null);
});

test('custom dice take their faces from values and keep their notation', (t) => {
  const faces = [-1, -1, 0, 0, 1, 1];
  const m = manifest({
    available_dice: ['d6', { id: 'dF', type: 'd6', notation: 'dF' }],
    values: { dF: faces, d6: ['⚀', '⚁', '⚂', '⚃', '⚄', { src: 'six.png' }] },
  });
  t.deepEqual(resolveDieForRoll(m, 'df'), { id: 'dF', type: 'd6', notation: 'dF', faces });
  t.deepEqual(resolveDieForRoll(m, 'd6')!.faces[5], { src: 'six.png' });
});
