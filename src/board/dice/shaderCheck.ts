/**
 * A theme's shaders checked on the renderer that will draw them, before any die is drawn with them: a
 * theme whose shaders are too large, or do not compile or link on this viewer's GPU, is drawn in the
 * built-in look from then on (themes.ts failTheme: one message naming the theme), and the page goes on.
 * Checked once per loaded theme: three keeps the compiled program, so the dice drawn next reuse it.
 */
import type { WebGLRenderer } from 'three';
import { dieKind, forgetKinds } from './materials';
import { describeFailure, hasShaders, shaderDiagnostics, shaderSourceProblem } from './shaders';
import { failTheme, type ThemeAssets } from './themes';
import type { ShaderMaterial } from 'three';

const checked = new WeakMap<WebGLRenderer, WeakSet<ThemeAssets>>();

/** True when the theme may be drawn as it is (with its shaders, or it has none). */
export function verifyThemeShaders(renderer: WebGLRenderer, assets: ThemeAssets): boolean {
  const theme = assets.theme;
  if (assets.failed || !hasShaders(theme)) return !assets.failed;
  let seen = checked.get(renderer);
  if (!seen) checked.set(renderer, (seen = new WeakSet()));
  if (seen.has(assets)) return true;
  seen.add(assets);
  const tooLarge = shaderSourceProblem(theme);
  let reason = tooLarge;
  if (!reason) {
    // Any die of the theme will do: they share the sources, only uniform values and textures differ.
    const first = theme.available_dice?.[0];
    const dieId = typeof first === 'string' ? first : first?.id ?? 'd6';
    const material = dieKind(assets, dieId, false).material as ShaderMaterial;
    const diagnostics = shaderDiagnostics(renderer, material);
    if (diagnostics.some((d) => d.severity === 'error')) {
      reason = describeFailure(diagnostics);
      material.dispose();
    }
  }
  if (!reason) return true;
  forgetKinds(assets);
  failTheme(assets, reason);
  return false;
}
