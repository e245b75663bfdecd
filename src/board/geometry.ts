/**
 * The dice's shapes and textures for the 3D table (dice3d.ts): one geometry per die type, built once,
 * and the canvas textures of values and shadows.
 */
import {
  BoxGeometry, BufferGeometry, CanvasTexture, CylinderGeometry, DodecahedronGeometry, Float32BufferAttribute, IcosahedronGeometry,
  OctahedronGeometry, SRGBColorSpace, TetrahedronGeometry, Vector3,
} from 'three';

/** A die's size on the table: the shapes, the spread of a throw and the resting height follow it. */
export const SIZE = 0.7;

/** A pentagonal (n = 5) or other trapezohedron with planar kite faces: the d10 (and a stand-in d16). */
function trapezohedron(n: number, radius: number): BufferGeometry {
  const c = Math.cos(Math.PI / n);
  const a = n === 5 ? 0.105 : 0.04;
  const h = (a * (1 + c)) / (1 - c);
  const ring: Vector3[] = [];
  for (let i = 0; i < 2 * n; i++) {
    const angle = (i * Math.PI) / n;
    ring.push(new Vector3(Math.cos(angle), i % 2 === 0 ? a : -a, Math.sin(angle)));
  }
  const top = new Vector3(0, h, 0);
  const bottom = new Vector3(0, -h, 0);
  const positions: number[] = [];
  const tri = (p: Vector3, q: Vector3, r: Vector3) => positions.push(p.x, p.y, p.z, q.x, q.y, q.z, r.x, r.y, r.z);
  for (let k = 0; k < n; k++) {
    const u0 = ring[2 * k]!, l = ring[2 * k + 1]!, u1 = ring[(2 * k + 2) % (2 * n)]!;
    tri(top, l, u0);
    tri(top, u1, l);
    const l0 = ring[2 * k + 1]!, u = ring[(2 * k + 2) % (2 * n)]!, l1 = ring[(2 * k + 3) % (2 * n)]!;
    tri(bottom, u, l0);
    tri(bottom, l1, u);
  }
  const geometry = new BufferGeometry();
  geometry.setAttribute('position', new Float32BufferAttribute(positions, 3));
  const scale = radius / Math.max(h, 1);
  geometry.scale(scale * 1.15, scale * 1.15, scale * 1.15);
  geometry.computeVertexNormals();
  return geometry;
}

const geometries = new Map<string, BufferGeometry>();

export function geometryFor(type: string): BufferGeometry {
  const shape = /^d(2|4|6|8|10x?|12|16|20)$/.test(type) ? type : 'd6';
  let g = geometries.get(shape);
  if (g) return g;
  switch (shape) {
    case 'd2':
      g = new CylinderGeometry(SIZE, SIZE, SIZE * 0.25, 28);
      break;
    case 'd4':
      g = new TetrahedronGeometry(SIZE * 1.25);
      break;
    case 'd6':
      g = new BoxGeometry(SIZE * 1.3, SIZE * 1.3, SIZE * 1.3);
      break;
    case 'd8':
      g = new OctahedronGeometry(SIZE * 1.1);
      break;
    case 'd10':
    case 'd10x':
      g = trapezohedron(5, SIZE);
      break;
    case 'd12':
      g = new DodecahedronGeometry(SIZE * 1.05);
      break;
    case 'd16':
      g = trapezohedron(8, SIZE);
      break;
    default:
      g = new IcosahedronGeometry(SIZE * 1.1);
  }
  geometries.set(shape, g);
  return g;
}

/** The value as a texture: large, outlined digits readable on any die colour. */
export function labelTexture(text: string, dimmed: boolean, secret: boolean): CanvasTexture {
  const canvas = document.createElement('canvas');
  canvas.width = 256;
  canvas.height = 256;
  const ctx = canvas.getContext('2d')!;
  const shown = text.length > 6 ? `${text.slice(0, 5)}…` : text;
  const size = shown.length <= 2 ? 150 : shown.length <= 4 ? 100 : 64;
  ctx.font = `800 ${size}px system-ui, -apple-system, "Segoe UI", sans-serif`;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.lineJoin = 'round';
  ctx.lineWidth = 18;
  ctx.strokeStyle = 'rgba(10, 12, 16, 0.9)';
  ctx.strokeText(shown, 128, 136);
  ctx.fillStyle = dimmed ? '#b7bcc6' : '#ffffff';
  ctx.fillText(shown, 128, 136);
  if (secret) {
    // A hidden die its roller may see: a dashed ring says "only you see this".
    ctx.setLineDash([18, 14]);
    ctx.lineWidth = 10;
    ctx.strokeStyle = 'rgba(255, 255, 255, 0.9)';
    ctx.beginPath();
    ctx.arc(128, 128, 112, 0, Math.PI * 2);
    ctx.stroke();
  }
  const texture = new CanvasTexture(canvas);
  texture.colorSpace = SRGBColorSpace;
  return texture;
}

/** A soft round shadow under each die (cheaper than shadow maps on software GL). */
export function shadowTexture(): CanvasTexture {
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 64;
  const ctx = canvas.getContext('2d')!;
  const gradient = ctx.createRadialGradient(32, 32, 4, 32, 32, 32);
  gradient.addColorStop(0, 'rgba(0,0,0,0.55)');
  gradient.addColorStop(1, 'rgba(0,0,0,0)');
  ctx.fillStyle = gradient;
  ctx.fillRect(0, 0, 64, 64);
  return new CanvasTexture(canvas);
}
