/**
 * Themes as the table draws them: the manifest (GET /theme/{id}) and its files, fetched once per theme
 * and kept. Asset fields are taken as URLs: a manifest field is looked up in the answer's `assets` map
 * (name -> URL) when it is there, else used as it is (a URL the server made resolvable). Same-origin
 * requests carry the API key, so keyed asset URLs work too; keyless ones do not need it.
 *
 * A theme that cannot be loaded, or one of whose files cannot, is drawn in the built-in look (its dice
 * keep their shapes and text faces), and the board says so once; the table never stops for it.
 *
 * Models and images are checked against the asset limits (src/themes/assetLimits, the same the upload
 * applies) before a decoder sees them: a theme stored before those checks, or put in the database by
 * other means, cannot make the board allocate what its files merely declare.
 */
import type { Object3D } from 'three';
import type { Face, Theme } from '../../client';
import { assetCost, costedKindOf, ThemeBudget } from '../../themes/assetLimits';

export interface ThemeAssets {
  theme: Theme | null;
  /** why the theme's own look is not used, or null */
  failed: string | null;
  /** value image URL -> decoded image */
  images: Map<string, ImageBitmap>;
  /** texture URL -> decoded image */
  textures: Map<string, ImageBitmap>;
  /** die id -> loaded model */
  meshes: Map<string, Object3D>;
  /** sound URL -> bytes (decoded by the sound module when audio is allowed) */
  sounds: Map<string, ArrayBuffer>;
}

type Fetcher = (url: string) => Promise<Response>;
type ThemeReader = (id: string) => Promise<Theme>;

let fetcher: Fetcher = (url) => fetch(url);
let reader: ThemeReader = () => Promise.reject(new Error('not signed in'));
let onFailure: (message: string) => void = () => {};
const loaded = new Map<string, Promise<ThemeAssets>>();

/** How to read themes and their files (the signed-in client), and where to say a theme failed. */
export function configureThemes(options: { readTheme: ThemeReader; apiKey: string | null; report: (message: string) => void }) {
  reader = options.readTheme;
  onFailure = options.report;
  fetcher = (url) => {
    const sameOrigin = new URL(url, location.href).origin === location.origin;
    return fetch(url, sameOrigin && options.apiKey ? { headers: { Authorization: `Bearer ${options.apiKey}` } } : {});
  };
}

/** The URL of a file the manifest names. */
export function assetUrl(theme: Theme, name: string): string {
  return theme.assets?.[name] ?? name;
}

async function bytes(url: string): Promise<ArrayBuffer> {
  const res = await fetcher(url);
  if (!res.ok) throw new Error(`${res.status} for ${url.split('/').pop()}`);
  return res.arrayBuffer();
}

/** A file's bytes, once its declared decoded size is within the limits (the theme's running total too). */
async function checkedBytes(url: string, name: string, budget: ThemeBudget): Promise<ArrayBuffer> {
  const data = await bytes(url);
  const kind = costedKindOf(name);
  if (kind) {
    const cost = assetCost(kind, new Uint8Array(data));
    const over = typeof cost === 'string' ? cost : budget.add(cost);
    if (over) throw new Error(`${decodeURIComponent(name.split('?')[0]!.split('/').pop()!)} is over the board's limits: ${over}`);
  }
  return data;
}

async function bitmap(url: string, name: string, budget: ThemeBudget): Promise<ImageBitmap> {
  return createImageBitmap(new Blob([await checkedBytes(url, name, budget)]));
}

/** Every file name a theme's manifest uses, by use. */
function filesOf(theme: Theme) {
  const faces = Object.values(theme.values ?? {}).flatMap((faces: Face[]) =>
    faces.flatMap((f) => (f && typeof f === 'object' && typeof (f as { src?: unknown }).src === 'string' ? [(f as { src: string }).src] : [])),
  );
  const named = (src: unknown) =>
    typeof src === 'string' ? [src] : src && typeof src === 'object' ? Object.values(src).filter((s): s is string => typeof s === 'string') : [];
  return {
    faces,
    textures: (theme.textures ?? []).flatMap((t) => named(t.src)),
    sounds: (theme.sounds ?? []).flatMap((s) => named(s.src)),
    meshes: Object.entries(theme.meshes ?? {}).filter(([, v]) => typeof v === 'string'),
  };
}

async function loadModel(url: string, name: string, budget: ThemeBudget): Promise<Object3D> {
  const data = await checkedBytes(url, name, budget);
  const lower = name.toLowerCase().split('?')[0]!;
  if (lower.endsWith('.fbx')) {
    const { FBXLoader } = await import('three/examples/jsm/loaders/FBXLoader.js');
    return new FBXLoader().parse(data, '');
  }
  if (lower.endsWith('.glb') || lower.endsWith('.gltf')) {
    const { GLTFLoader } = await import('three/examples/jsm/loaders/GLTFLoader.js');
    return new Promise((resolve, reject) => new GLTFLoader().parse(data, '', (gltf) => resolve(gltf.scene), reject));
  }
  throw new Error(`no loader for ${name}`);
}

function emptyAssets(): ThemeAssets {
  return { theme: null, failed: null, images: new Map(), textures: new Map(), meshes: new Map(), sounds: new Map() };
}

/**
 * A loaded theme found unfit to draw afterwards (its shaders fail on this viewer's GPU): from now on its
 * dice are drawn in the built-in look, and the page says why, once.
 */
export function failTheme(assets: ThemeAssets, reason: string) {
  if (assets.failed) return;
  assets.failed = reason;
  onFailure(`The theme "${assets.theme?.name ?? assets.theme?.id ?? '?'}" could not be drawn (${reason}): its dice are drawn in the built-in look.`);
}

/** A theme still loading when its dice must be drawn: the built-in look this time. */
export function slowTheme(id: string): ThemeAssets {
  const out = emptyAssets();
  out.failed = 'too slow';
  onFailure(`The theme "${id}" is slow to load: its dice are drawn in the built-in look.`);
  return out;
}

async function load(id: string): Promise<ThemeAssets> {
  const out = emptyAssets();
  try {
    out.theme = await reader(id);
  } catch (err) {
    out.failed = (err as Error).message || 'unreadable';
    onFailure(`The theme "${id}" could not be loaded (${out.failed}): its dice are drawn in the built-in look.`);
    return out;
  }
  const theme = out.theme;
  const files = filesOf(theme);
  const budget = new ThemeBudget();
  const jobs: Promise<unknown>[] = [
    ...files.faces.map(async (name) => out.images.set(name, await bitmap(assetUrl(theme, name), name, budget))),
    ...files.textures.map(async (name) => out.textures.set(name, await bitmap(assetUrl(theme, name), name, budget))),
    ...files.meshes.map(async ([die, name]) => out.meshes.set(die, await loadModel(assetUrl(theme, name), name, budget))),
    // Sounds are a bonus: one that fails is only silent.
    ...files.sounds.map((name) =>
      bytes(assetUrl(theme, name)).then(
        (b) => out.sounds.set(name, b),
        () => undefined,
      ),
    ),
  ];
  const results = await Promise.allSettled(jobs);
  const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure) {
    out.failed = (failure.reason as Error)?.message || 'a file failed';
    onFailure(`The theme "${theme.name}" could not be loaded whole (${out.failed}): its dice are drawn in the built-in look.`);
  }
  return out;
}

/** A theme and its files, loaded once (a failure is kept too: the board says it once). */
export function themeAssets(id: string): Promise<ThemeAssets> {
  let found = loaded.get(id);
  if (!found) {
    found = load(id);
    loaded.set(id, found);
  }
  return found;
}
