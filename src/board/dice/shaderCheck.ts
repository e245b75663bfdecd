/**
 * A theme's shaders checked on the renderer that will draw them, before any die is drawn with them: a
 * theme whose shaders are too large, do not compile or link on this viewer's GPU, or are so heavy that
 * a frame of the table would take seconds, is drawn in the built-in look from then on (themes.ts
 * failTheme: one message naming the theme), and the page goes on. Checked once per loaded theme and
 * renderer: three keeps the compiled program, so the dice drawn next reuse it.
 */
import { Mesh, OrthographicCamera, PlaneGeometry, Scene, WebGLRenderTarget, type ShaderMaterial, type WebGLRenderer } from 'three';
import { dieKind, forgetKinds } from './materials';
import { describeFailure, hasShaders, shaderDiagnostics, shaderSourceProblem } from './shaders';
import { failTheme, type ThemeAssets } from './themes';

/** The probe draws the shader on PROBE × PROBE pixels; a die on the table covers some 15 to 60 times more, a roll of many dice thousands. */
const PROBE = 16;
/** At or above this for the probe, a frame of the table would take seconds: the theme is too heavy here. */
export const HEAVY_MS = 50;
/** Probes at most, apart in time: the fastest counts (another tab's GPU work or a busy CPU can stall one). */
const RUNS = 3;
const APART_MS = 60;

const checked = new WeakMap<WebGLRenderer, WeakMap<ThemeAssets, Promise<boolean>>>();
/**
 * Shader sources (fragment and vertex) whose probe passed on a renderer: not probed again there. The
 * editor's preview checks its draft at every change (a new ThemeAssets each time); a colour or a slider
 * changes no source, and probing again would only add chances for a busy machine to stall one probe.
 */
const fastSources = new WeakMap<WebGLRenderer, Set<string>>();
/** For tests and the curious: how long the last probe took (ms). */
export const shaderProbe = { lastMs: 0 };

/**
 * Milliseconds the GPU takes to draw `material` over PROBE × PROBE pixels (waited for by reading them
 * back), once the program is warm: the fastest of up to RUNS draws, a while apart, stopping at the first
 * one under HEAVY_MS.
 */
export async function shaderProbeMs(renderer: WebGLRenderer, material: ShaderMaterial): Promise<number> {
  const target = new WebGLRenderTarget(PROBE, PROBE);
  const geometry = new PlaneGeometry(2, 2);
  const scene = new Scene();
  scene.add(new Mesh(geometry, material));
  const camera = new OrthographicCamera(-1, 1, 1, -1, 0.1, 10);
  camera.position.z = 1;
  const warm = new WebGLRenderTarget(1, 1);
  const pixels = new Uint8Array(PROBE * PROBE * 4);
  const draw = (into: WebGLRenderTarget, size: number) => {
    const previous = renderer.getRenderTarget();
    renderer.setRenderTarget(into);
    try {
      renderer.render(scene, camera);
      renderer.readRenderTargetPixels(into, 0, 0, size, size, pixels);
    } finally {
      renderer.setRenderTarget(previous);
    }
  };
  let best = Infinity;
  try {
    // One pixel first, untimed: drivers (SwiftShader too) finish compiling a program at its first draw.
    draw(warm, 1);
    for (let i = 0; i < RUNS && best >= HEAVY_MS; i++) {
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, APART_MS));
      const started = performance.now();
      draw(target, PROBE);
      best = Math.min(best, performance.now() - started);
    }
  } finally {
    target.dispose();
    warm.dispose();
    geometry.dispose();
  }
  shaderProbe.lastMs = best;
  return best;
}

/** True when the theme may be drawn as it is (with its shaders, or it has none); checked once per renderer. */
export function verifyThemeShaders(renderer: WebGLRenderer, assets: ThemeAssets): Promise<boolean> {
  if (assets.failed || !hasShaders(assets.theme)) return Promise.resolve(!assets.failed);
  let seen = checked.get(renderer);
  if (!seen) checked.set(renderer, (seen = new WeakMap()));
  let verdict = seen.get(assets);
  if (!verdict) seen.set(assets, (verdict = verify(renderer, assets)));
  return verdict;
}

async function verify(renderer: WebGLRenderer, assets: ThemeAssets): Promise<boolean> {
  const theme = assets.theme!;
  let reason = shaderSourceProblem(theme);
  if (!reason) {
    // Any die of the theme will do: they share the sources, only uniform values and textures differ.
    const first = theme.available_dice?.[0];
    const dieId = typeof first === 'string' ? first : (first?.id ?? 'd6');
    const material = dieKind(assets, dieId, false).material as ShaderMaterial;
    const diagnostics = shaderDiagnostics(renderer, material);
    if (diagnostics.some((d) => d.severity === 'error')) reason = describeFailure(diagnostics);
    else {
      const sources = `${material.fragmentShader}\0${material.vertexShader}`;
      let fast = fastSources.get(renderer);
      if (!fast) fastSources.set(renderer, (fast = new Set()));
      if (!fast.has(sources)) {
        const ms = await shaderProbeMs(renderer, material);
        if (ms >= HEAVY_MS) reason = `its shader is too heavy for this device: ${Math.round(ms)} ms for ${PROBE * PROBE} pixels`;
        else fast.add(sources);
      }
    }
    if (reason) material.dispose();
  }
  if (!reason) return true;
  forgetKinds(assets);
  failTheme(assets, reason);
  return false;
}
