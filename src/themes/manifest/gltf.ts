/**
 * glTF 2.0 models (`.glb` binary, `.gltf` JSON) accepted as theme meshes. Files are addressed by their
 * hash and served alone, so a model must be self-contained: its buffers in the GLB's binary chunk or as
 * `data:` URIs, its images in buffer views or `data:` URIs; a reference to any other file is refused.
 * Compressions the board has no decoder for (Draco, meshopt, Basis) are refused when required.
 */
const GLB_MAGIC = 0x46546c67; // "glTF"
const CHUNK_JSON = 0x4e4f534a; // "JSON"
const UNSUPPORTED = ['KHR_draco_mesh_compression', 'EXT_meshopt_compression', 'KHR_meshopt_compression', 'KHR_texture_basisu'];

/** Is this the start of a GLB (magic `glTF`, version 2)? */
export function isGlb(data: Uint8Array): boolean {
  if (data.length < 12) return false;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  return view.getUint32(0, true) === GLB_MAGIC && view.getUint32(4, true) === 2;
}

/** The JSON of a `.gltf` file, or null when the content is not a glTF JSON document (an object with `asset`). */
export function gltfJson(data: Uint8Array): Record<string, unknown> | null {
  const text = Buffer.from(data.buffer, data.byteOffset, data.byteLength)
    .toString('utf8')
    .replace(/^\uFEFF/, '');
  if (!text.trimStart().startsWith('{')) return null;
  try {
    const json = JSON.parse(text) as unknown;
    return json && typeof json === 'object' && !Array.isArray(json) && typeof (json as { asset?: unknown }).asset === 'object'
      ? (json as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** The JSON chunk of a GLB, or why the container is broken. */
function glbJson(data: Uint8Array): Record<string, unknown> | string {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (view.getUint32(8, true) !== data.length) return 'its length field does not match the file (cut short or padded?)';
  if (data.length < 20) return 'it has no JSON chunk';
  const length = view.getUint32(12, true);
  if (view.getUint32(16, true) !== CHUNK_JSON || 20 + length > data.length) return 'its first chunk is not a whole JSON chunk';
  return gltfJson(data.subarray(20, 20 + length)) ?? 'its JSON chunk is not a glTF document';
}

/** The URIs a glTF document references (buffers and images), with where they are. */
function uris(json: Record<string, unknown>): { path: string; uri: unknown }[] {
  const list = (key: string) => (Array.isArray(json[key]) ? (json[key] as unknown[]) : []);
  const out: { path: string; uri: unknown }[] = [];
  for (const key of ['buffers', 'images']) {
    list(key).forEach((item, i) => {
      if (item && typeof item === 'object' && 'uri' in item) out.push({ path: `${key}[${i}]`, uri: (item as { uri: unknown }).uri });
    });
  }
  return out;
}

/** Why a glTF model (kind `glb` or `gltf`) cannot be used, or null when it can. */
export function gltfProblem(kind: 'glb' | 'gltf', data: Uint8Array): string | null {
  const json = kind === 'glb' ? glbJson(data) : (gltfJson(data) ?? 'it is not a glTF JSON document');
  if (typeof json === 'string') return json;
  const version = (json.asset as { version?: unknown }).version;
  if (typeof version !== 'string' || !version.startsWith('2.')) return 'it is not glTF 2.0 (asset.version)';
  for (const { path, uri } of uris(json)) {
    if (typeof uri !== 'string' || !uri.startsWith('data:'))
      return `${path} references another file (${JSON.stringify(String(uri).slice(0, 60))}): a model must be self-contained (a .glb, or data: URIs)`;
  }
  if (kind === 'gltf' && Array.isArray(json.buffers) && json.buffers.some((b) => !b || typeof b !== 'object' || !('uri' in b)))
    return 'a buffer has no uri (only a .glb has a binary chunk)';
  const required: unknown[] = Array.isArray(json.extensionsRequired) ? json.extensionsRequired : [];
  const missing = required.find((ext) => UNSUPPORTED.includes(String(ext)));
  if (missing) return `it requires ${String(missing)}, which the board cannot decode`;
  return null;
}
