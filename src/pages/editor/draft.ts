/**
 * A theme as the upload and editor pages hold it while a person works on it (browser and Node: pure, no
 * DOM): the manifest with every file named by its file name (as the manifest is written), the shaders,
 * and which files are where. A theme read from the API names its files by URL (`assets` maps name to
 * URL); `draftOf` turns those back into names, so what is saved is a manifest the API takes.
 *
 * Also here: the rules of the editor's controls (docs/spec.md 2.3.3), the next patch version, and where
 * an API error's `details` path belongs on the page.
 */
import type { DieEntry, Face, Theme } from '../../client/types';

export type Uniform = Record<string, unknown> & { type?: unknown; value?: unknown; min?: unknown; max?: unknown };

export interface Draft {
  id: string;
  name: string;
  description: string;
  version: string;
  label: { color: string; background_color: string };
  available_dice: Array<string | DieEntry>;
  uniforms: Record<string, Uniform>;
  values: Record<string, Face[]>;
  sizes: Record<string, number>;
  sounds: Array<Record<string, unknown>>;
  meshes: Record<string, string>;
  textures: Array<Record<string, unknown>>;
  physics: { inertia?: Record<string, number>; weight?: Record<string, number> };
  frag_shader: string;
  vert_shader: string;
}

/** The physical die types (docs/spec.md 2.3), the standard set first. */
export const STANDARD_DICE = ['d4', 'd6', 'd8', 'd10', 'd10x', 'd12', 'd20'] as const;
export const UNIFORM_TYPES = ['f', 'color', 'vec3', 'vec4'] as const;
/** Theme ids as the API takes them (lower case, digits, `_`, `-`). */
export const THEME_ID = /^[a-z0-9](?:[a-z0-9_-]{0,98}[a-z0-9])?$/;

export function emptyDraft(): Draft {
  return {
    id: '',
    name: '',
    description: '',
    version: '1.0.0',
    label: { color: '#ffffff', background_color: '#3451c7' },
    available_dice: [...STANDARD_DICE],
    uniforms: {},
    values: {},
    sizes: {},
    sounds: [],
    meshes: {},
    textures: [],
    physics: {},
    frag_shader: '',
    vert_shader: '',
  };
}

/** `"d6"` or `{id, type, notation}` as one shape. */
export function dieOf(entry: string | DieEntry): { id: string; type: string; notation: string } {
  return typeof entry === 'string' ? { id: entry, type: entry, notation: entry } : { id: entry.id, type: entry.type, notation: entry.notation ?? entry.id };
}

const isObject = (v: unknown): v is Record<string, unknown> => Boolean(v) && typeof v === 'object' && !Array.isArray(v);

/** A file field (a name, or die id -> name) with each value passed through `map`. */
function mapSrc(src: unknown, map: (s: string) => string): unknown {
  if (typeof src === 'string') return map(src);
  if (isObject(src)) return Object.fromEntries(Object.entries(src).map(([k, v]) => [k, typeof v === 'string' ? map(v) : v]));
  return src;
}

/** Every file field of a draft's manifest passed through `map` (URLs to names, or names to URLs). */
function mapFiles<T extends Pick<Draft, 'values' | 'sounds' | 'meshes' | 'textures'>>(d: T, map: (s: string) => string): T {
  return {
    ...d,
    meshes: Object.fromEntries(Object.entries(d.meshes ?? {}).map(([die, name]) => [die, map(name)])),
    values: Object.fromEntries(
      Object.entries(d.values ?? {}).map(([die, faces]) => [die, faces.map((f) => (isObject(f) && typeof f.src === 'string' ? { ...f, src: map(f.src) } : f))]),
    ),
    textures: (d.textures ?? []).map((t) => ({ ...t, src: mapSrc(t.src, map) })),
    sounds: (d.sounds ?? []).map((s) => ({ ...s, src: mapSrc(s.src, map) })),
  };
}

/** A theme as the API answers it, as a draft (files by name) and the URL of each file it names. */
export function draftOf(theme: Theme): { draft: Draft; urls: Map<string, string> } {
  const urls = new Map(Object.entries(theme.assets ?? {}));
  const names = new Map([...urls].map(([name, url]) => [url, name]));
  const draft: Draft = mapFiles(
    {
      id: theme.id,
      name: theme.name,
      description: theme.description ?? '',
      version: theme.version,
      label: { color: theme.label?.color ?? '', background_color: theme.label?.background_color ?? '' },
      available_dice: theme.available_dice?.length ? theme.available_dice : [...STANDARD_DICE],
      uniforms: structuredClone(theme.uniforms ?? {}) as Record<string, Uniform>,
      values: structuredClone(theme.values ?? {}),
      sizes: { ...(theme.sizes ?? {}) },
      sounds: structuredClone(theme.sounds ?? []),
      meshes: { ...(theme.meshes ?? {}) },
      textures: structuredClone(theme.textures ?? []),
      physics: structuredClone(theme.physics ?? {}),
      frag_shader: theme.frag_shader ?? '',
      vert_shader: theme.vert_shader ?? '',
    },
    (s) => names.get(s) ?? s,
  );
  return { draft, urls };
}

const nonEmpty = <T extends object>(o: T | undefined): T | undefined => (o && (Array.isArray(o) ? o.length : Object.keys(o).length) ? o : undefined);

/** The manifest to publish (`POST /theme`'s `manifest` field); `extend` names the base when there is one. */
export function manifestOf(d: Draft, extend?: string): Record<string, unknown> {
  const out: Record<string, unknown> = {
    api_version: '1.0',
    id: d.id,
    name: d.name,
    description: d.description,
    version: d.version,
    label: d.label,
    available_dice: d.available_dice,
    meshes: nonEmpty(d.meshes),
    sizes: nonEmpty(d.sizes),
    sounds: nonEmpty(d.sounds),
    uniforms: nonEmpty(d.uniforms),
    values: nonEmpty(d.values),
    textures: nonEmpty(d.textures),
    physics: d.physics && (nonEmpty(d.physics.inertia) || nonEmpty(d.physics.weight)) ? d.physics : undefined,
  };
  if (extend) out.extend = extend;
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined));
}

/** Every file name the draft's manifest uses. */
export function fileNames(d: Draft): string[] {
  const out = new Set<string>();
  mapFiles(d, (s) => (out.add(s), s));
  return [...out];
}

/** The draft as the board's renderer takes a theme: files by name (the editor's preview keeps decoded files by name). */
export function previewTheme(d: Draft, owner: Theme['user'] = null): Theme {
  return {
    ...d,
    api_version: '1.0',
    frag_shader: d.frag_shader.trim() ? d.frag_shader : null,
    vert_shader: d.vert_shader.trim() ? d.vert_shader : null,
    user: owner,
    created_at: '',
    updated_at: '',
  } as unknown as Theme;
}

/** The editor's controls of a uniform (docs/spec.md 2.3.3): a colour picker, a slider, or none. */
export function uniformControl(u: Uniform): 'color' | 'slider' | null {
  if (u.type === 'color') return 'color';
  if (u.type === 'f' && typeof u.min === 'number' && typeof u.max === 'number' && Number.isFinite(u.min) && Number.isFinite(u.max) && u.max > u.min)
    return 'slider';
  return null;
}

/** The slider's value: the uniform's `value`, kept within min and max (its middle when it has none). */
export function sliderValue(u: Uniform): number {
  const min = u.min as number,
    max = u.max as number;
  const v = typeof u.value === 'number' && Number.isFinite(u.value) ? u.value : (min + max) / 2;
  return Math.min(max, Math.max(min, v));
}

/** The next patch version of a SemVer (`1.2.3` -> `1.2.4`; a pre-release `1.2.3-beta` -> `1.2.3`). */
export function nextPatch(version: string): string {
  const m = /^(\d+)\.(\d+)\.(\d+)(-[^+]*)?(\+.*)?$/.exec(version.trim());
  if (!m) return '1.0.0';
  return m[4] ? `${m[1]}.${m[2]}.${m[3]}` : `${m[1]}.${m[2]}.${Number(m[3]) + 1}`;
}

/** An error's `details` path without the `manifest.` prefix of the API (`manifest.uniforms.glow.max` -> `uniforms.glow.max`). */
export function bare(path: string): string {
  return path.startsWith('manifest.') ? path.slice('manifest.'.length) : path;
}

/**
 * The page's field a details path belongs to: the longest of `fields` that is the path or a prefix of it
 * (`uniforms.glow` takes `uniforms.glow.max`); null when none (the page lists it with the others).
 */
export function fieldFor(path: string, fields: readonly string[]): string | null {
  const p = bare(path);
  let best: string | null = null;
  for (const f of fields) {
    if ((p === f || p.startsWith(`${f}.`) || p.startsWith(`${f}[`)) && (!best || f.length > best.length)) best = f;
  }
  return best;
}

/** Problems grouped by the field they belong to (`''`: none of them). */
export function groupDetails(details: ReadonlyArray<{ path: string; message: string }>, fields: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const d of details) {
    const key = fieldFor(d.path, fields) ?? '';
    // The API's messages name the field as it is sent ("manifest.id must be ..."): the page names it as the form does.
    const message = d.message.replace(/\bmanifest\./g, '');
    out.set(key, [...(out.get(key) ?? []), key || !d.path ? message : `${bare(d.path)}: ${message}`]);
  }
  return out;
}

/**
 * A manifest file (its JSON text) as a draft: what it gives, over an empty draft. Throws a sentence when
 * it is no manifest at all; its keys are checked by the server, which says what is wrong where.
 */
export function draftFromManifest(text: string): Draft {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error('This file is not JSON: a manifest is a JSON object.');
  }
  if (!isObject(json)) throw new Error('A manifest is a JSON object, with keys such as "id", "name" and "version".');
  const d = emptyDraft();
  const str = (v: unknown, fallback: string) => (typeof v === 'string' ? v : fallback);
  const obj = <T>(v: unknown, fallback: T): T => (isObject(v) ? (v as T) : fallback);
  const label = obj<Record<string, unknown>>(json.label, {});
  return {
    ...d,
    id: str(json.id, ''),
    name: str(json.name, ''),
    description: str(json.description, ''),
    version: str(json.version, d.version),
    label: { color: str(label.color, d.label.color), background_color: str(label.background_color, d.label.background_color) },
    available_dice: Array.isArray(json.available_dice) ? (json.available_dice as Draft['available_dice']) : d.available_dice,
    uniforms: obj(json.uniforms, {}),
    values: obj(json.values, {}),
    sizes: obj(json.sizes, {}),
    meshes: obj(json.meshes, {}),
    physics: obj(json.physics, {}),
    sounds: Array.isArray(json.sounds) ? (json.sounds as Draft['sounds']) : [],
    textures: Array.isArray(json.textures) ? (json.textures as Draft['textures']) : [],
  };
}
