import type { Request, Response } from 'express';
import { getAssetData } from './read';
import type { AssetMeta } from './store/records';

/**
 * The only types a theme file is answered with: what the upload check sniffs (manifest/sniff.ts). Any
 * other stored type is sent as bytes, so that no file is ever served as a page, a script or an SVG.
 */
const SAFE_TYPES = new Set([
  'image/png',
  'image/jpeg',
  'image/webp',
  'image/ktx2',
  'audio/wav',
  'audio/mpeg',
  'model/gltf-binary',
  'model/gltf+json',
  'application/octet-stream',
]);

/**
 * Answer one file of a theme version (keyed or keyless route). A version never changes: the file is
 * cached for a year, `immutable`, and revalidated by its hash (`If-None-Match` gives a 304).
 */
export async function sendThemeAsset(req: Request, res: Response, meta: AssetMeta): Promise<void> {
  const etag = `"${meta.sha256}"`;
  res.set({
    ETag: etag,
    // Not for shared caches: a deleted theme's files should not outlive it anywhere but in its viewers' browsers.
    'Cache-Control': 'private, max-age=31536000, immutable',
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; sandbox",
    // Boards and renderers on other origins load these as images, sounds and meshes.
    'Cross-Origin-Resource-Policy': 'cross-origin',
  });
  const match = req.headers['if-none-match'];
  if (match && match.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag || tag.trim() === '*')) {
    res.status(304).end();
    return;
  }
  const data = await getAssetData(meta.id);
  res.set({ 'Content-Type': SAFE_TYPES.has(meta.contentType) ? meta.contentType : 'application/octet-stream', 'Content-Length': String(data.length) });
  res.end(req.method === 'HEAD' ? undefined : data);
}
