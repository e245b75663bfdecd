/**
 * What an FBX model will make three's FBXLoader allocate, read from the file's node tree without
 * building it. Binary FBX arrays declare their length and may be deflated: a declared length over the
 * budget is refused unread, and a deflated array is inflated at most to what it declares. ASCII FBX
 * arrays are counted as written. Polygons are counted (the loader triangulates them into vertex
 * buffers) and their size bounded (large ones go through earcut), nodes and nesting too (the loader
 * recurses per level).
 */
import { inflateAtMost } from './inflate';
import { ASSET_LIMITS, bytesText } from './limits';

const BINARY_MAGIC = 'Kaydara FBX Binary  \0';
const ARRAY_BYTES: Readonly<Record<string, number>> = { b: 1, c: 1, i: 4, f: 4, d: 8, l: 8 };
const SCALAR_BYTES: Readonly<Record<string, number>> = { C: 1, Y: 2, I: 4, F: 4, D: 8, L: 8 };

export interface FbxCost {
  vertices: number;
  dataBytes: number;
}

class Refused extends Error {}

/** Running totals over the node tree, the same for both encodings. */
class Tally {
  nodes = 0;
  dataBytes = 0;
  /** geometry id -> triangle corners its polygons make; shapes (morph targets) apart */
  private geometries = new Map<string, number>();
  private shapes = 0;
  private models = new Set<string>();
  private links: [string, string][] = [];
  private current: { id: string; shape: boolean } | null = null;

  node(name: string, depth: number, props: unknown[]) {
    if (++this.nodes > ASSET_LIMITS.fbxNodes) throw new Refused(`it has over ${ASSET_LIMITS.fbxNodes.toLocaleString('en')} nodes`);
    if (depth > ASSET_LIMITS.fbxDepth) throw new Refused(`its nodes nest over ${ASSET_LIMITS.fbxDepth} deep`);
    // Objects (depth 1) > Geometry, Model (depth 2) > PolygonVertexIndex (depth 3).
    if (depth === 2 && name === 'Geometry') {
      const shape = props[2] === 'Shape';
      this.current = { id: String(props[0]), shape };
      if (shape) this.shapes++;
      else this.geometries.set(this.current.id, 0);
    } else if (depth <= 2) this.current = null;
    if (depth === 2 && name === 'Model') this.models.add(String(props[0]));
    if (name === 'C' && props.length >= 3) this.links.push([String(props[1]), String(props[2])]);
  }

  data(bytes: number) {
    this.dataBytes += bytes;
    if (this.dataBytes > ASSET_LIMITS.modelDataBytes)
      throw new Refused(`its arrays decode to over ${bytesText(ASSET_LIMITS.modelDataBytes)}, the most a model may have`);
  }

  /** A geometry's PolygonVertexIndex: polygons end at a negative index. */
  polygons(name: string, depth: number, values: ArrayLike<number>) {
    if (name !== 'PolygonVertexIndex' || depth !== 3 || !this.current || this.current.shape) return;
    let corners = 0;
    let triangleCorners = 0;
    for (let i = 0; i < values.length; i++) {
      corners++;
      if (values[i]! < 0) {
        if (corners > ASSET_LIMITS.fbxPolygonCorners)
          throw new Refused(`a polygon has ${corners} corners, over the ${ASSET_LIMITS.fbxPolygonCorners} the board triangulates`);
        triangleCorners += Math.max(0, corners - 2) * 3;
        corners = 0;
      }
    }
    this.geometries.set(this.current.id, (this.geometries.get(this.current.id) ?? 0) + triangleCorners);
  }

  cost(): FbxCost {
    // Each model drawing a geometry builds or draws its vertices; each morph target copies one geometry's.
    let vertices = 0;
    for (const [child, parent] of this.links) if (this.models.has(parent)) vertices += this.geometries.get(child) ?? 0;
    vertices += this.shapes * Math.max(0, ...this.geometries.values());
    if (vertices > ASSET_LIMITS.modelVertices)
      throw new Refused(`it draws ${vertices.toLocaleString('en')} vertices, over the ${ASSET_LIMITS.modelVertices.toLocaleString('en')} a model may have`);
    return { vertices, dataBytes: this.dataBytes };
  }
}

/** A little-endian reader that refuses to read past the end. */
class Reader {
  private view: DataView;
  offset = 0;
  constructor(readonly data: Uint8Array) {
    this.view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  }
  need(bytes: number) {
    if (this.offset + bytes > this.data.length) throw new Refused('it is cut short (a record runs past the end of the file)');
  }
  u8() {
    this.need(1);
    return this.data[this.offset++]!;
  }
  u32() {
    this.need(4);
    const v = this.view.getUint32(this.offset, true);
    this.offset += 4;
    return v;
  }
  /** A 64-bit size as a safe number (sizes here are below the file's length anyway). */
  u64() {
    const low = this.u32();
    const high = this.u32();
    return high * 2 ** 32 + low;
  }
  bytes(n: number) {
    this.need(n);
    const out = this.data.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }
  string(n: number) {
    return new TextDecoder().decode(this.bytes(n));
  }
  skip(n: number) {
    this.need(n);
    this.offset += n;
  }
}

function int32s(bytes: Uint8Array): Int32Array {
  // A copy: the array may not be 4-byte aligned inside the file.
  return new Int32Array(bytes.slice(0, bytes.length - (bytes.length % 4)).buffer);
}

function binaryProperty(r: Reader, node: string, depth: number, tally: Tally): unknown {
  const type = String.fromCharCode(r.u8());
  if (SCALAR_BYTES[type]) {
    const at = r.offset;
    r.skip(SCALAR_BYTES[type]!);
    // Ids of Geometry and Model records, and the ends of connections, are 64-bit integers.
    return type === 'L' ? new DataView(r.data.buffer, r.data.byteOffset + at, 8).getBigInt64(0, true).toString() : null;
  }
  if (type === 'S' || type === 'R') {
    const length = r.u32();
    return type === 'S' ? r.string(length).split('\0')[0] : r.skip(length);
  }
  const element = ARRAY_BYTES[type];
  if (!element) throw new Refused(`it has a property of unknown type ${JSON.stringify(type)}`);
  const length = r.u32();
  const encoding = r.u32();
  const stored = r.u32();
  const declared = length * element;
  tally.data(declared);
  let raw: Uint8Array;
  if (encoding === 0) raw = r.bytes(declared);
  else {
    const inflated = inflateAtMost(r.bytes(stored), declared);
    if (inflated === 'over') throw new Refused(`an array of ${node} inflates to more than the ${bytesText(declared)} it declares`);
    if (inflated === 'broken') throw new Refused(`an array of ${node} is not a zlib stream`);
    raw = inflated;
  }
  if (type === 'i') tally.polygons(node, depth, int32s(raw));
  return null;
}

function binaryNode(r: Reader, version: number, depth: number, tally: Tally): void {
  const wide = version >= 7500;
  const end = wide ? r.u64() : r.u32();
  const properties = wide ? r.u64() : r.u32();
  if (wide) r.u64();
  else r.u32();
  const name = r.string(r.u8());
  if (end === 0) return;
  if (end <= r.offset || end > r.data.length) throw new Refused('a record ends outside the file');
  const props: unknown[] = [];
  for (let i = 0; i < properties; i++) props.push(binaryProperty(r, name, depth, tally));
  tally.node(name, depth, props);
  while (r.offset < end) binaryNode(r, version, depth + 1, tally);
  if (r.offset !== end) throw new Refused('a record is longer than it says');
}

function binaryFbx(data: Uint8Array, tally: Tally) {
  const r = new Reader(data);
  r.skip(23);
  const version = r.u32();
  if (version < 6400) throw new Refused(`it is FBX version ${version}; the board reads 6400 and later`);
  // The loader's own end test: the footer takes the last 160 bytes, plus alignment.
  const atEnd = () => (data.length % 16 === 0 ? ((r.offset + 176) & ~0xf) >= data.length : r.offset + 176 >= data.length);
  while (!atEnd()) binaryNode(r, version, 1, tally);
}

/** Numbers of an ASCII array: the `a:` line and the lines that continue it. */
function asciiNumbers(text: string): number[] {
  return text
    .split(',')
    .map((s) => Number(s.trim()))
    .filter((n) => !Number.isNaN(n));
}

/** Values of an ASCII property line: `1000, "Geometry::x", "Mesh"`. */
function asciiProps(rest: string): unknown[] {
  return rest.split(',').map((s) =>
    s
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .replace(/\s*\{$/, ''),
  );
}

function asciiFbx(text: string, tally: Tally) {
  const path: string[] = [];
  let array: { node: string; depth: number; text: string[] } | null = null;
  const closeArray = () => {
    if (!array) return;
    const values = asciiNumbers(array.text.join(','));
    tally.data(values.length * 8);
    tally.polygons(array.node, array.depth, values);
    array = null;
  };
  for (const raw of text.split(/[\r\n]+/)) {
    const line = raw.trim();
    if (!line || line.startsWith(';')) continue;
    if (line === '}') {
      closeArray();
      path.pop();
      continue;
    }
    const match = /^([\w|]+):(.*)$/.exec(line);
    if (!match) {
      // A continued array line.
      array?.text.push(line);
      continue;
    }
    const [, name, rest] = match as unknown as [string, string, string];
    if (name === 'a' && path.length) {
      array = { node: path[path.length - 1]!, depth: path.length, text: [rest] };
      continue;
    }
    closeArray();
    tally.node(name, path.length + 1, asciiProps(rest));
    if (rest.trimEnd().endsWith('{')) path.push(name);
    // FBX 6 writes arrays on the property's own line, continued on the next ones.
    else if (/^\s*-?[\d.]/.test(rest) && rest.includes(',')) array = { node: name, depth: path.length + 1, text: [rest] };
  }
  closeArray();
}

/** What the FBX decodes to, or why it is refused. */
export function fbxCost(data: Uint8Array): FbxCost | string {
  const tally = new Tally();
  try {
    const head = new TextDecoder('latin1').decode(data.subarray(0, BINARY_MAGIC.length));
    if (head === BINARY_MAGIC) binaryFbx(data, tally);
    else asciiFbx(new TextDecoder().decode(data), tally);
    return tally.cost();
  } catch (err) {
    if (err instanceof Refused) return err.message;
    throw err;
  }
}
