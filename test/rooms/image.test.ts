import test from 'ava';
import { sniffImageType } from '../../src/rooms/image';

const bytes = (...parts: (number[] | string)[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));

test('the four accepted image types are recognised by their magic bytes', (t) => {
  t.is(sniffImageType(bytes([0x89], 'PNG\r\n\x1a\n', 'rest')), 'image/png');
  t.is(sniffImageType(bytes([0xff, 0xd8, 0xff, 0xe0], 'JFIF')), 'image/jpeg');
  t.is(sniffImageType(bytes('GIF89a', [1, 0, 1, 0])), 'image/gif');
  t.is(sniffImageType(bytes('GIF87a', [1, 0, 1, 0])), 'image/gif');
  t.is(sniffImageType(bytes('RIFF', [0x10, 0, 0, 0], 'WEBPVP8 ')), 'image/webp');
});

test('anything else is refused, whatever it claims', (t) => {
  t.is(sniffImageType(Buffer.alloc(0)), null);
  t.is(sniffImageType(bytes('<svg xmlns="http://www.w3.org/2000/svg"/>')), null);
  t.is(sniffImageType(bytes('<html><script>alert(1)</script>')), null);
  t.is(sniffImageType(bytes('RIFF', [0x10, 0, 0, 0], 'WAVEfmt ')), null, 'a RIFF that is not WEBP');
  t.is(sniffImageType(bytes([0x89], 'PNG')), null, 'a truncated signature');
  t.is(sniffImageType(bytes('GIF88a')), null);
});
