import type { Theme } from '../client/types';
import type { ThemeRecord } from './store/records';
import { assetNames } from './manifest/files';
import { manifestOf } from './manifest/stored';
import { ts } from '../http/time';
import { presentUser } from '../users/present';

export interface ThemePresentOptions {
  /** Origin for asset URLs (http/paging.ts baseUrl); without it they are root-relative paths. */
  baseUrl?: string;
}

/** The URL of one asset of a theme version. */
export function assetUrl(slug: string, version: string, name: string, baseUrl = ''): string {
  return `${baseUrl}/api/1.0/theme/${encodeURIComponent(slug)}/version/${encodeURIComponent(version)}/asset/${encodeURIComponent(name)}`;
}

/**
 * A theme version as spec 2.3 describes it. File names stay as the manifest gave them; `assets` maps each
 * name to the URL it is served at. The owner (`user`, with the subscription fields) needs `theme.user`
 * loaded. Row ids never leave the server.
 */
export function presentTheme(theme: ThemeRecord, options: ThemePresentOptions = {}): Theme {
  const m = manifestOf(theme);
  return {
    id: theme.slug,
    name: theme.name,
    description: theme.description ?? '',
    version: theme.version,
    api_version: theme.apiVersion,
    label: m.label,
    available_dice: m.available_dice,
    meshes: m.meshes ?? {},
    sizes: m.sizes ?? {},
    physics: m.physics ?? {},
    sounds: m.sounds ?? [],
    uniforms: m.uniforms ?? {},
    values: m.values ?? {},
    textures: m.textures ?? [],
    frag_shader: theme.fragShader ?? null,
    vert_shader: theme.vertShader ?? null,
    assets: Object.fromEntries(assetNames(m).map((name) => [name, assetUrl(theme.slug, theme.version, name, options.baseUrl)])),
    user: theme.user ? presentUser(theme.user) : null,
    created_at: ts(theme.createdAt),
    updated_at: ts(theme.updatedAt),
  };
}
