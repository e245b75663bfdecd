import test from 'ava';
import { useServer } from '../helpers/server';
import { bigPng, fbxBomb, fbxLiar, gltfBomb } from '../fixtures/bombs';
import { gltfPyramid } from '../fixtures/gltf';
import { fbxPyramid } from '../fixtures/fbx';
import { manifest, postTheme, type FormFile } from '../fixtures/themes';

/**
 * Files that are small but decode to a lot (docs/api/themes.md, "Asset limits"): a model's declared
 * vertex data, an image's pixels and an FBX's deflated arrays are bounded before anything decodes them.
 * Each is refused with a 400 naming the file, and the limits' edges are accepted.
 */
const ctx = useServer(test);

const publish = async (files: FormFile[], fields: Record<string, unknown>) => {
  const { api } = await ctx.server.newUser();
  return postTheme(api, manifest(fields), files);
};
const asMesh = (file: FormFile) => publish([file], { meshes: { d6: file.name } });
const asTexture = (file: FormFile) => publish([file], { textures: [{ binding: 'map', src: file.name }] });

function refused(
  t: {
    is: (a: unknown, b: unknown, m?: string) => void;
    regex: (s: string, r: RegExp, m?: string) => void;
    deepEqual: (a: unknown, b: unknown, m?: string) => void;
  },
  res: { status: number; body: any },
  name: string,
  reason: RegExp,
) {
  t.is(res.status, 400, JSON.stringify(res.body));
  t.is(res.body.type, 'error');
  t.is(res.body.data.code, 'validation_error');
  t.deepEqual(
    res.body.data.details.map((d: { path: string }) => d.path),
    ['assets[0]'],
  );
  t.regex(res.body.data.details[0].message, new RegExp(`"${name}"`), 'the message names the file');
  t.regex(res.body.data.details[0].message, reason);
}

test('the 210-byte glTF whose one accessor declares 100,000,000 vertices is refused, min and max or not', async (t) => {
  const bomb = gltfBomb();
  t.is(bomb.length, 210);
  refused(t, await asMesh({ name: 'bomb.gltf', data: bomb }), 'bomb.gltf', /accessors decode to 1\.1 GiB.*over the 32 MiB/);
  // With min and max the Khronos validator has nothing against it: the budget is what refuses it.
  const json = JSON.parse(bomb.toString());
  Object.assign(json.accessors[0], { min: [0, 0, 0], max: [0, 0, 0] });
  refused(t, await asMesh({ name: 'bomb.gltf', data: Buffer.from(JSON.stringify(json)) }), 'bomb.gltf', /over the 32 MiB/);
});

test('a glTF accessor must fit in its buffer view, and the Khronos validator refuses what it finds broken', async (t) => {
  const pyramid = JSON.parse((await gltfPyramid()).toString());
  const tooLong = structuredClone(pyramid);
  tooLong.accessors[0].count = 1_000_000;
  refused(
    t,
    await asMesh({ name: 'long.gltf', data: Buffer.from(JSON.stringify(tooLong)) }),
    'long.gltf',
    /accessors\[0\] declares 1,000,000 elements .* in a buffer view of/,
  );
  const dangling = structuredClone(pyramid);
  dangling.nodes[0].mesh = 7;
  refused(
    t,
    await asMesh({ name: 'dangling.gltf', data: Buffer.from(JSON.stringify(dangling)) }),
    'dangling.gltf',
    /glTF validator.*UNRESOLVED_REFERENCE at \/nodes\/0\/mesh/,
  );
});

test('an image is bounded by its pixels: 8192x8192 (10 KB, 256 MiB decoded) is refused, 4096x4096 is accepted', async (t) => {
  const big = bigPng(8192);
  t.true(big.length < 16 * 1024);
  refused(t, await asTexture({ name: 'huge.png', data: big }), 'huge.png', /8192x8192 pixels, over the 4096x4096/);
  const edge = await asTexture({ name: 'edge.png', data: bigPng(4096) });
  t.is(edge.status, 201, JSON.stringify(edge.body));
  // Inside a model too.
  const model = JSON.parse((await gltfPyramid()).toString());
  model.images = [{ uri: `data:image/png;base64,${big.toString('base64')}` }];
  refused(t, await asMesh({ name: 'skinned.gltf', data: Buffer.from(JSON.stringify(model)) }), 'skinned.gltf', /images\[0\]: it is 8192x8192/);
});

test('an FBX array is bounded by what it declares and inflated no further; huge polygons are refused', async (t) => {
  refused(t, await asMesh({ name: 'bomb.fbx', data: fbxBomb() }), 'bomb.fbx', /arrays decode to over 32 MiB/);
  refused(t, await asMesh({ name: 'liar.fbx', data: fbxLiar() }), 'liar.fbx', /inflates to more than the 24 bytes it declares/);
  const corners = Array.from({ length: 100 }, (_, i) => (i === 99 ? -100 : i));
  const polygon = fbxPyramid().replace(/PolygonVertexIndex: \*\d+ \{\n\t\t\ta: [^\n]*/, `PolygonVertexIndex: *100 {\n\t\t\ta: ${corners.join(',')}`);
  refused(t, await asMesh({ name: 'fan.fbx', data: Buffer.from(polygon) }), 'fan.fbx', /a polygon has 100 corners, over the 64/);
  t.is((await asMesh({ name: 'pyramid.fbx', data: Buffer.from(fbxPyramid()) })).status, 201);
});
