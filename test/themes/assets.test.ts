import test from 'ava';
import { checkAssets } from '../../src/themes/manifest/assets';
import { fbx, html, jpeg, png, wav } from '../fixtures/assets';

test('accepted files carry their kind, media type, size and SHA-256', (t) => {
  const { assets, details, refused } = checkAssets([
    { name: 'a.png', data: png() },
    { name: 'Dé 6 (v2).fbx', data: fbx() },
  ]);
  t.deepEqual(details, []);
  t.deepEqual(refused, []);
  t.deepEqual(
    assets.map((a) => [a.name, a.index, a.kind, a.contentType]),
    [
      ['a.png', 0, 'png', 'image/png'],
      ['Dé 6 (v2).fbx', 1, 'fbx', 'application/octet-stream'],
    ],
  );
  t.is(assets[0]!.size, png().length);
  t.regex(assets[0]!.sha256, /^[0-9a-f]{64}$/);
});

test('each bad file is one problem at its position; refused names are remembered', (t) => {
  const { assets, details, refused } = checkAssets([
    { name: '../up.png', data: png() },
    { name: 'ok.wav', data: wav() },
    { name: 'ok.wav', data: wav() },
    { name: 'page.png', data: html() },
    { name: 'photo.png', data: jpeg() },
    { name: 'empty.png', data: Buffer.alloc(0) },
    { name: '.hidden.png', data: png() },
    { name: 'a\u0000b.png', data: png() },
  ]);
  t.deepEqual(
    assets.map((a) => a.name),
    ['ok.wav'],
  );
  t.deepEqual(
    details.map((d) => d.path),
    ['assets[0]', 'assets[2]', 'assets[3]', 'assets[4]', 'assets[5]', 'assets[6]', 'assets[7]'],
  );
  t.deepEqual(refused, ['page.png', 'photo.png', 'empty.png']);
});
