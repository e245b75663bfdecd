/**
 * What one kind of die (a theme's die id, seen hidden or not) looks like, built once and shared by every
 * die of that kind: the shape from the die's `type` in `available_dice` (never its id), the size
 * (`sizes`), the colours (body: `uniforms.diffuse`, else `label.background_color`; numbers:
 * `uniforms.number`, else `label.color`), the faces (`values[dieId]`, text or image), the textures
 * (`map` under the faces; `normalMap`, `emissiveMap`... as the material's maps) and the model (`meshes`).
 */
import { Box3, CanvasTexture, Color, Mesh, MeshStandardMaterial, SRGBColorSpace, ShaderMaterial, Texture, Group, Vector3, type Object3D } from 'three';
import { dieGeometry, type DieGeometry } from './geometry';
import { faceAtlas, type FaceArt } from './faces';
import { shapeOf, type Shape } from './shapes';
import type { Face } from '../../client';
import type { ThemeAssets } from './themes';
import { hasShaders, themeShaderMaterial } from './shaders';

/** The built-in look (the standard theme's label colours), for dice whose theme did not load. */
export const BUILT_IN = { body: '#bf9f22', number: '#000000' };
/** A die's radius on the table for size 1. */
export const DIE_SCALE = 0.85;

export interface DieKind {
  shape: Shape;
  scale: number;
  geometry: DieGeometry;
  /** the built-in look's material, or the theme's shaders (shaders.ts) */
  material: MeshStandardMaterial | ShaderMaterial;
  /** the theme's model for this die, when it has one (drawn instead of the solid) */
  model: Object3D | null;
  weight?: number;
  inertia?: number;
  /** face i's text, for the list and for tests (images: their file name) */
  faceTexts: string[];
}

const HEX = /^#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;

/** An image face's file name: theme answers give its keyless URL (`.../asset/{sha256}/{name}`), older ones the name. */
function fileName(src: string): string {
  const last = src.split(/[?#]/)[0]!.split('/').pop() || src;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/** A colour as a manifest writes it (hex; `[r,g,b]` or `{r,g,b}` linear, as dddice reads them) -> CSS. */
export function cssColor(value: unknown): string | null {
  if (typeof value === 'string') return HEX.test(value) ? value : null;
  let rgb: unknown[] | null = null;
  if (Array.isArray(value) && value.length >= 3) rgb = value.slice(0, 3);
  else if (value && typeof value === 'object') {
    const { r, g, b } = value as { r?: unknown; g?: unknown; b?: unknown };
    rgb = [r, g, b];
  }
  if (!rgb || !rgb.every((x) => typeof x === 'number' && Number.isFinite(x))) return null;
  const [r, g, b] = rgb as number[];
  return `#${new Color().setRGB(r!, g!, b!).getHexString(SRGBColorSpace)}`;
}

function uniformColor(assets: ThemeAssets, name: string): string | null {
  const u = assets.theme?.uniforms?.[name];
  return u ? cssColor((u as { value?: unknown }).value) : null;
}

/** Physical type of a die id: from the theme's `available_dice`, else the id itself when it is one. */
export function typeOf(assets: ThemeAssets, dieId: string): string {
  for (const entry of assets.theme?.available_dice ?? []) {
    if (typeof entry === 'string' && entry.toLowerCase() === dieId.toLowerCase()) return entry;
    if (entry && typeof entry === 'object' && entry.id.toLowerCase() === dieId.toLowerCase()) return entry.type;
  }
  return dieId;
}

function themeKey(assets: ThemeAssets, dieId: string): string {
  const values = assets.theme?.values ?? {};
  return Object.keys(values).find((k) => k.toLowerCase() === dieId.toLowerCase()) ?? dieId;
}

/**
 * The built-in fudge dice (src/dice/faces.ts rolls them: -1, 0, +1 as faces 1..6) as FATE players read
 * them: -, blank, +. Used when the theme gives the die no faces of its own.
 */
const FUDGE_FACES: Readonly<Record<string, string[]>> = {
  df: ['-', '-', '', '', '+', '+'],
  'df.2': ['-', '-', '', '', '+', '+'],
  'df.1': ['-', '', '', '', '', '+'],
};

function defaultFaces(shape: Shape, dieId: string): string[] {
  const fudge = Object.hasOwn(FUDGE_FACES, dieId.toLowerCase()) ? FUDGE_FACES[dieId.toLowerCase()] : undefined;
  if (fudge && shape.valued === fudge.length) return fudge;
  if (shape.type === 'd10x') return Array.from({ length: 10 }, (_, i) => (i === 0 ? '00' : String(i * 10)));
  return Array.from({ length: shape.valued }, (_, i) => String(i + 1));
}

/** Textures of a die by binding (a texture's `src` is a file, or die id -> file). */
function texturesFor(assets: ThemeAssets, dieId: string): Map<string, ImageBitmap> {
  const out = new Map<string, ImageBitmap>();
  for (const t of assets.theme?.textures ?? []) {
    const src = t.src;
    const name = typeof src === 'string' ? src : src && typeof src === 'object' ? (src as Record<string, unknown>)[dieId] : undefined;
    const image = typeof name === 'string' ? assets.textures.get(name) : undefined;
    if (typeof t.binding === 'string' && image) out.set(t.binding, image);
  }
  return out;
}

const MAPS = ['normalMap', 'emissiveMap', 'roughnessMap', 'metalnessMap', 'bumpMap', 'aoMap', 'alphaMap'] as const;

/** Per loaded theme (a theme drawn in the built-in look while slow gets its own look later). */
const kinds = new WeakMap<ThemeAssets, Map<string, DieKind>>();

/** The look of die `dieId` of a theme; `blank` for a die whose value this viewer may not see. */
export function dieKind(assets: ThemeAssets, dieId: string, blank: boolean): DieKind {
  const key = `${dieId.toLowerCase()}\n${blank}`;
  let ofTheme = kinds.get(assets);
  if (!ofTheme) kinds.set(assets, (ofTheme = new Map<string, DieKind>()));
  const cached = ofTheme.get(key);
  if (cached) return cached;
  const own = assets.failed ? null : assets.theme;
  const shape = shapeOf(typeOf(assets, dieId));
  const size = Number(own?.sizes?.[dieId]);
  const scale = DIE_SCALE * (Number.isFinite(size) && size > 0 ? Math.min(3, size) : 1);
  const geometry = dieGeometry(shape, scale);
  const raw = (assets.theme?.values?.[themeKey(assets, dieId)] ?? []) as Face[];
  const defaults = defaultFaces(shape, dieId);
  const faceTexts: string[] = [];
  const arts: FaceArt[] = defaults.map((fallback, i) => {
    const face = raw[i];
    const src = face && typeof face === 'object' ? (face as { src?: unknown }).src : undefined;
    const image = typeof src === 'string' && own ? assets.images.get(src) : undefined;
    faceTexts.push(typeof src === 'string' ? fileName(src) : face === undefined || face === null ? fallback : String(face));
    if (blank) return null;
    if (image) return { image };
    return { text: typeof face === 'string' || typeof face === 'number' ? String(face) : fallback };
  });
  const textures = own ? texturesFor(assets, dieId) : new Map<string, ImageBitmap>();
  const diffuse = own ? uniformColor(assets, 'diffuse') : null;
  const body = diffuse ?? (own ? cssColor(own.label?.background_color) : null) ?? BUILT_IN.body;
  const number = (own ? (uniformColor(assets, 'number') ?? cssColor(own.label?.color)) : null) ?? BUILT_IN.number;
  const atlas = new CanvasTexture(faceAtlas(shape, geometry, arts, { body, number, map: textures.get('map'), tintMap: Boolean(diffuse) }));
  atlas.colorSpace = SRGBColorSpace;
  atlas.anisotropy = 4;
  if (own && hasShaders(own)) {
    // The theme draws its dice itself: its textures and uniforms go to its shaders, models included.
    const material = themeShaderMaterial(own, { faceMap: atlas, body, number, textures });
    const model = assets.meshes.has(dieId) ? modelFor(assets, dieId, shape, scale, shaderModelMaterial(material, textures.get('map'))) : null;
    const kind: DieKind = { shape, scale, geometry, material, model, faceTexts, ...physicsOf(own, dieId) };
    ofTheme.set(key, kind);
    return kind;
  }
  const material = new MeshStandardMaterial({ map: atlas, roughness: 0.5, metalness: 0.05, flatShading: true });
  for (const binding of MAPS) {
    const image = textures.get(binding);
    if (!image) continue;
    const texture = new Texture(image);
    texture.flipY = false;
    if (binding === 'emissiveMap') {
      texture.colorSpace = SRGBColorSpace;
      material.emissive.set('#ffffff');
    }
    texture.needsUpdate = true;
    material[binding] = texture;
  }
  const model = own && assets.meshes.has(dieId) ? modelFor(assets, dieId, shape, scale, modelMaterial(material, body, textures.get('map'))) : null;
  const kind: DieKind = { shape, scale, geometry, material, model, faceTexts, ...physicsOf(own, dieId) };
  ofTheme.set(key, kind);
  return kind;
}

/** Forget the looks made of a theme (its shaders failed: it is drawn in the built-in look from now on). */
export function forgetKinds(assets: ThemeAssets) {
  kinds.delete(assets);
}

/**
 * Free what the looks made of a theme hold on the GPU (geometries, face atlases, materials) and forget
 * them: the editor's preview makes new looks at every change and lets the old ones go. Models' own
 * geometry belongs to the loaded theme and stays.
 */
export function disposeKinds(assets: ThemeAssets) {
  for (const kind of kinds.get(assets)?.values() ?? []) {
    kind.geometry.geometry.dispose();
    const material = kind.material;
    if (material instanceof ShaderMaterial) (material.uniforms.u_faceMap?.value as Texture | undefined)?.dispose();
    else material.map?.dispose();
    material.dispose();
  }
  kinds.delete(assets);
}

function physicsOf(own: ThemeAssets['theme'], dieId: string): { weight?: number; inertia?: number } {
  const weight = Number(own?.physics?.weight?.[dieId]);
  const inertia = Number(own?.physics?.inertia?.[dieId]);
  return { weight: Number.isFinite(weight) ? weight : undefined, inertia: Number.isFinite(inertia) ? inertia : undefined };
}

/** A model drawn with the theme's shaders: its UVs are its own, so `u_faceMap` is the theme's `map` when it has one. */
function shaderModelMaterial(material: ShaderMaterial, map: ImageBitmap | undefined): ShaderMaterial {
  if (!map) return material;
  const copy = material.clone();
  const texture = new Texture(map);
  texture.flipY = false;
  texture.colorSpace = SRGBColorSpace;
  texture.needsUpdate = true;
  copy.uniforms = { ...material.uniforms, u_faceMap: { value: texture } };
  return copy;
}

/** A model's faces come from its own UVs: the theme's `map` as is (no atlas), the other maps shared. */
function modelMaterial(atlasMaterial: MeshStandardMaterial, body: string, map: ImageBitmap | undefined): MeshStandardMaterial {
  const material = atlasMaterial.clone();
  material.color.set(map ? '#ffffff' : body);
  material.map = null;
  if (map) {
    material.map = new Texture(map);
    material.map.flipY = false;
    material.map.colorSpace = SRGBColorSpace;
    material.map.needsUpdate = true;
  }
  return material;
}

/**
 * The theme's model of a die, scaled to the solid's size: its own material when it brings a PBR one (as
 * glTF does), else the die's material. Its faces come from its UVs into the theme's textures, as in dddice.
 */
function modelFor(assets: ThemeAssets, dieId: string, shape: Shape, scale: number, material: MeshStandardMaterial | ShaderMaterial): Object3D | null {
  const source = assets.meshes.get(dieId);
  if (!source) return null;
  const model = source.clone(true);
  model.traverse((o) => {
    const mesh = o as Mesh;
    if (!mesh.isMesh) return;
    const own = mesh.material as MeshStandardMaterial;
    if (!(own && 'metalness' in own)) mesh.material = material;
  });
  // As large as the solid: the largest side of its box as the solid's (FBX files come in any unit).
  const extent = (b: Box3) => Math.max(...b.getSize(new Vector3()).toArray());
  const solid = extent(new Box3().setFromPoints(shape.vertices.map(([x, y, z]) => new Vector3(x, y, z).multiplyScalar(scale))));
  const own = extent(new Box3().setFromObject(model));
  if (own > 0) model.scale.multiplyScalar(solid / own);
  // Centred on the die's body: the physics turns the solid about its centre.
  const centre = new Box3().setFromObject(model).getCenter(new Vector3());
  const holder = new Group();
  model.position.sub(centre);
  holder.add(model);
  return holder;
}
