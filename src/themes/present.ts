import type { Theme } from '../client/types';
import type { ThemeRecord } from './store/records';
import { assetHashesFor, assetUrlOf, type AssetHashes } from './assetUrls';
import { assetNames, mapFileNames } from './manifest/files';
import { manifestOf } from './manifest/stored';
import { ts } from '../http/time';
import { presentUser } from '../users/present';

export interface ThemePresentOptions {
  /** Origin for asset URLs (http/paging.ts baseUrl); without it they are root-relative paths. */
  baseUrl?: string;
}

/**
 * A theme version as docs/spec.md §2.3 describes it. Every file the manifest names (`meshes`, `textures[].src`,
 * `sounds[].src`, `values[die][i].src`) is presented as the URL it is served at without a key
 * (assetUrls.ts), and `assets` maps each file name to that URL: renderers load them as they are. The
 * owner (`user`, with the subscription fields) needs `theme.user` loaded. Row ids never leave the server.
 * `hashes`: the version's files (assetHashesFor); the async presentThemes reads them.
 */
export function presentTheme(theme: ThemeRecord, hashes: AssetHashes, options: ThemePresentOptions = {}): Theme {
  const m = manifestOf(theme);
  const url = assetUrlOf(theme, hashes, options.baseUrl);
  const files = mapFileNames(m, url);
  return {
    id: theme.slug,
    name: theme.name,
    description: theme.description ?? '',
    version: theme.version,
    api_version: theme.apiVersion,
    label: m.label,
    available_dice: m.available_dice,
    meshes: files.meshes,
    sizes: m.sizes ?? {},
    physics: m.physics ?? {},
    sounds: files.sounds,
    uniforms: m.uniforms ?? {},
    values: files.values,
    textures: files.textures,
    frag_shader: theme.fragShader ?? null,
    vert_shader: theme.vertShader ?? null,
    assets: Object.fromEntries(assetNames(m).map((name) => [name, url(name)])),
    user: theme.user ? presentUser(theme.user) : null,
    created_at: ts(theme.createdAt),
    updated_at: ts(theme.updatedAt),
  };
}

/** Several versions, with their files' hashes read in one query (none for versions cached already). */
export async function presentThemes(themes: readonly ThemeRecord[], options: ThemePresentOptions = {}): Promise<Theme[]> {
  const hashes = await assetHashesFor(themes);
  return themes.map((theme) => presentTheme(theme, hashes.get(theme.id) ?? new Map(), options));
}

export async function presentOneTheme(theme: ThemeRecord, options: ThemePresentOptions = {}): Promise<Theme> {
  return (await presentThemes([theme], options))[0]!;
}
