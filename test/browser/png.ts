/** A minimal PNG reader (8-bit RGB/RGBA, not interlaced: what Chromium's screenshots are) for pixel measurements. */
import { readFileSync } from 'node:fs';
import { inflateSync } from 'node:zlib';

export class PNG {
  private constructor(
    readonly width: number,
    readonly height: number,
    private readonly channels: number,
    private readonly data: Buffer,
  ) {}

  static read(file: string): PNG {
    const buf = readFileSync(file);
    let offset = 8;
    let width = 0,
      height = 0,
      colorType = 0;
    const idat: Buffer[] = [];
    while (offset < buf.length) {
      const length = buf.readUInt32BE(offset);
      const type = buf.toString('ascii', offset + 4, offset + 8);
      const body = buf.subarray(offset + 8, offset + 8 + length);
      if (type === 'IHDR') {
        width = body.readUInt32BE(0);
        height = body.readUInt32BE(4);
        if (body[8] !== 8 || body[12] !== 0) throw new Error('only 8-bit, non-interlaced PNGs');
        colorType = body[9]!;
      } else if (type === 'IDAT') idat.push(body);
      offset += 12 + length;
    }
    const channels = colorType === 6 ? 4 : colorType === 2 ? 3 : 0;
    if (!channels) throw new Error(`PNG colour type ${colorType} not read`);
    const raw = inflateSync(Buffer.concat(idat));
    const stride = width * channels;
    const out = Buffer.alloc(stride * height);
    for (let y = 0; y < height; y++) {
      const filter = raw[y * (stride + 1)]!;
      const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
      for (let x = 0; x < stride; x++) {
        const a = x >= channels ? out[y * stride + x - channels]! : 0;
        const b = y > 0 ? out[(y - 1) * stride + x]! : 0;
        const c = x >= channels && y > 0 ? out[(y - 1) * stride + x - channels]! : 0;
        let v = line[x]!;
        if (filter === 1) v += a;
        else if (filter === 2) v += b;
        else if (filter === 3) v += (a + b) >> 1;
        else if (filter === 4) {
          const p = a + b - c,
            pa = Math.abs(p - a),
            pb = Math.abs(p - b),
            pc = Math.abs(p - c);
          v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
        }
        out[y * stride + x] = v & 255;
      }
    }
    return new PNG(width, height, channels, out);
  }

  rgb(x: number, y: number): [number, number, number] {
    const i = (Math.floor(y) * this.width + Math.floor(x)) * this.channels;
    return [this.data[i]!, this.data[i + 1]!, this.data[i + 2]!];
  }
}
