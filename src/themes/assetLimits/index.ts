/**
 * The decoded cost of a theme file, checked before anything decodes it: on upload (refused with a
 * reason) and on the board (a stored file over the limits is not handed to a loader). Pure: no Node or
 * DOM APIs beyond TextDecoder, atob and typed arrays.
 */
import { fbxCost } from './fbx';
import { gltfCost, readGltf } from './gltf';
import { imageCost } from './images';
import { ASSET_LIMITS, bytesText } from './limits';

export { ASSET_LIMITS, bytesText } from './limits';

/** The file kinds whose decoded size is bounded (sounds are not decoded up front). */
export type CostedKind = 'fbx' | 'glb' | 'gltf' | 'png' | 'jpeg' | 'webp' | 'ktx2';

const MODEL_KINDS = new Set<string>(['fbx', 'glb', 'gltf']);
const IMAGE_KINDS = new Set<string>(['png', 'jpeg', 'webp', 'ktx2']);

/** Bytes the file decodes to, or why it is refused. Kinds not listed cost nothing here. */
export function assetCost(kind: string, data: Uint8Array): number | string {
  if (IMAGE_KINDS.has(kind)) {
    const cost = imageCost(data);
    return typeof cost === 'string' ? cost : cost.decodedBytes;
  }
  if (!MODEL_KINDS.has(kind)) return 0;
  if (kind === 'fbx') {
    const cost = fbxCost(data);
    return typeof cost === 'string' ? cost : cost.dataBytes;
  }
  const doc = readGltf(data);
  if (typeof doc === 'string') return doc;
  const cost = gltfCost(doc);
  return typeof cost === 'string' ? cost : cost.dataBytes + cost.imageBytes;
}

/** The kind a file name says (what the board goes by: stored files were sniffed on upload). */
export function costedKindOf(name: string): CostedKind | null {
  const ext = name.toLowerCase().split('?')[0]!.split('.').pop() ?? '';
  const kind = ext === 'jpg' ? 'jpeg' : ext;
  return MODEL_KINDS.has(kind) || IMAGE_KINDS.has(kind) ? (kind as CostedKind) : null;
}

/** A theme's files together: the sum of what they decode to, bounded. */
export class ThemeBudget {
  private spent = 0;
  /** Add a file's cost; the reason when the theme goes over its total. */
  add(bytes: number): string | null {
    this.spent += bytes;
    const limit = ASSET_LIMITS.themeDecodedBytes;
    return this.spent > limit ? `the theme's files decode to ${bytesText(this.spent)} or more, over the ${bytesText(limit)} a theme may have` : null;
  }
}
