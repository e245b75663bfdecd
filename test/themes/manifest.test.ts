import test from 'ava';
import { crossCheck } from '../../src/themes/manifest/crossCheck';
import { assetNames, fileReferences } from '../../src/themes/manifest/files';
import { parseManifest, resolveManifest, type ManifestInput, type StoredManifest } from '../../src/themes/manifest/manifest';
import type { AssetKind } from '../../src/themes/manifest/sniff';
import { loadingCondition, loadingSoundPlays } from '../../src/client/loadingSound';

const base = { api_version: '1.0', id: 'my-theme', name: 'My Theme', description: '', version: '1.0.0', label: {} };
const parse = (m: Record<string, unknown>) => parseManifest(JSON.stringify({ ...base, ...m }));
const paths = (m: Record<string, unknown>) => parse(m).details.map((d) => d.path);

/** Shape and cross-reference problems of a manifest with the given files uploaded. */
function problems(m: Record<string, unknown>, files: Record<string, AssetKind> = {}) {
  const parsed = parse(m);
  if (!parsed.manifest) return parsed.details;
  const resolved = resolveManifest(parsed.manifest, null).manifest;
  return crossCheck(resolved, {
    available: new Map(Object.entries(files)),
    uploaded: Object.keys(files).map((name, i) => ({ name, path: `assets[${i}]` })),
    inherited: [],
    base: null,
  });
}

test('the smallest manifest is valid and gets the standard dice', (t) => {
  const parsed = parse({});
  t.deepEqual(parsed.details, []);
  const { manifest } = resolveManifest(parsed.manifest!, null);
  t.deepEqual(manifest.available_dice, ['d4', 'd6', 'd8', 'd10', 'd10x', 'd12', 'd20']);
  t.deepEqual(manifest.meshes, {});
  t.deepEqual(manifest.sounds, []);
  t.regex(manifest.label.background_color, /^#[0-9a-f]{6}$/);
});

test('a missing, empty or non-JSON manifest is one problem at "manifest"', (t) => {
  for (const text of [undefined, '', '   ', '{nope', '[1,']) {
    const r = parseManifest(text);
    t.is(r.manifest, null);
    t.deepEqual(
      r.details.map((d) => d.path),
      ['manifest'],
    );
  }
  t.deepEqual(
    parseManifest('[]').details.map((d) => d.path),
    ['manifest'],
  );
  t.deepEqual(
    parseManifest('"text"').details.map((d) => d.path),
    ['manifest'],
  );
});

test('every required key is reported at once', (t) => {
  const r = parseManifest('{}');
  t.deepEqual(r.details.map((d) => d.path).sort(), [
    'manifest.api_version',
    'manifest.description',
    'manifest.id',
    'manifest.label',
    'manifest.name',
    'manifest.version',
  ]);
});

test('api_version must be the string "1.0"', (t) => {
  t.deepEqual(paths({ api_version: '2.0' }), ['manifest.api_version']);
  t.deepEqual(paths({ api_version: 1 }), ['manifest.api_version']);
});

test('id is a lower-case URL-safe slug', (t) => {
  for (const id of ['Upper', 'has space', '../x', '-lead', 'trail-', 'x'.repeat(101), 'a/b', '']) t.deepEqual(paths({ id }), ['manifest.id'], id);
  for (const id of ['a', 'dice-2', 'my_theme', '0x']) t.deepEqual(paths({ id }), [], id);
});

test('version must be SemVer 2.0.0', (t) => {
  for (const version of ['1', '1.0', 'v1.0.0', '1.0.0.0', 'latest', 1]) t.deepEqual(paths({ version }), ['manifest.version'], String(version));
  for (const version of ['0.1.0', '2.0.0-rc.1', '1.0.0+build.7']) t.deepEqual(paths({ version }), [], version);
});

test('label colours are hex colours or empty', (t) => {
  t.deepEqual(paths({ label: { color: 'red', background_color: '#12345' } }), ['manifest.label.color', 'manifest.label.background_color']);
  t.deepEqual(paths({ label: { color: '#fff', background_color: '#AbCdEf' } }), []);
  t.deepEqual(paths({ label: 'blue' }), ['manifest.label']);
  const { manifest } = resolveManifest(parse({ label: { color: '#010203', background_color: '' } }).manifest!, null);
  t.is(manifest.label.color, '#010203');
});

test('available_dice takes physical types as strings, and {id, type, notation} objects of a physical type', (t) => {
  t.deepEqual(paths({ available_dice: ['d6', { id: 'df', type: 'd6', notation: 'dF' }, 'd2', 'd16', 'd10x'] }), []);
  t.deepEqual(paths({ available_dice: ['d7'] }), ['manifest.available_dice[0]']);
  t.deepEqual(paths({ available_dice: [{ id: 'x', type: 'd100' }] }), ['manifest.available_dice[0].type']);
  t.deepEqual(paths({ available_dice: [{ type: 'd6' }] }), ['manifest.available_dice[0].id']);
  t.deepEqual(paths({ available_dice: [{ id: 'has space', type: 'd6' }] }), ['manifest.available_dice[0].id']);
  t.deepEqual(paths({ available_dice: [] }), ['manifest.available_dice']);
  t.deepEqual(paths({ available_dice: [7] }), ['manifest.available_dice[0]']);
});

test('die ids are unique, case-insensitively', (t) => {
  t.deepEqual(
    problems({ available_dice: ['d6', { id: 'D6', type: 'd6' }] }).map((d) => d.path),
    ['manifest.available_dice[1].id'],
  );
});

test('every die id used by meshes, sizes, physics, values, textures and sounds must exist', (t) => {
  const m = {
    available_dice: ['d6'],
    meshes: { d6: 'd6.fbx', d8: 'd8.fbx' },
    sizes: { d6: 1, d20: 2 },
    physics: { inertia: { d4: 1 }, weight: { d6: 2, d12: 3 } },
    values: { d6: [1, 2, 3, 4, 5, 6], dx: [1, 2] },
    textures: [{ binding: 'map', src: { d6: 'a.png', d10: 'a.png' } }],
    sounds: [{ on: 'die.collide', src: { d2: 'a.wav' } }],
  };
  const files: Record<string, AssetKind> = { 'd6.fbx': 'fbx', 'd8.fbx': 'fbx', 'a.png': 'png', 'a.wav': 'wav' };
  t.deepEqual(
    problems(m, files)
      .map((d) => d.path)
      .sort(),
    [
      'manifest.meshes.d8',
      'manifest.physics.inertia.d4',
      'manifest.physics.weight.d12',
      'manifest.sizes.d20',
      'manifest.sounds[0].src.d2',
      'manifest.textures[0].src.d10',
      'manifest.values.dx',
    ],
  );
});

test('die ids in references are exact (case matters there)', (t) => {
  t.deepEqual(
    problems({ available_dice: ['d6'], sizes: { D6: 1 } }).map((d) => d.path),
    ['manifest.sizes.D6'],
  );
});

test("values hold one face per side of the die's shape: numbers, strings or {src}", (t) => {
  t.deepEqual(
    problems({ available_dice: ['d6'], values: { d6: [1, 2, 3] } }).map((d) => d.path),
    ['manifest.values.d6'],
  );
  t.deepEqual(problems({ available_dice: [{ id: 'df', type: 'd6' }], values: { df: [-1, -1, 0, 0, '+', { src: 'plus.png' }] } }, { 'plus.png': 'png' }), []);
  t.deepEqual(paths({ values: { d6: [1, true, null, 4, 5, 6] } }).sort(), ['manifest.values.d6[1]', 'manifest.values.d6[2]']);
  t.deepEqual(paths({ values: { d6: [{ text: 'x' }, 2, 3, 4, 5, 6] } }), ['manifest.values.d6[0].src']);
  t.deepEqual(paths({ values: { d6: 'one' } }), ['manifest.values.d6']);
});

test('sizes are positive numbers; physics has inertia and weight of numbers', (t) => {
  t.deepEqual(paths({ sizes: { d6: 0, d8: -1, d4: '1' } }).sort(), ['manifest.sizes.d4', 'manifest.sizes.d6', 'manifest.sizes.d8']);
  t.deepEqual(paths({ physics: { inertia: { d6: 'x' }, weight: 3 } }).sort(), ['manifest.physics.inertia.d6', 'manifest.physics.weight']);
  t.deepEqual(paths({ physics: { inertia: { d6: 2 }, weight: { d6: 0.5 } } }), []);
});

test('sounds: the three events, with the value forms each takes', (t) => {
  const ok = [
    { on: 'die.collide', src: 'a.wav' },
    { on: 'die.value', src: 'a.wav', value: 20 },
    { on: 'die.value', src: 'a.wav', value: 'crit' },
    { on: 'roll.loading', src: 'a.mp3', value: 12 },
    { on: 'roll.loading', src: 'a.mp3', value: '>=15' },
    { on: 'roll.loading', src: 'a.mp3', value: '12' },
    // hand-size comparisons as dddice's editor writes them (client/loadingSound.ts)
    ...['=2', '==2', '>=3', '<2', '>3', '<=2', '>= 3', ' = 1 '].map((value) => ({ on: 'roll.loading', src: 'a.mp3', value })),
    { on: 'die.collide', src: { d6: 'a.wav' }, volume: 0.5 },
  ];
  t.deepEqual(problems({ available_dice: ['d6'], sounds: ok }, { 'a.wav': 'wav', 'a.mp3': 'mp3' }), []);
  t.deepEqual(
    paths({
      sounds: [
        { on: 'die.explode', src: 'a.wav' },
        { on: 'roll.loading', src: 'a.wav', value: '=>3' },
        { on: 'roll.loading', src: 'a.wav', value: true },
        { on: 'die.value', src: 'a.wav', value: [1] },
        { src: 'a.wav' },
        { on: 'die.collide' },
      ],
    }).sort(),
    [
      'manifest.sounds[0].on',
      'manifest.sounds[1].value',
      'manifest.sounds[2].value',
      'manifest.sounds[3].value',
      'manifest.sounds[4].on',
      'manifest.sounds[5].src',
    ],
  );
  const junk = ['', '>=', '=', '<<2', '!=2', '~2', '2..5', 'three', '>=3 dice', '3,5', '>=0x3', null, {}, [3]];
  for (const value of junk) t.deepEqual(paths({ sounds: [{ on: 'roll.loading', src: 'a.wav', value }] }), ['manifest.sounds[0].value'], JSON.stringify(value));
});

test('roll.loading values: each form normalised, and which hand sizes it plays for', (t) => {
  t.deepEqual(loadingCondition(2), { op: '==', count: 2 });
  t.deepEqual(loadingCondition('2'), { op: '==', count: 2 });
  t.deepEqual(loadingCondition('=2'), { op: '==', count: 2 });
  t.deepEqual(loadingCondition('==2'), { op: '==', count: 2 });
  t.deepEqual(loadingCondition('>= 3'), { op: '>=', count: 3 });
  t.deepEqual(loadingCondition('<2'), { op: '<', count: 2 });
  t.is(loadingCondition('=>3'), null);
  t.is(loadingCondition(Number.NaN), null);
  const plays = (value: unknown) => [1, 2, 3, 4].filter((n) => loadingSoundPlays(value, n));
  t.deepEqual(plays('=2'), [2]);
  t.deepEqual(plays('==2'), [2]);
  t.deepEqual(plays(2), [2]);
  t.deepEqual(plays('>=3'), [3, 4]);
  t.deepEqual(plays('>3'), [4]);
  t.deepEqual(plays('<2'), [1]);
  t.deepEqual(plays('<=2'), [1, 2]);
  t.deepEqual(plays(undefined), [1, 2, 3, 4], 'no value: every hand');
  t.deepEqual(plays('junk'), []);
});

test('uniforms: f, color, vec3 and vec4, each with values of its form', (t) => {
  const ok = {
    roughness: { type: 'f', value: 0.5, min: 0, max: 1 },
    speed: { type: 'f', value: 3 },
    tint: { type: 'color', value: '#ff8800' },
    glow: { type: 'color', value: [0.2, 0.1, 1.5] },
    rim: { type: 'color', value: { r: 1, g: 0.5, b: 0 } },
    offset: { type: 'vec3', value: [0, 1, 2] },
    axis: { type: 'vec3', value: { x: 0, y: 1, z: 0 } },
    rect: { type: 'vec4', value: [0, 0, 1, 1] },
    quat: { type: 'vec4', value: { x: 0, y: 0, z: 0, w: 1 } },
  };
  t.deepEqual(problems({ uniforms: ok }), []);
  const bad = {
    a: { type: 'f', value: 'x' },
    b: { type: 'color', value: 'orange' },
    c: { type: 'color', value: [1, 2] },
    d: { type: 'vec3', value: [1, 2, 3, 4] },
    e: { type: 'vec4', value: { x: 1, y: 2, z: 3 } },
    f: { type: 'mat4', value: [] },
    g: { type: 'color', value: '#fff', min: 0 },
    h: { type: 'f' },
  };
  t.deepEqual(paths({ uniforms: bad }).sort(), [
    'manifest.uniforms.a.value',
    'manifest.uniforms.b.value',
    'manifest.uniforms.c.value',
    'manifest.uniforms.d.value',
    'manifest.uniforms.e.value.w',
    'manifest.uniforms.f.type',
    'manifest.uniforms.g.min',
    'manifest.uniforms.h.value',
  ]);
  t.deepEqual(paths({ uniforms: { '1bad': { type: 'f', value: 1 } } }), ['manifest.uniforms.1bad']);
  t.deepEqual(
    problems({ uniforms: { r: { type: 'f', value: 2, min: 0, max: 1 } } }).map((d) => d.path),
    ['manifest.uniforms.r.value'],
  );
  t.deepEqual(
    problems({ uniforms: { r: { type: 'f', value: 0.5, min: 1, max: 0 } } }).map((d) => d.path),
    ['manifest.uniforms.r.min'],
  );
});

test('file names in the manifest are plain names, never paths', (t) => {
  t.deepEqual(paths({ meshes: { d6: '../d6.fbx' } }), ['manifest.meshes.d6']);
  t.deepEqual(paths({ meshes: { d6: 'dir/d6.fbx' } }), ['manifest.meshes.d6']);
  t.deepEqual(paths({ textures: [{ binding: 'map', src: '/etc/passwd' }] }), ['manifest.textures[0].src']);
  t.deepEqual(paths({ textures: [{ binding: 'map', src: { d6: 'C:\\x.png' } }] }), ['manifest.textures[0].src.d6']);
});

test('every referenced file must be uploaded, fit its use, and every upload must be referenced', (t) => {
  const m = {
    available_dice: ['d6'],
    meshes: { d6: 'd6.fbx' },
    textures: [
      { binding: 'map', src: 'wood.png' },
      { binding: 'normalMap', src: 'd6.fbx' },
    ],
    sounds: [{ on: 'die.collide', src: 'hit.png' }],
    values: { d6: [1, 2, 3, 4, 5, { src: 'six.jpg' }] },
  };
  const got = problems(m, { 'd6.fbx': 'fbx', 'hit.png': 'png', 'six.jpg': 'jpeg', 'extra.wav': 'wav' });
  t.deepEqual(got.map((d) => d.path).sort(), ['assets[3]', 'manifest.sounds[0].src', 'manifest.textures[0].src', 'manifest.textures[1].src']);
  t.regex(got.find((d) => d.path === 'assets[3]')!.message, /extra\.wav.*not referenced/);
  t.regex(got.find((d) => d.path === 'manifest.textures[0].src')!.message, /not among the uploaded assets/);
});

test('a file whose content does not fit its use is refused even when its name would', (t) => {
  const got = problems({ meshes: { d6: 'd6.fbx' } }, { 'd6.fbx': 'png' });
  t.deepEqual(
    got.map((d) => d.path),
    ['manifest.meshes.d6'],
  );
});

test('references are collected from every place a file can be named', (t) => {
  const m = resolveManifest(
    parse({
      available_dice: ['d6', 'd8'],
      meshes: { d6: 'a.fbx' },
      textures: [{ binding: 'map', src: { d6: 'b.png', d8: 'b.png' } }],
      sounds: [{ on: 'die.collide', src: 'c.wav' }],
      values: { d8: [1, 2, 3, 4, 5, 6, 7, { src: 'd.webp' }] },
    }).manifest!,
    null,
  ).manifest;
  t.deepEqual(
    fileReferences(m).map((r) => r.path),
    ['meshes.d6', 'textures[0].src.d6', 'textures[0].src.d8', 'sounds[0].src', 'values.d8[7].src'],
  );
  t.deepEqual(assetNames(m), ['a.fbx', 'b.png', 'c.wav', 'd.webp']);
});

test('unknown top-level keys are ignored, not stored', (t) => {
  const parsed = parse({ colour_scheme: 'dark' });
  t.deepEqual(parsed.details, []);
  t.false('colour_scheme' in resolveManifest(parsed.manifest!, null).manifest);
});

test('extend: keys left out come from the base, given keys win, the label follows the new name', (t) => {
  const baseManifest: StoredManifest = {
    ...resolveManifest(
      parse({ available_dice: ['d6'], meshes: { d6: 'a.fbx' }, sizes: { d6: 2 }, label: { color: '#000000', background_color: '#ffffff' } }).manifest!,
      null,
    ).manifest,
  };
  const input = parse({ name: 'Child', extend: 'parent', sizes: { d6: 3 } }).manifest as ManifestInput;
  const { manifest, inherited } = resolveManifest(input, baseManifest);
  t.deepEqual(manifest.available_dice, ['d6']);
  t.deepEqual(manifest.meshes, { d6: 'a.fbx' });
  t.deepEqual(manifest.sizes, { d6: 3 });
  t.is(manifest.extend, 'parent');
  t.deepEqual(manifest.label, resolveManifest(parse({ name: 'Child' }).manifest!, null).manifest.label);
  t.deepEqual(inherited.sort(), ['available_dice', 'meshes', 'physics', 'sounds', 'textures', 'uniforms', 'values']);
  // the base is not changed by what is done with the result
  (manifest.meshes as Record<string, string>).d6 = 'changed.fbx';
  t.is(baseManifest.meshes.d6, 'a.fbx');
});

test('problems in inherited keys say where they come from', (t) => {
  const baseManifest = resolveManifest(parse({ available_dice: ['d6', 'd8'], sizes: { d8: 2 } }).manifest!, null).manifest;
  const { manifest, inherited } = resolveManifest(parse({ extend: 'parent', available_dice: ['d6'] }).manifest!, baseManifest);
  const got = crossCheck(manifest, { available: new Map(), uploaded: [], inherited, base: 'parent' });
  t.deepEqual(
    got.map((d) => d.path),
    ['manifest.sizes.d8'],
  );
  t.regex(got[0]!.message, /inherited from "parent"/);
});

test("a manifest with shape problems still reports its valid parts' cross-reference problems", (t) => {
  const parsed = parse({ version: 'nope', meshes: { d7: 'x.fbx' } });
  t.is(parsed.manifest, null);
  t.deepEqual(
    parsed.details.map((d) => d.path),
    ['manifest.version'],
  );
  t.truthy(parsed.partial);
  t.true(parsed.partial!.badKeys.has('version'));
  t.is(parsed.partial!.input.meshes?.d7, 'x.fbx');
});
