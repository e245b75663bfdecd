import test from 'ava';
import { STANDARD_DICE } from '../../src/dice/faces';
import { DEFAULT_MANIFEST } from '../../src/db/migrations/0002-default-theme';
import { PLAIN_FACES, PHYSICAL_TYPES, normalizeDie, normalizeDice } from '../../src/themes/manifest/dice';
import { DEFAULT_THEME_ID } from '../../src/themes/defaultTheme';
import { crossCheck } from '../../src/themes/manifest/crossCheck';
import { parseManifest, resolveManifest } from '../../src/themes/manifest/manifest';
import { resolveLabel } from '../../src/themes/manifest/label';

test("the physical dice and their plain faces are the dice engine's standard dice", (t) => {
  t.deepEqual([...PHYSICAL_TYPES].sort(), Object.keys(STANDARD_DICE).sort());
  for (const type of PHYSICAL_TYPES) t.deepEqual([...PLAIN_FACES[type]], [...STANDARD_DICE[type]!.faces], type);
});

test("the built-in theme has the standard set plus d2 and d16, with the engine's faces", (t) => {
  t.deepEqual(DEFAULT_MANIFEST.available_dice, ['d4', 'd6', 'd8', 'd10', 'd10x', 'd12', 'd20', 'd2', 'd16']);
  for (const id of DEFAULT_MANIFEST.available_dice)
    t.deepEqual(DEFAULT_MANIFEST.values[id as keyof typeof DEFAULT_MANIFEST.values], [...STANDARD_DICE[id]!.faces], id);
  t.deepEqual(DEFAULT_MANIFEST.values.d10x, [0, 10, 20, 30, 40, 50, 60, 70, 80, 90]);
});

test('the built-in theme obeys the manifest rules and its label is the derived one', (t) => {
  const { label, extend, ...rest } = DEFAULT_MANIFEST;
  const text = JSON.stringify({ api_version: '1.0', id: DEFAULT_THEME_ID, name: 'Standard', description: '', version: '1.0.0', label: {}, ...rest });
  const parsed = parseManifest(text);
  t.deepEqual(parsed.details, []);
  const resolved = resolveManifest(parsed.manifest!, null).manifest;
  t.deepEqual(crossCheck(resolved, { available: new Map(), uploaded: [], inherited: [], base: null }), []);
  t.deepEqual(label, resolveLabel('Standard', {}));
  t.is(extend, null);
});

test('a string die is its own id, type and notation; objects default their notation to the id', (t) => {
  t.deepEqual(normalizeDie('d6'), { id: 'd6', type: 'd6', notation: 'd6' });
  t.deepEqual(normalizeDie({ id: 'df', type: 'd6' }), { id: 'df', type: 'd6', notation: 'df' });
  t.deepEqual(normalizeDie({ id: 'df', type: 'd6', notation: 'dF' }), { id: 'df', type: 'd6', notation: 'dF' });
  t.is(normalizeDie(5), null);
  t.deepEqual(normalizeDice(['d4', null, { id: 'x' }]), [{ id: 'd4', type: 'd4', notation: 'd4' }]);
});
