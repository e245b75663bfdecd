/**
 * What a theme's files may make a browser allocate once decoded: one table shared by the upload checks
 * (src/themes/manifest/assets.ts) and the board (src/board/dice/themes.ts), which checks stored files
 * again before handing them to a decoder. Pure data, importable from both sides (docs/api/themes.md,
 * "Asset limits"; the figures behind them are in docs/reliability.md, "Theme asset limits").
 *
 * Sizes on disk are bounded elsewhere (manifest/limits.ts, 8 MiB a file); these bound what a small file
 * can claim: a 210-byte glTF may declare a 1.2 GB vertex buffer, a 60 KB deflate stream inflates to 64 MiB.
 */
export const ASSET_LIMITS = Object.freeze({
  /** Width and height of an image (a texture, a face image, an image inside a model), each. */
  imageSide: 4096,
  /** Vertices of one model: every mesh counted once per node that draws it. */
  modelVertices: 200_000,
  /** Bytes of a model's vertex, index and animation data once decoded (its images not included). */
  modelDataBytes: 32 * 1024 * 1024,
  /** glTF objects of one model, each kind: accessors, buffer views, nodes, meshes' primitives, materials. */
  gltfObjects: 1024,
  /** Images (textures) inside one model. */
  modelImages: 16,
  /** FBX nodes (records) of one file, and how deep they nest. */
  fbxNodes: 50_000,
  fbxDepth: 64,
  /** Corners of one FBX polygon: the loader triangulates larger ones with earcut, whose cost grows faster than the corners. */
  fbxPolygonCorners: 64,
  /** Everything one theme version's files decode to: pixels at 4 bytes each plus model data. */
  themeDecodedBytes: 192 * 1024 * 1024,
});

export const MIB = 1024 * 1024;

/** "32 MiB", "1.2 GB" -style figures for messages. */
export function bytesText(bytes: number): string {
  if (bytes >= 1024 * MIB) return `${(bytes / (1024 * MIB)).toFixed(1)} GiB`;
  if (bytes >= MIB) return `${Math.round((bytes / MIB) * 10) / 10} MiB`;
  return bytes >= 1024 ? `${Math.ceil(bytes / 1024)} KiB` : `${bytes} bytes`;
}
