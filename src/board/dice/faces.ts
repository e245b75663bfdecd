/**
 * The face atlas of a die: one canvas with a tile per face (as Dice So Nice draws its labels), filled
 * with the body colour (or the theme's `map` texture), the face's value on it in the number colour:
 * text (any string) or an image. The die's UVs (geometry.ts) put each tile on its face. A d4 carries on
 * each face the values of its three corners, the one at the top corner being the roll.
 */
import { faceOppositeVertex, type Shape } from './shapes';
import type { DieGeometry } from './geometry';

/** What one face shows: text, an image, or nothing (a die hidden from this viewer). */
export type FaceArt = { text: string } | { image: CanvasImageSource } | null;

export interface AtlasLook {
  body: string;
  number: string;
  /** the theme's `map` texture: the whole die's surface, under the values */
  map?: CanvasImageSource | null;
  /** `uniforms.diffuse` given with a map: tints it */
  tintMap?: boolean;
}

export function faceAtlas(shape: Shape, dg: DieGeometry, faces: FaceArt[], look: AtlasLook): HTMLCanvasElement {
  const columns = dg.columns;
  const rows = Math.ceil((shape.valued + 1) / columns);
  const size = shape.valued > 8 ? 1024 : 512;
  const tile = size / columns;
  const canvas = document.createElement('canvas');
  canvas.width = size;
  canvas.height = Math.round(tile * rows);
  const ctx = canvas.getContext('2d')!;
  ctx.fillStyle = look.body;
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  if (look.map) {
    if (look.tintMap) ctx.globalCompositeOperation = 'multiply';
    for (let t = 0; t <= shape.valued; t++) ctx.drawImage(look.map, (t % columns) * tile, Math.floor(t / columns) * tile, tile, tile);
    ctx.globalCompositeOperation = 'source-over';
  }
  ctx.fillStyle = look.number;
  ctx.strokeStyle = look.number;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  for (let f = 0; f < shape.valued; f++) {
    const layout = dg.layouts[f]!;
    const cx = (f % columns) * tile + tile / 2;
    const cy = Math.floor(f / columns) * tile + tile / 2;
    const rho = layout.inner * 0.48 * tile;
    if (shape.reads === 'bottom') {
      for (const corner of layout.corners) {
        const art = faces[faceOppositeVertex(shape, corner.vertex)] ?? null;
        const angle = Math.atan2(corner.x, corner.y);
        ctx.save();
        ctx.translate(cx + corner.x * 0.48 * tile * 0.5, cy - corner.y * 0.48 * tile * 0.5);
        ctx.rotate(angle);
        drawArt(ctx, art, rho * 0.55);
        ctx.restore();
      }
      continue;
    }
    ctx.save();
    ctx.translate(cx, cy);
    drawArt(ctx, faces[f] ?? null, rho);
    ctx.restore();
  }
  return canvas;
}

/** One value centred on the origin, fitting a circle of radius `rho`. */
function drawArt(ctx: CanvasRenderingContext2D, art: FaceArt, rho: number) {
  if (!art) return;
  if ('image' in art) {
    const box = rho * 1.45;
    const { width, height } = art.image as { width: number; height: number };
    const k = Math.min(box / (width || 1), box / (height || 1));
    ctx.drawImage(art.image, (-width * k) / 2, (-height * k) / 2, width * k, height * k);
    return;
  }
  const text = art.text.length > 12 ? `${art.text.slice(0, 11)}…` : art.text;
  let px = rho * 1.15;
  ctx.font = `700 ${px}px system-ui, -apple-system, "Segoe UI", sans-serif`;
  const width = ctx.measureText(text).width;
  if (width > rho * 1.7) {
    px = (px * rho * 1.7) / width;
    ctx.font = `700 ${px}px system-ui, -apple-system, "Segoe UI", sans-serif`;
  }
  ctx.fillText(text, 0, px * 0.05);
  // 6 and 9 look alike upside down: underline them, as real dice do.
  if (text === '6' || text === '9') {
    ctx.lineWidth = Math.max(2, px * 0.07);
    ctx.beginPath();
    ctx.moveTo(-px * 0.25, px * 0.5);
    ctx.lineTo(px * 0.25, px * 0.5);
    ctx.stroke();
  }
}
