/**
 * A theme's own shaders (`frag_shader`, `vert_shader`): a three.js `ShaderMaterial` with the theme's
 * uniforms and textures bound by name, plus the few standard uniforms the board gives every theme
 * shader (docs/board.md, "Custom shaders"). A theme gives one or both; the one left out is the board's
 * default below, which draws the die as the built-in look does (its face atlas, lit by the sun).
 *
 * Shaders are checked before a die is drawn with them (shaderCheck.ts): compiled and linked ahead on
 * the renderer that will draw them, their diagnostics read back (`shaderDiagnostics` here, also what an
 * editor shows), their cost probed. One that fails makes its theme fall back to the built-in look, with
 * one message.
 */
import {
  Color,
  Mesh,
  OrthographicCamera,
  PlaneGeometry,
  Scene,
  ShaderMaterial,
  SRGBColorSpace,
  Texture,
  Vector3,
  Vector4,
  WebGLRenderer,
  type IUniform,
} from 'three';
import type { Theme } from '../../client';
import { MAX_TEXT_BYTES } from '../../themes/manifest/limits';

/** Where the table's sun shines from (stage.ts puts its directional light there, aimed at the centre). */
export const SUN_POSITION = new Vector3(-3, 12, 5);

/**
 * The default vertex shader, used when a theme gives only a fragment shader. Its varyings are the
 * contract a theme's fragment shader can rely on; a theme's vertex shader used with the default fragment
 * shader must write `vUv` and `vNormal`.
 */
export const DEFAULT_VERTEX_SHADER = `varying vec2 vUv;
varying vec3 vNormal;
varying vec3 vPosition;
void main() {
  vUv = uv;
  vNormal = normalize(mat3(modelMatrix) * normal);
  vec4 world = modelMatrix * vec4(position, 1.0);
  vPosition = world.xyz;
  gl_Position = projectionMatrix * viewMatrix * world;
}
`;

/** The default fragment shader, used when a theme gives only a vertex shader: the built-in look, lit. */
export const DEFAULT_FRAGMENT_SHADER = `uniform sampler2D u_faceMap;
uniform vec3 u_lightDirection;
uniform float opacity;
varying vec2 vUv;
varying vec3 vNormal;
void main() {
  vec4 face = texture2D(u_faceMap, vUv);
  float light = 0.6 + 0.55 * max(dot(normalize(vNormal), u_lightDirection), 0.0);
  gl_FragColor = vec4(face.rgb * light, face.a * opacity);
  #include <colorspace_fragment>
}
`;

/**
 * Names a theme cannot bind: three's own uniforms of every ShaderMaterial (a theme value there would be
 * uploaded into a matrix) and the standard ones the board sets. `diffuse` and `number` are standard too,
 * but a theme's uniform of that name is meant as the same thing and wins.
 */
const RESERVED = new Set([
  'modelMatrix',
  'modelViewMatrix',
  'projectionMatrix',
  'viewMatrix',
  'normalMatrix',
  'cameraPosition',
  'isOrthographic',
  'u_faceMap',
  'u_time',
  'u_lightDirection',
  'opacity',
]);

/** Textures holding data rather than colours: sampled as they are stored (no sRGB decoding). */
const DATA_TEXTURES = new Set(['normalMap', 'roughnessMap', 'metalnessMap', 'bumpMap', 'aoMap', 'alphaMap', 'displacementMap', 'u_valueMap']);

/**
 * Seconds since the page loaded, shared by every theme shader (one object: clones keep it). The board
 * draws frames only while dice move, so a shader cannot animate a table at rest.
 */
const TIME: IUniform<number> = { value: 0 };

export function setShaderTime(seconds: number) {
  TIME.value = seconds;
}

const HEX = /^#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;

const source = (text: unknown): string | null => (typeof text === 'string' && text.trim() !== '' ? text : null);

/** Whether a theme brings a shader of its own. */
export function hasShaders(theme: Theme | null | undefined): theme is Theme {
  return Boolean(theme && (source(theme.frag_shader) || source(theme.vert_shader)));
}

/** What the theme shader of one die is given, besides the theme's uniforms. */
export interface ShaderLook {
  /** the die's face atlas (body colour, values), as the built-in look draws it */
  faceMap: Texture;
  /** body and number colours, CSS */
  body: string;
  number: string;
  /** the die's textures by binding (a texture's `src` per die already chosen) */
  textures: Map<string, ImageBitmap>;
}

/** A manifest uniform as three binds it, or null for a value of the wrong shape (left unbound). */
function uniformValue(uniform: Record<string, unknown>): IUniform | null {
  const value = uniform.value;
  const numbers = (n: number): number[] | null => {
    const list = Array.isArray(value)
      ? value
      : value && typeof value === 'object'
        ? ['x', 'y', 'z', 'w'].slice(0, n).map((k) => (value as Record<string, unknown>)[k])
        : null;
    return list && list.length === n && list.every((x) => typeof x === 'number' && Number.isFinite(x)) ? (list as number[]) : null;
  };
  switch (uniform.type) {
    case 'f':
      return typeof value === 'number' && Number.isFinite(value) ? { value } : null;
    case 'color': {
      // Hex is sRGB (three converts it to its linear working space); arrays and {r,g,b} are linear already.
      if (typeof value === 'string')
        return HEX.test(value) ? { value: new Color(value.length === 5 ? value.slice(0, 4) : value.length === 9 ? value.slice(0, 7) : value) } : null;
      const rgb = Array.isArray(value)
        ? numbers(3)
        : value && typeof value === 'object'
          ? ['r', 'g', 'b'].map((k) => (value as Record<string, unknown>)[k])
          : null;
      return rgb && rgb.every((x) => typeof x === 'number' && Number.isFinite(x)) ? { value: new Color().setRGB(...(rgb as [number, number, number])) } : null;
    }
    case 'vec3': {
      const v = numbers(3);
      return v ? { value: new Vector3(...v) } : null;
    }
    case 'vec4': {
      const v = numbers(4);
      return v ? { value: new Vector4(...v) } : null;
    }
    default:
      return null;
  }
}

function boundTexture(binding: string, image: ImageBitmap): Texture {
  const texture = new Texture(image);
  // As the board's other theme textures: ImageBitmaps are not flipped.
  texture.flipY = false;
  if (!DATA_TEXTURES.has(binding)) texture.colorSpace = SRGBColorSpace;
  texture.needsUpdate = true;
  return texture;
}

/** The material of a die drawn with its theme's shaders. */
export function themeShaderMaterial(theme: Theme, look: ShaderLook): ShaderMaterial {
  const uniforms: Record<string, IUniform> = {
    u_faceMap: { value: look.faceMap },
    u_time: TIME,
    u_lightDirection: { value: SUN_POSITION.clone().normalize() },
    diffuse: { value: new Color(look.body) },
    number: { value: new Color(look.number) },
    opacity: { value: 1 },
  };
  for (const [name, uniform] of Object.entries(theme.uniforms ?? {})) {
    if (RESERVED.has(name) || !uniform || typeof uniform !== 'object') continue;
    const bound = uniformValue(uniform);
    if (bound) uniforms[name] = bound;
  }
  for (const [binding, image] of look.textures) {
    if (!RESERVED.has(binding)) uniforms[binding] = { value: boundTexture(binding, image) };
  }
  const material = new ShaderMaterial({
    name: `theme ${theme.id}`,
    uniforms,
    vertexShader: source(theme.vert_shader) ?? DEFAULT_VERTEX_SHADER,
    fragmentShader: source(theme.frag_shader) ?? DEFAULT_FRAGMENT_SHADER,
  });
  return material;
}

/** A copy of a theme shader material faded to `opacity` (a dropped die), sharing the clock. */
export function fadedShaderMaterial(material: ShaderMaterial, opacity: number): ShaderMaterial {
  const copy = material.clone();
  // The same uniform objects (textures, clock) but its own opacity: nothing new for the GPU to hold.
  copy.uniforms = { ...material.uniforms, opacity: { value: opacity } };
  copy.transparent = true;
  return copy;
}

/**
 * What the compiler says of shader sources (a theme's `frag_shader`, `vert_shader`, the one left out
 * being the default), with its `uniforms` bound as the board binds them: what an editor shows beside the
 * source. Compiled on `renderer` (the page's own), nothing kept.
 */
export function sourceDiagnostics(
  renderer: WebGLRenderer,
  shaders: { frag_shader?: string | null; vert_shader?: string | null; uniforms?: Theme['uniforms'] },
): ShaderDiagnostic[] {
  const faceMap = new Texture();
  const material = themeShaderMaterial({ id: 'editor', ...shaders } as Theme, { faceMap, body: '#ffffff', number: '#000000', textures: new Map() });
  try {
    return shaderDiagnostics(renderer, material);
  } finally {
    material.dispose();
    faceMap.dispose();
  }
}

/** One problem a shader has: its stage, the line in the theme's source (1-based; null when none), the compiler's words. */
export interface ShaderDiagnostic {
  stage: 'vertex' | 'fragment' | 'program';
  line: number | null;
  message: string;
  severity: 'error' | 'warning';
}

/** What three keeps of a compiled program (WebGLProgram.js; not in its type declarations). */
interface ProgramDiagnostics {
  runnable: boolean;
  programLog: string;
  vertexShader: { log: string; prefix: string };
  fragmentShader: { log: string; prefix: string };
}

let probeScene: { scene: Scene; mesh: Mesh; camera: OrthographicCamera } | null = null;

/** ANGLE's and most drivers' log lines: `ERROR: 0:12: 'foo' : undeclared identifier`. */
const LOG_LINE = /^(ERROR|WARNING):\s*\d+:(\d+):\s*(.*)$/;

function parseLog(log: string, stage: 'vertex' | 'fragment', prefix: string): ShaderDiagnostic[] {
  // three puts `#version 300 es` and its prefix before the source: the theme's line 1 comes after them.
  const offset = 1 + (prefix.match(/\n/g)?.length ?? 0);
  const out: ShaderDiagnostic[] = [];
  for (const raw of log.split('\n')) {
    const text = raw.replace(/\0/g, '').trim();
    if (!text) continue;
    const m = LOG_LINE.exec(text);
    if (!m) {
      out.push({ stage, line: null, message: text, severity: /warning/i.test(text) ? 'warning' : 'error' });
      continue;
    }
    const line = Number(m[2]) - offset;
    out.push({ stage, line: line >= 1 ? line : null, message: m[3]!.trim(), severity: m[1] === 'WARNING' ? 'warning' : 'error' });
  }
  return out;
}

/**
 * Compiles and links `material` on `renderer` now (three's program cache keeps the result, so drawing
 * with it afterwards costs nothing more) and answers what the compiler said, line numbers counted in the
 * theme's own source. Empty: the shaders are fine. An `error` means the material cannot draw. (Lines
 * after an `#include <chunk>` count the chunk's lines too: the compiler sees it expanded.)
 */
export function shaderDiagnostics(renderer: WebGLRenderer, material: ShaderMaterial): ShaderDiagnostic[] {
  if (!probeScene) {
    const scene = new Scene();
    const mesh = new Mesh(new PlaneGeometry(1, 1));
    scene.add(mesh);
    probeScene = { scene, mesh, camera: new OrthographicCamera() };
  }
  const { scene, mesh, camera } = probeScene;
  mesh.material = material;
  // three writes its own console error for a failed program unless someone listens: the board says it once instead.
  const previous = renderer.debug.onShaderError;
  renderer.debug.onShaderError = () => {};
  try {
    renderer.compile(scene, camera);
    const program = (renderer.properties.get(material) as { currentProgram?: { getUniforms(): unknown; diagnostics?: ProgramDiagnostics } }).currentProgram;
    if (!program) return [{ stage: 'program', line: null, message: 'the shaders were not compiled', severity: 'error' }];
    // Reading the program's uniforms makes three wait for the link and record its diagnostics.
    program.getUniforms();
    const d = program.diagnostics;
    if (!d) return [];
    const found = [...parseLog(d.vertexShader.log, 'vertex', d.vertexShader.prefix), ...parseLog(d.fragmentShader.log, 'fragment', d.fragmentShader.prefix)];
    if (!d.runnable && !found.some((f) => f.severity === 'error')) {
      found.push({ stage: 'program', line: null, message: d.programLog || 'the shaders do not link', severity: 'error' });
    }
    return found;
  } finally {
    renderer.debug.onShaderError = previous;
    mesh.material = [];
  }
}

/** Why a theme's shader sources are refused before any compiler sees them, or null. */
export function shaderSourceProblem(theme: Theme): string | null {
  for (const [field, text] of [
    ['frag_shader', theme.frag_shader],
    ['vert_shader', theme.vert_shader],
  ] as const) {
    if (typeof text === 'string' && new TextEncoder().encode(text).length > MAX_TEXT_BYTES) return `its ${field} is over ${MAX_TEXT_BYTES / 1024} KiB`;
  }
  return null;
}

/** A one-line summary of what failed, for the page's message. */
export function describeFailure(diagnostics: ShaderDiagnostic[]): string {
  const first = diagnostics.find((d) => d.severity === 'error');
  if (!first) return 'its shader does not compile';
  if (first.stage === 'program') return `its shaders do not link: ${first.message.slice(0, 120)}`;
  return `its ${first.stage} shader does not compile: ${first.line ? `line ${first.line}: ` : ''}${first.message.slice(0, 120)}`;
}
