import test from 'ava';
import { useServer } from '../helpers/server';
import { png } from '../fixtures/assets';
import { glbPyramid, gltfPyramid } from '../fixtures/gltf';
import { fileNameOf, manifest, postTheme, type FormFile } from '../fixtures/themes';

/**
 * Meshes as glTF 2.0 (docs/api/themes.md): a `.glb` (magic `glTF`) and a self-contained `.gltf` (JSON,
 * buffers as data: URIs) are accepted beside `.fbx`; a model that needs another file, a broken
 * container, a compression the board cannot decode, or a model in a place for images are refused.
 * The models are made by three's GLTFExporter (test/fixtures/gltf.ts).
 */
const ctx = useServer(test);

const gltfWith = async (change: (json: any) => void) => {
  const json = JSON.parse((await gltfPyramid()).toString());
  change(json);
  return Buffer.from(JSON.stringify(json));
};
/** A GLB header (magic, version 2, length 24) and a lone BIN chunk of 4 bytes: a container with no JSON. */
const binOnlyGlb = () => {
  const data = Buffer.alloc(24);
  data.write('glTF', 0, 'ascii');
  data.writeUInt32LE(2, 4);
  data.writeUInt32LE(24, 8);
  data.writeUInt32LE(4, 12);
  data.write('BIN\0', 16, 'ascii');
  return data;
};
const upload = async (files: FormFile[], fields: Record<string, unknown> = {}) => {
  const { api } = await ctx.server.newUser();
  return postTheme(
    api,
    manifest({ available_dice: ['d6', 'd8'], meshes: Object.fromEntries(files.map((f, i) => [i ? 'd8' : 'd6', f.name])), ...fields }),
    files,
  );
};

test('a .glb and a self-contained .gltf are accepted as meshes and served without a key as glTF', async (t) => {
  const { api } = await ctx.server.newUser();
  const files = [
    { name: 'd6.glb', data: await glbPyramid() },
    { name: 'd8 model.gltf', data: await gltfPyramid() },
  ];
  const m = manifest({ available_dice: ['d6', 'd8'], meshes: { d6: 'd6.glb', d8: 'd8 model.gltf' } });
  const created = await postTheme(api, m, files);
  t.is(created.status, 201, created.text);
  const theme = (await api.get(`/theme/${m.id}`)).body.data;
  const types: Record<string, string> = { 'd6.glb': 'model/gltf-binary', 'd8 model.gltf': 'model/gltf+json' };
  for (const die of ['d6', 'd8']) {
    const url = theme.meshes[die] as string;
    const file = files.find((f) => f.name === fileNameOf(url))!;
    t.truthy(file, `meshes.${die} names its file`);
    const res = await fetch(url);
    t.is(res.status, 200);
    t.is(res.headers.get('content-type'), types[file.name]);
    t.is(res.headers.get('content-security-policy'), "default-src 'none'; sandbox");
    t.true(Buffer.from(await res.arrayBuffer()).equals(file.data));
  }
});

test('a glTF model that references another file, is broken, or needs a decoder the board lacks is refused with a reason', async (t) => {
  const glb = await glbPyramid();
  const cases: [string, FormFile, RegExp][] = [
    [
      'external buffer',
      {
        name: 'd6.gltf',
        data: await gltfWith((j) => {
          j.buffers[0].uri = 'pyramid.bin';
        }),
      },
      /buffers\[0\] references another file.*self-contained/,
    ],
    [
      'external image',
      {
        name: 'd6.gltf',
        data: await gltfWith((j) => {
          j.images = [{ uri: 'https://example.com/skin.png' }];
        }),
      },
      /images\[0\] references another file/,
    ],
    [
      'buffer without uri in a .gltf',
      {
        name: 'd6.gltf',
        data: await gltfWith((j) => {
          delete j.buffers[0].uri;
        }),
      },
      /no uri/,
    ],
    [
      'glTF 1.0',
      {
        name: 'd6.gltf',
        data: await gltfWith((j) => {
          j.asset.version = '1.0';
        }),
      },
      /not glTF 2\.0/,
    ],
    [
      'Draco',
      {
        name: 'd6.gltf',
        data: await gltfWith((j) => {
          j.extensionsRequired = ['KHR_draco_mesh_compression'];
        }),
      },
      /requires KHR_draco_mesh_compression/,
    ],
    ['cut short', { name: 'd6.glb', data: glb.subarray(0, glb.length - 40) }, /length field/],
    ['no JSON chunk', { name: 'd6.glb', data: binOnlyGlb() }, /JSON chunk/],
  ];
  for (const [what, file, reason] of cases) {
    const res = await upload([file]);
    t.is(res.status, 400, what);
    t.is(res.body.data.code, 'validation_error', what);
    t.deepEqual(
      res.body.data.details.map((d: { path: string }) => d.path),
      ['assets[0]'],
      what,
    );
    t.regex(res.body.data.details[0].message, reason, what);
  }
});

test('glTF is sniffed by content: a .glb named .fbx, JSON that is not glTF, a model used as a texture are refused', async (t) => {
  const misnamed = await upload([{ name: 'd6.fbx', data: await glbPyramid() }]);
  t.is(misnamed.status, 400);
  t.regex(misnamed.body.data.details[0].message, /contains glb data/);
  const notGltf = await upload([{ name: 'd6.gltf', data: Buffer.from('{"hello":"world"}') }]);
  t.is(notGltf.status, 400);
  t.regex(notGltf.body.data.details[0].message, /not an accepted file type \(fbx, glb, gltf/);
  const { api } = await ctx.server.newUser();
  const asTexture = await postTheme(api, manifest({ textures: [{ binding: 'map', src: 'skin.glb' }] }), [{ name: 'skin.glb', data: await glbPyramid() }]);
  t.is(asTexture.status, 400);
  t.deepEqual(
    asTexture.body.data.details.map((d: { path: string }) => d.path),
    ['manifest.textures[0].src'],
  );
  // A PNG is still a PNG: the glTF checks only read models.
  const image = await postTheme(api, manifest({ textures: [{ binding: 'map', src: 'a.png' }] }), [{ name: 'a.png', data: png() }]);
  t.is(image.status, 201);
});
