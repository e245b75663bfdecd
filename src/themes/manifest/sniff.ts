/**
 * What an uploaded file is, by its first bytes (magic numbers), never by its name alone. A file is accepted
 * only when its content is one of the kinds below and its name's extension names that same kind.
 */
import { gltfJson, isGlb } from './gltf';

export type AssetKind = 'fbx' | 'glb' | 'gltf' | 'png' | 'jpeg' | 'webp' | 'ktx2' | 'wav' | 'mp3';

/** How the manifest uses a file, and the kinds each use accepts. */
export type AssetUse = 'mesh' | 'image' | 'sound';

export const KINDS_FOR_USE: Readonly<Record<AssetUse, readonly AssetKind[]>> = Object.freeze({
  mesh: ['fbx', 'glb', 'gltf'],
  image: ['png', 'jpeg', 'webp', 'ktx2'],
  sound: ['wav', 'mp3'],
});

export const CONTENT_TYPES: Readonly<Record<AssetKind, string>> = Object.freeze({
  // FBX has no registered media type.
  fbx: 'application/octet-stream',
  glb: 'model/gltf-binary',
  gltf: 'model/gltf+json',
  png: 'image/png',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  ktx2: 'image/ktx2',
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
});

const EXTENSIONS: Readonly<Record<string, AssetKind>> = Object.freeze({
  fbx: 'fbx',
  glb: 'glb',
  gltf: 'gltf',
  png: 'png',
  jpg: 'jpeg',
  jpeg: 'jpeg',
  webp: 'webp',
  ktx2: 'ktx2',
  wav: 'wav',
  mp3: 'mp3',
});

/** The kind a file name claims by its extension (case-insensitive), or null. */
export function kindFromName(name: string): AssetKind | null {
  const dot = name.lastIndexOf('.');
  if (dot < 0) return null;
  const ext = name.slice(dot + 1).toLowerCase();
  // Own keys only: "x.constructor" names no kind.
  return Object.hasOwn(EXTENSIONS, ext) ? EXTENSIONS[ext]! : null;
}

/** Extensions accepted for a use, for messages: ".png, .jpg, ..." */
export function extensionsFor(use: AssetUse): string[] {
  return Object.entries(EXTENSIONS)
    .filter(([, kind]) => KINDS_FOR_USE[use].includes(kind))
    .map(([ext]) => `.${ext}`);
}

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const KTX2 = [0xab, 0x4b, 0x54, 0x58, 0x20, 0x32, 0x30, 0xbb, 0x0d, 0x0a, 0x1a, 0x0a];
const FBX_BINARY = 'Kaydara FBX Binary  \0';

function startsWith(data: Uint8Array, bytes: readonly number[], offset = 0): boolean {
  if (data.length < offset + bytes.length) return false;
  for (let i = 0; i < bytes.length; i++) if (data[offset + i] !== bytes[i]) return false;
  return true;
}

function ascii(data: Uint8Array, start: number, end: number): string {
  return String.fromCharCode(...data.subarray(start, Math.min(end, data.length)));
}

/** An MPEG audio frame header: 11 sync bits, a version and a layer that are not "reserved", a sane bitrate. */
function isMpegFrame(data: Uint8Array): boolean {
  if (data.length < 4 || data[0] !== 0xff || (data[1]! & 0xe0) !== 0xe0) return false;
  const version = (data[1]! >> 3) & 0x03;
  const layer = (data[1]! >> 1) & 0x03;
  const bitrate = data[2]! >> 4;
  const sampleRate = (data[2]! >> 2) & 0x03;
  return version !== 0x01 && layer !== 0x00 && bitrate !== 0x0f && sampleRate !== 0x03;
}

/** The kind the content is, or null when it is none of the accepted kinds. */
export function sniff(data: Uint8Array): AssetKind | null {
  if (startsWith(data, PNG)) return 'png';
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'jpeg';
  if (startsWith(data, KTX2)) return 'ktx2';
  if (data.length >= 12 && ascii(data, 0, 4) === 'RIFF') {
    const form = ascii(data, 8, 12);
    if (form === 'WEBP') return 'webp';
    if (form === 'WAVE') return 'wav';
    return null;
  }
  if (ascii(data, 0, FBX_BINARY.length) === FBX_BINARY) return 'fbx';
  // ASCII FBX files open with a comment line "; FBX 7.4.0 project file" (after an optional BOM).
  const head = ascii(data, 0, 64)
    .replace(/^\uFEFF|^\xEF\xBB\xBF/, '')
    .trimStart();
  if (head.startsWith('; FBX ')) return 'fbx';
  if (isGlb(data)) return 'glb';
  if (gltfJson(data)) return 'gltf';
  if (data.length >= 10 && ascii(data, 0, 3) === 'ID3') return 'mp3';
  if (isMpegFrame(data)) return 'mp3';
  return null;
}
