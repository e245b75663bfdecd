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
/** Above this for the probe, a frame of the table would take seconds: the theme is too heavy here. */
export const HEAVY_MS = 25;

const checked = new WeakMap<WebGLRenderer, WeakSet<ThemeAssets>>();
/** For tests and the curious: how long the last probe took (ms). */
export const shaderProbe = { lastMs: 0 };

/**
 * Milliseconds the GPU takes to draw `material` over PROBE × PROBE pixels (waited for by reading them
 * back). A slow first draw (textures uploaded then) is drawn again; the faster one counts.
 */
export function shaderProbeMs(renderer: WebGLRenderer, material: ShaderMaterial): number {
  const target = new WebGLRenderTarget(PROBE, PROBE);
  const geometry = new PlaneGeometry(2, 2);
  const scene = new Scene();
  scene.add(new Mesh(geometry, material));
  const camera = new OrthographicCamera(-1, 1, 1, -1, 0.1, 10);
  camera.position.z = 1;
  const pixels = new Uint8Array(PROBE * PROBE * 4);
  const previous = renderer.getRenderTarget();
  let best = Infinity;
  try {
    renderer.setRenderTarget(target);
    for (let i = 0; i < 2 && best >= HEAVY_MS; i++) {
      const started = performance.now();
      renderer.render(scene, camera);
      renderer.readRenderTargetPixels(target, 0, 0, PROBE, PROBE, pixels);
      best = Math.min(best, performance.now() - started);
    }
  } finally {
    renderer.setRenderTarget(previous);
    target.dispose();
    geometry.dispose();
  }
  shaderProbe.lastMs = best;
  return best;
}

/** True when the theme may be drawn as it is (with its shaders, or it has none). */
export function verifyThemeShaders(renderer: WebGLRenderer, assets: ThemeAssets): boolean {
  const theme = assets.theme;
  if (assets.failed || !hasShaders(theme)) return !assets.failed;
  let seen = checked.get(renderer);
  if (!seen) checked.set(renderer, (seen = new WeakSet()));
  if (seen.has(assets)) return true;
  seen.add(assets);
  let reason = shaderSourceProblem(theme);
  if (!reason) {
    // Any die of the theme will do: they share the sources, only uniform values and textures differ.
    const first = theme.available_dice?.[0];
    const dieId = typeof first === 'string' ? first : first?.id ?? 'd6';
    const material = dieKind(assets, dieId, false).material as ShaderMaterial;
    const diagnostics = shaderDiagnostics(renderer, material);
    if (diagnostics.some((d) => d.severity === 'error')) reason = describeFailure(diagnostics);
    else {
      const ms = shaderProbeMs(renderer, material);
      if (ms >= HEAVY_MS) reason = `its shader is too heavy for this device: ${Math.round(ms)} ms for ${PROBE * PROBE} pixels`;
    }
    if (reason) material.dispose();
  }
  if (!reason) return true;
  forgetKinds(assets);
  failTheme(assets, reason);
  return false;
}
