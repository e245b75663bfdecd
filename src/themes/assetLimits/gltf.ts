/**
 * What a glTF 2.0 model (`.glb` or self-contained `.gltf`) will make three's GLTFLoader allocate, read
 * from its JSON before the loader sees it. An accessor declares its element count; with no buffer view
 * the loader allocates `count` zeroed elements, so 210 bytes can ask for 1.2 GB. Each accessor must fit
 * in the bytes it points at, and everything the accessors and images decode to is summed and bounded.
 * The Khronos validator alone does not do this: it accepts that accessor once min and max are given.
 */
import { imageCost } from './images';
import { ASSET_LIMITS, bytesText } from './limits';

type Json = Record<string, unknown>;

const COMPONENT_BYTES: Readonly<Record<number, number>> = { 5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4 };
const COMPONENTS: Readonly<Record<string, number>> = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT2: 4, MAT3: 9, MAT4: 16 };
const GLB_MAGIC = 0x46546c67;
const CHUNK_JSON = 0x4e4f534a;
const CHUNK_BIN = 0x004e4942;

export interface GltfDocument {
  json: Json;
  /** the GLB's binary chunk (buffer 0 when it has no uri), if any */
  bin: Uint8Array | null;
}

const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);
const list = (json: Json, key: string): unknown[] => (Array.isArray(json[key]) ? (json[key] as unknown[]) : []);
const count = (v: unknown): number | null => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : null);

/** The JSON (and binary chunk) of a `.glb` or `.gltf`, or why it cannot be read. */
export function readGltf(data: Uint8Array): GltfDocument | string {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let text: Uint8Array = data;
  let bin: Uint8Array | null = null;
  if (data.length >= 12 && view.getUint32(0, true) === GLB_MAGIC) {
    if (data.length < 20 || view.getUint32(16, true) !== CHUNK_JSON) return 'its first chunk is not JSON';
    const jsonEnd = 20 + view.getUint32(12, true);
    if (jsonEnd > data.length) return 'its JSON chunk runs past the end of the file';
    text = data.subarray(20, jsonEnd);
    if (jsonEnd + 8 <= data.length && view.getUint32(jsonEnd + 4, true) === CHUNK_BIN) {
      const binEnd = jsonEnd + 8 + view.getUint32(jsonEnd, true);
      if (binEnd > data.length) return 'its binary chunk runs past the end of the file';
      bin = data.subarray(jsonEnd + 8, binEnd);
    }
  }
  try {
    const json = JSON.parse(new TextDecoder().decode(text).replace(/^\uFEFF/, '')) as unknown;
    return isObject(json) ? { json, bin } : 'its JSON is not an object';
  } catch {
    return 'its JSON cannot be parsed';
  }
}

/** The bytes of a `data:` URI (base64 or percent-encoded), or null when it is not one. */
export function dataUriBytes(uri: unknown): Uint8Array | null {
  if (typeof uri !== 'string' || !uri.startsWith('data:')) return null;
  const comma = uri.indexOf(',');
  if (comma < 0) return null;
  const payload = uri.slice(comma + 1);
  try {
    if (/;base64$/i.test(uri.slice(0, comma))) return Uint8Array.from(atob(payload), (c) => c.charCodeAt(0));
    return new TextEncoder().encode(decodeURIComponent(payload));
  } catch {
    return null;
  }
}

export interface GltfCost {
  vertices: number;
  /** accessors' decoded bytes */
  dataBytes: number;
  /** embedded images' decoded bytes */
  imageBytes: number;
}

/** What the model decodes to, or why it is refused (over a limit, or pointing outside its own bytes). */
export function gltfCost(doc: GltfDocument): GltfCost | string {
  const { json } = doc;
  const L = ASSET_LIMITS;
  for (const key of [
    'accessors',
    'bufferViews',
    'buffers',
    'nodes',
    'meshes',
    'materials',
    'textures',
    'animations',
    'skins',
    'scenes',
    'cameras',
    'samplers',
  ]) {
    if (list(json, key).length > L.gltfObjects) return `it has ${list(json, key).length} ${key}, over the ${L.gltfObjects} a model may have`;
  }
  // Buffers: the bytes each really has (the binary chunk, or its data: URI).
  const buffers = list(json, 'buffers').map((b, i) => {
    if (!isObject(b)) return null;
    const bytes = b.uri === undefined ? (i === 0 ? doc.bin : null) : dataUriBytes(b.uri);
    const declared = count(b.byteLength);
    return bytes && declared !== null && declared <= bytes.length ? bytes.subarray(0, declared) : null;
  });
  const badBuffer = buffers.findIndex((b) => b === null);
  if (badBuffer >= 0) return `buffers[${badBuffer}] declares more bytes than it has, or has none`;
  const views = list(json, 'bufferViews').map((v) => {
    if (!isObject(v)) return null;
    const buffer = typeof v.buffer === 'number' ? buffers[v.buffer] : undefined;
    const offset = count(v.byteOffset ?? 0);
    const length = count(v.byteLength);
    if (!buffer || offset === null || length === null || offset + length > buffer.length) return null;
    return { bytes: buffer.subarray(offset, offset + length), stride: count(v.byteStride ?? 0) ?? 0 };
  });
  const badView = views.findIndex((v) => v === null);
  if (badView >= 0) return `bufferViews[${badView}] lies outside its buffer`;

  let dataBytes = 0;
  const accessorCounts: number[] = [];
  for (const [i, a] of list(json, 'accessors').entries()) {
    const componentBytes = isObject(a) ? COMPONENT_BYTES[a.componentType as number] : undefined;
    const components = isObject(a) ? COMPONENTS[a.type as string] : undefined;
    const n = isObject(a) ? count(a.count) : null;
    if (!isObject(a) || !componentBytes || !components || n === null) return `accessors[${i}] has no valid componentType, type and count`;
    const element = componentBytes * components;
    dataBytes += n * element;
    // Past the budget, stop before doing any arithmetic on further counts (a count may be near 2^53).
    if (dataBytes > L.modelDataBytes)
      return `its accessors decode to ${bytesText(dataBytes)} or more (accessors[${i}] alone: ${n.toLocaleString('en')} elements), over the ${bytesText(L.modelDataBytes)} a model may have`;
    if (a.bufferView !== undefined) {
      const view = typeof a.bufferView === 'number' ? views[a.bufferView] : undefined;
      const offset = count(a.byteOffset ?? 0);
      if (!view || offset === null) return `accessors[${i}] points at no buffer view`;
      const needed = n === 0 ? 0 : offset + (view.stride || element) * (n - 1) + element;
      if (needed > view.bytes.length)
        return `accessors[${i}] declares ${n.toLocaleString('en')} elements (${bytesText(needed)}) in a buffer view of ${bytesText(view.bytes.length)}`;
    }
    if (isObject(a.sparse)) {
      // A sparse accessor is decoded into a full copy of its elements.
      const sparseCount = count(a.sparse.count);
      if (sparseCount === null || sparseCount > n) return `accessors[${i}].sparse.count is not between 0 and the accessor's count`;
      dataBytes += n * element;
    }
    accessorCounts.push(n);
  }
  if (dataBytes > L.modelDataBytes) return `its accessors decode to ${bytesText(dataBytes)}, over the ${bytesText(L.modelDataBytes)} a model may have`;

  // Vertices: each mesh's POSITION counts, once per node that draws it (times its GPU instances).
  const meshVertices: number[] = [];
  let primitives = 0;
  for (const mesh of list(json, 'meshes')) {
    let vertices = 0;
    for (const p of isObject(mesh) ? list(mesh, 'primitives') : []) {
      primitives++;
      const position = isObject(p) && isObject(p.attributes) ? p.attributes.POSITION : undefined;
      if (typeof position === 'number') vertices += accessorCounts[position] ?? 0;
    }
    meshVertices.push(vertices);
  }
  if (primitives > L.gltfObjects) return `it has ${primitives} mesh primitives, over the ${L.gltfObjects} a model may have`;
  let vertices = 0;
  for (const node of list(json, 'nodes')) {
    if (!isObject(node) || typeof node.mesh !== 'number') continue;
    const instancing =
      isObject(node.extensions) && isObject(node.extensions.EXT_mesh_gpu_instancing) ? node.extensions.EXT_mesh_gpu_instancing.attributes : null;
    const instanceAccessor = isObject(instancing) ? Object.values(instancing).find((v) => typeof v === 'number') : undefined;
    const instances = typeof instanceAccessor === 'number' ? (accessorCounts[instanceAccessor] ?? 1) : 1;
    vertices += (meshVertices[node.mesh] ?? 0) * instances;
  }
  if (vertices > L.modelVertices)
    return `it draws ${vertices.toLocaleString('en')} vertices, over the ${L.modelVertices.toLocaleString('en')} a model may have`;

  // Images: by their headers, before any decoder sees them.
  const images = list(json, 'images');
  if (images.length > L.modelImages) return `it has ${images.length} images, over the ${L.modelImages} a model may have`;
  let imageBytes = 0;
  for (const [i, image] of images.entries()) {
    if (!isObject(image)) return `images[${i}] is not an object`;
    const bytes = typeof image.bufferView === 'number' ? views[image.bufferView]?.bytes : dataUriBytes(image.uri);
    if (!bytes) return `images[${i}] has no bytes of its own`;
    const cost = imageCost(bytes);
    if (typeof cost === 'string') return `images[${i}]: ${cost}`;
    imageBytes += cost.decodedBytes;
  }
  return { vertices, dataBytes, imageBytes };
}
