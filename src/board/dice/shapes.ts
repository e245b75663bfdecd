/**
 * The dice's solids, one per physical type, shared by the drawing (three.js) and the throw (cannon-es):
 * vertices, faces as convex polygons wound outwards, and which faces carry the die's values in the
 * theme's face order (face i shows `values[dieId][i]`, the roll's value i + 1).
 *
 * Faces are found from the vertices (every plane that leaves all vertices on one side), so a shape is
 * only its vertex list and can never miss a face (the d10's ten kites are ten planar faces).
 */
export type Vec = [number, number, number];

export interface Shape {
  type: string;
  vertices: Vec[];
  /** polygons of vertex indices, counter-clockwise seen from outside; the first `valued` carry values */
  faces: number[][];
  /** how many faces carry values (the coin's rim does not) */
  valued: number;
  /** where the rolled face ends: on top, or (d4) on the table, its value read at the top corner */
  reads: 'top' | 'bottom';
  /** circumradius of the vertices: the die's size on the table follows it */
  radius: number;
}

/** The types a die can take its shape from; any other die id is drawn and thrown as a d6. */
export const SHAPED_TYPES = ['d2', 'd4', 'd6', 'd8', 'd10', 'd10x', 'd12', 'd16', 'd20'] as const;

const sub = (a: Vec, b: Vec): Vec => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const dot = (a: Vec, b: Vec) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a: Vec, b: Vec): Vec => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const norm = (a: Vec): Vec => {
  const l = Math.hypot(a[0], a[1], a[2]) || 1;
  return [a[0] / l, a[1] / l, a[2] / l];
};

export function centroid(shape: Shape, face: number[]): Vec {
  const c: Vec = [0, 0, 0];
  for (const i of face) for (let k = 0; k < 3; k++) c[k] += shape.vertices[i]![k]! / face.length;
  return c;
}

export function faceNormal(shape: Shape, face: number[]): Vec {
  const [a, b, c] = face.map((i) => shape.vertices[i]!) as [Vec, Vec, Vec];
  return norm(cross(sub(b, a), sub(c, a)));
}

/** Every face of the convex hull of `vertices` (a point set centred on the origin), wound outwards. */
function hullFaces(vertices: Vec[]): number[][] {
  const eps = 1e-6;
  const faces: number[][] = [];
  const seen = new Set<string>();
  const n = vertices.length;
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++)
      for (let k = j + 1; k < n; k++) {
        const normal = cross(sub(vertices[j]!, vertices[i]!), sub(vertices[k]!, vertices[i]!));
        if (Math.hypot(...normal) < eps) continue;
        let nn = norm(normal);
        let d = dot(nn, vertices[i]!);
        if (d < 0) {
          nn = [-nn[0], -nn[1], -nn[2]];
          d = -d;
        }
        if (vertices.some((v) => dot(nn, v) > d + eps)) continue;
        const on = vertices.map((v, idx) => (Math.abs(dot(nn, v) - d) < 1e-5 ? idx : -1)).filter((idx) => idx >= 0);
        const key = on.join(',');
        if (seen.has(key)) continue;
        seen.add(key);
        // Order the polygon counter-clockwise around its normal.
        const c = on.reduce<Vec>(
          (acc, idx) => [acc[0] + vertices[idx]![0] / on.length, acc[1] + vertices[idx]![1] / on.length, acc[2] + vertices[idx]![2] / on.length],
          [0, 0, 0],
        );
        const u = norm(sub(vertices[on[0]!]!, c));
        const w = cross(nn, u);
        on.sort(
          (p, q) =>
            Math.atan2(dot(sub(vertices[p]!, c), w), dot(sub(vertices[p]!, c), u)) - Math.atan2(dot(sub(vertices[q]!, c), w), dot(sub(vertices[q]!, c), u)),
        );
        faces.push(on);
      }
  return faces;
}

/**
 * Face order: opposite faces carry values that add up to sides + 1 (1 opposite 6 on a d6, 1 opposite 20
 * on a d20), as on real dice; faces with no opposite (d4) in order of their normal.
 */
function orderFaces(vertices: Vec[], faces: number[][]): number[][] {
  const shape = { vertices } as Shape;
  const normals = faces.map((f) => faceNormal(shape, f));
  const byHeight = faces
    .map((_, i) => i)
    .sort((a, b) => normals[b]![1] - normals[a]![1] || Math.atan2(normals[a]![2], normals[a]![0]) - Math.atan2(normals[b]![2], normals[b]![0]));
  const order = new Array<number | undefined>(faces.length);
  let next = 0;
  for (const f of byHeight) {
    if (order.includes(f)) continue;
    const opposite = byHeight.find((g) => g !== f && !order.includes(g) && dot(normals[g]!, normals[f]!) < -0.999);
    if (opposite === undefined) {
      order[order.findIndex((x) => x === undefined)] = f;
      continue;
    }
    order[next] = f;
    order[faces.length - 1 - next] = opposite;
    next++;
  }
  return order.map((f) => faces[f!]!);
}

/** Kite-faced trapezohedron (d10: n = 5, d16: n = 8): apexes at ±h, a zigzag ring at ±a. */
function trapezohedron(n: number, a: number): Vec[] {
  const c = Math.cos(Math.PI / n);
  const h = (a * (1 + c)) / (1 - c);
  const ring: Vec[] = Array.from({ length: 2 * n }, (_, i) => [Math.cos((i * Math.PI) / n), i % 2 === 0 ? a : -a, Math.sin((i * Math.PI) / n)]);
  return [[0, h, 0], [0, -h, 0], ...ring];
}

function prism(n: number, halfHeight: number): Vec[] {
  const out: Vec[] = [];
  for (const y of [halfHeight, -halfHeight]) for (let i = 0; i < n; i++) out.push([Math.cos((2 * Math.PI * i) / n), y, Math.sin((2 * Math.PI * i) / n)]);
  return out;
}

const PHI = (1 + Math.sqrt(5)) / 2;

function vertexList(type: string): Vec[] {
  const signs = [1, -1];
  switch (type) {
    case 'd2':
      return prism(20, 0.14);
    case 'd4':
      return [
        [1, 1, 1],
        [1, -1, -1],
        [-1, 1, -1],
        [-1, -1, 1],
      ];
    case 'd8':
      return [
        [1, 0, 0],
        [-1, 0, 0],
        [0, 1, 0],
        [0, -1, 0],
        [0, 0, 1],
        [0, 0, -1],
      ];
    case 'd10':
    case 'd10x':
      return trapezohedron(5, 0.105);
    case 'd16':
      return trapezohedron(8, 0.04);
    case 'd12': {
      const v: Vec[] = [];
      for (const x of signs) for (const y of signs) for (const z of signs) v.push([x, y, z]);
      for (const s of signs) for (const t of signs) v.push([0, s / PHI, t * PHI], [s / PHI, t * PHI, 0], [s * PHI, 0, t / PHI]);
      return v;
    }
    case 'd20': {
      const v: Vec[] = [];
      for (const s of signs) for (const t of signs) v.push([0, s, t * PHI], [s, t * PHI, 0], [s * PHI, 0, t]);
      return v;
    }
    default: {
      const v: Vec[] = [];
      for (const x of signs) for (const y of signs) for (const z of signs) v.push([x, y, z]);
      return v;
    }
  }
}

/** Radius on the table, relative to a d6's half-diagonal: what makes a set of dice look even. */
const SCALE: Record<string, number> = { d2: 0.95, d4: 1.1, d6: 1, d8: 1.0, d10: 1.0, d10x: 1.0, d12: 1.0, d16: 1.05, d20: 1.05 };

const shapes = new Map<string, Shape>();

/** The solid of a physical type (built once), with radius `scale` × its relative size. */
export function shapeOf(type: string): Shape {
  const key = (SHAPED_TYPES as readonly string[]).includes(type) ? type : 'd6';
  const cached = shapes.get(key);
  if (cached) return cached;
  const raw = vertexList(key);
  const r = Math.max(...raw.map((v) => Math.hypot(...v)));
  const vertices = raw.map((v) => v.map((x) => (x / r) * SCALE[key]!) as Vec);
  let faces = orderFaces(vertices, hullFaces(vertices));
  let valued = faces.length;
  if (key === 'd2') {
    // The coin: its two caps carry the values, its rim none.
    const caps = faces.filter((f) => f.length > 4);
    faces = [...caps, ...faces.filter((f) => f.length <= 4)];
    valued = 2;
  }
  const shape: Shape = { type: key, vertices, faces, valued, reads: key === 'd4' ? 'bottom' : 'top', radius: SCALE[key]! };
  shapes.set(key, shape);
  return shape;
}

/** For a d4: the face a vertex stands over (the one face not touching it). */
export function faceOppositeVertex(shape: Shape, vertex: number): number {
  return shape.faces.findIndex((f) => !f.includes(vertex));
}
