/** The files a manifest references: every name, where it stands and what it is used for. */
import type { AssetUse } from './sniff';
import type { InheritableKey, Sound, StoredManifest, Texture } from './manifest';

/** A file the manifest names, where, and what for. */
export interface FileReference {
  name: string;
  use: AssetUse;
  /** path inside the manifest: `meshes.d6`, `textures[0].src.d20`, `values.d6[2].src` */
  path: string;
  key: InheritableKey;
}

function refsOfSrc(src: unknown, use: AssetUse, path: string, key: InheritableKey, out: FileReference[]) {
  if (typeof src === 'string') out.push({ name: src, use, path, key });
  else if (src && typeof src === 'object')
    for (const [die, name] of Object.entries(src)) if (typeof name === 'string') out.push({ name, use, path: `${path}.${die}`, key });
}

/** Every file name a manifest references. */
export function fileReferences(m: Pick<StoredManifest, 'meshes' | 'sounds' | 'textures' | 'values'>): FileReference[] {
  const out: FileReference[] = [];
  for (const [die, name] of Object.entries(m.meshes ?? {})) out.push({ name, use: 'mesh', path: `meshes.${die}`, key: 'meshes' });
  (m.textures ?? []).forEach((t, i) => refsOfSrc(t?.src, 'image', `textures[${i}].src`, 'textures', out));
  (m.sounds ?? []).forEach((s, i) => refsOfSrc(s?.src, 'sound', `sounds[${i}].src`, 'sounds', out));
  for (const [die, faces] of Object.entries(m.values ?? {})) {
    if (!Array.isArray(faces)) continue;
    faces.forEach((f, i) => {
      if (f && typeof f === 'object' && typeof f.src === 'string') out.push({ name: f.src, use: 'image', path: `values.${die}[${i}].src`, key: 'values' });
    });
  }
  return out;
}

/** The distinct file names of a stored manifest: exactly the version's assets. */
export function assetNames(m: StoredManifest): string[] {
  return [...new Set(fileReferences(m).map((r) => r.name))];
}

type FileFields = Pick<StoredManifest, 'meshes' | 'sounds' | 'textures' | 'values'>;

function mapSrc(src: unknown, to: (name: string) => string): unknown {
  if (typeof src === 'string') return to(src);
  if (src && typeof src === 'object') return Object.fromEntries(Object.entries(src).map(([die, name]) => [die, typeof name === 'string' ? to(name) : name]));
  return src;
}

/**
 * A copy of the manifest's file fields with every file name replaced by `to(name)` (its URL, when
 * presented): the same places fileReferences reads, and nothing else changed.
 */
export function mapFileNames(m: Partial<FileFields>, to: (name: string) => string): FileFields {
  return {
    meshes: Object.fromEntries(Object.entries(m.meshes ?? {}).map(([die, name]) => [die, to(name)])),
    textures: (m.textures ?? []).map((t) => ({ ...t, src: mapSrc(t?.src, to) as Texture['src'] })),
    sounds: (m.sounds ?? []).map((s) => ({ ...s, src: mapSrc(s?.src, to) as Sound['src'] })),
    values: Object.fromEntries(
      Object.entries(m.values ?? {}).map(([die, faces]) => [
        die,
        Array.isArray(faces) ? faces.map((f) => (f && typeof f === 'object' && typeof f.src === 'string' ? { ...f, src: to(f.src) } : f)) : faces,
      ]),
    ),
  };
}
