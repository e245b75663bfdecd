import test from 'ava';
import { fbx, fbxAscii, html, jpeg, ktx2, mp3, mp3Frame, png, wav, webp } from '../fixtures/assets';
import { kindFromName, sniff } from '../../src/themes/manifest/sniff';

test('every accepted kind is recognised by its content', (t) => {
  t.is(sniff(png()), 'png');
  t.is(sniff(jpeg()), 'jpeg');
  t.is(sniff(webp()), 'webp');
  t.is(sniff(ktx2()), 'ktx2');
  t.is(sniff(wav()), 'wav');
  t.is(sniff(mp3()), 'mp3');
  t.is(sniff(mp3Frame()), 'mp3');
  t.is(sniff(fbx()), 'fbx');
  t.is(sniff(fbxAscii()), 'fbx');
});

test('other content is refused, whatever it is called', (t) => {
  t.is(sniff(html()), null);
  t.is(sniff(Buffer.alloc(0)), null);
  t.is(sniff(Buffer.from('GIF89a')), null);
  t.is(sniff(Buffer.from('RIFF\0\0\0\0AVI LIST')), null);
  // AAC in ADTS frames has layer bits 00: not MPEG audio layer I-III
  t.is(sniff(Buffer.from([0xff, 0xf1, 0x50, 0x80, 0, 0])), null);
  t.is(sniff(Buffer.from([0xff, 0xd8])), null);
});

test('names claim kinds by extension, case-insensitively', (t) => {
  t.is(kindFromName('a.PNG'), 'png');
  t.is(kindFromName('a.jpg'), 'jpeg');
  t.is(kindFromName('a.jpeg'), 'jpeg');
  t.is(kindFromName('die.fbx'), 'fbx');
  t.is(kindFromName('x.tar.wav'), 'wav');
  t.is(kindFromName('noext'), null);
  t.is(kindFromName('a.gif'), null);
});

test('an extension named like a built-in object property claims no kind', (t) => {
  for (const ext of ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty']) t.is(kindFromName(`die.${ext}`), null, ext);
});
