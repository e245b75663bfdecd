/**
 * Where a theme version's files are served (docs/api/themes.md, "Files").
 *
 * - Keyless, content-addressed: `/api/1.0/theme/{id}/version/{version}/asset/{sha256}/{name}`. The
 *   SHA-256 of the bytes is the part nobody can guess without having been shown the theme (as room
 *   backgrounds do), so `<img>`, three.js loaders and other renderers load it as a plain URL. The
 *   manifest's file fields and `assets` are presented as these URLs.
 * - Keyed (the first route, kept): `/api/1.0/theme/{id}/version/{version}/asset/{name}`.
 */
import { perApp } from '../lib/appContext';
import type { ThemeRecord } from './store/records';
import { assetHashesOf } from './store/themes';

const API = '/api/1.0';

/** Root-relative path of a version's file by its name, behind the API key. */
export function keyedAssetPath(slug: string, version: string, name: string): string {
  return `${API}/theme/${encodeURIComponent(slug)}/version/${encodeURIComponent(version)}/asset/${encodeURIComponent(name)}`;
}

/** Root-relative path of a version's file by its content hash: no key needed. */
export function publicAssetPath(slug: string, version: string, sha256: string, name: string): string {
  return `${API}/theme/${encodeURIComponent(slug)}/version/${encodeURIComponent(version)}/asset/${sha256}/${encodeURIComponent(name)}`;
}

/** A version's files: name to SHA-256 of the bytes. */
export type AssetHashes = ReadonlyMap<string, string>;

/**
 * A version never changes, so its hashes are cached by what names it: row id, id, version and creation
 * time together (a deleted version's row id could be reused by SQLite for a republished one, which would
 * have another creation time). Bounded: the oldest entries go first.
 */
const CACHE_LIMIT = 2000;
const cache = perApp(() => new Map<string, AssetHashes>());
const cacheKey = (t: Pick<ThemeRecord, 'id' | 'slug' | 'version' | 'createdAt'>) => `${t.id}|${t.slug}|${t.version}|${new Date(t.createdAt).getTime()}`;

/** The hashes of each version's files (keyed by row id), reading only the versions not cached yet, in one query. */
export async function assetHashesFor(themes: readonly ThemeRecord[]): Promise<Map<number, AssetHashes>> {
  const out = new Map<number, AssetHashes>();
  const missing: ThemeRecord[] = [];
  for (const t of themes) {
    const hit = cache().get(cacheKey(t));
    if (hit) out.set(t.id, hit);
    else missing.push(t);
  }
  if (!missing.length) return out;
  const byTheme = new Map<number, Map<string, string>>(missing.map((t) => [t.id, new Map()]));
  for (const row of await assetHashesOf(missing.map((t) => t.id))) byTheme.get(row.themeId)?.set(row.name, row.sha256);
  for (const t of missing) {
    const hashes = byTheme.get(t.id)!;
    out.set(t.id, hashes);
    if (cache().size >= CACHE_LIMIT) cache().delete(cache().keys().next().value!);
    cache().set(cacheKey(t), hashes);
  }
  return out;
}

/** name -> URL of every file of a version, under `baseUrl` ('' gives root-relative paths). */
export function assetUrlOf(theme: Pick<ThemeRecord, 'slug' | 'version'>, hashes: AssetHashes, baseUrl = ''): (name: string) => string {
  return (name) => {
    const sha256 = hashes.get(name);
    // A file the manifest names is always stored with it; should one be missing, the keyed URL says so with a 404.
    return baseUrl + (sha256 ? publicAssetPath(theme.slug, theme.version, sha256, name) : keyedAssetPath(theme.slug, theme.version, name));
  };
}
