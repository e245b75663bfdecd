/**
 * three.js geometry of a die from its solid (shapes.ts): flat faces, each with UVs into its own tile of
 * the die's face atlas (faces.ts), and the turn that brings one face where another lies (the trick that
 * puts the rolled value on top without changing the throw).
 */
import { BufferGeometry, Float32BufferAttribute, Matrix4, Quaternion, Vector3 } from 'three';
import { centroid, faceNormal, type Shape, type Vec } from './shapes';

/** How a face is drawn in its tile: text up towards `up`, the polygon scaled into the tile. */
export interface FaceLayout {
  /** the face's inscribed radius over its circumradius: how much room text has in the tile */
  inner: number;
  /** d4: where each corner of the face lands in its tile, in tile units (-1..1, y up) */
  corners: { vertex: number; x: number; y: number }[];
}

export interface DieGeometry {
  geometry: BufferGeometry;
  layouts: FaceLayout[];
  /** tiles per row of the atlas; tile `valued` is the blank one of faces without a value */
  columns: number;
}

const v3 = (v: Vec) => new Vector3(v[0], v[1], v[2]);

export function atlasColumns(shape: Shape): number {
  return Math.ceil(Math.sqrt(shape.valued + 1));
}

/** Which way is "up" on a face: the edge's middle for a square, else the vertex farthest out (a kite's tip). */
function faceAxes(shape: Shape, face: number[]) {
  const c = v3(centroid(shape, face));
  const n = v3(faceNormal(shape, face));
  const points = face.map((i) => v3(shape.vertices[i]!));
  const dist = points.map((p) => p.distanceTo(c));
  const r = Math.max(...dist);
  const square =
    face.length === 4 && Math.max(...dist) - Math.min(...dist) < 1e-6 && Math.abs(points[0]!.distanceTo(points[1]!) - points[1]!.distanceTo(points[2]!)) < 1e-6;
  const target = square ? points[0]!.clone().add(points[1]!).multiplyScalar(0.5) : points[dist.indexOf(r)]!;
  const up = target.clone().sub(c).projectOnPlane(n).normalize();
  const right = up.clone().cross(n).normalize();
  let inner = Infinity;
  for (let i = 0; i < points.length; i++) {
    const a = points[i]!,
      b = points[(i + 1) % points.length]!;
    const edge = b.clone().sub(a).normalize();
    const toC = c.clone().sub(a);
    inner = Math.min(inner, toC.sub(edge.multiplyScalar(toC.dot(edge))).length());
  }
  return { c, n, up, right, r, inner: inner / r };
}

/** The geometry of a solid, `scale` × its size, with atlas UVs (built once per type and scale by the caller). */
export function dieGeometry(shape: Shape, scale: number): DieGeometry {
  const columns = atlasColumns(shape);
  const rows = Math.ceil((shape.valued + 1) / columns);
  const positions: number[] = [];
  const normals: number[] = [];
  const uvs: number[] = [];
  const layouts: FaceLayout[] = [];
  shape.faces.forEach((face, f) => {
    const { c, n, up, right, r, inner } = faceAxes(shape, face);
    const tile = f < shape.valued ? f : shape.valued;
    const cu = ((tile % columns) + 0.5) / columns;
    const cv = 1 - (Math.floor(tile / columns) + 0.5) / rows;
    const local = (p: Vector3) => ({ x: p.clone().sub(c).dot(right) / r, y: p.clone().sub(c).dot(up) / r });
    const uvOf = (p: Vector3) => {
      const { x, y } = local(p);
      return [cu + (x * 0.48) / columns, cv + (y * 0.48) / rows];
    };
    if (f < shape.valued) layouts.push({ inner, corners: face.map((i) => ({ vertex: i, ...local(v3(shape.vertices[i]!)) })) });
    const pts = face.map((i) => v3(shape.vertices[i]!));
    for (let k = 1; k + 1 < pts.length; k++) {
      for (const p of [pts[0]!, pts[k]!, pts[k + 1]!]) {
        positions.push(p.x * scale, p.y * scale, p.z * scale);
        normals.push(n.x, n.y, n.z);
        uvs.push(...uvOf(p));
      }
    }
  });
  const geometry = new BufferGeometry();
  geometry.setAttribute('position', new Float32BufferAttribute(positions, 3));
  geometry.setAttribute('normal', new Float32BufferAttribute(normals, 3));
  geometry.setAttribute('uv', new Float32BufferAttribute(uvs, 2));
  geometry.computeBoundingSphere();
  return { geometry, layouts, columns };
}

/** Rotation taking unit frame (a1, a2) to (b1, b2). */
function frameTurn(a1: Vector3, a2: Vector3, b1: Vector3, b2: Vector3): Quaternion {
  const a3 = a1.clone().cross(a2).normalize(),
    b3 = b1.clone().cross(b2).normalize();
  const a2o = a3.clone().cross(a1).normalize(),
    b2o = b3.clone().cross(b1).normalize();
  const ma = new Matrix4().makeBasis(a1, a2o, a3);
  const mb = new Matrix4().makeBasis(b1, b2o, b3);
  return new Quaternion().setFromRotationMatrix(mb.multiply(ma.transpose()));
}

/** The direction a face's value reads upwards, in the die's frame. */
export function faceUp(shape: Shape, face: number): Vector3 {
  return faceAxes(shape, shape.faces[face]!).up;
}

/**
 * A turn of the solid onto itself that carries face `from` to where face `to` is: drawn turned so, the
 * die looks the same (same outline, same physics) but shows `from`'s value where `to` lies. Of the turns
 * that do (four on a d6), the one `score` likes best: the board picks the one whose value reads upright.
 */
export function faceTurn(shape: Shape, from: number, to: number, score: (q: Quaternion) => number = () => 0): Quaternion {
  const fa = shape.faces[from]!,
    fb = shape.faces[to]!;
  const na = v3(faceNormal(shape, fa)),
    nb = v3(faceNormal(shape, fb));
  const ca = v3(centroid(shape, fa)),
    cb = v3(centroid(shape, fb));
  const verts = shape.vertices.map(v3);
  const spoke = (p: Vector3, c: Vector3, n: Vector3) => p.clone().sub(c).projectOnPlane(n).normalize();
  const a0 = spoke(verts[fa[0]!]!, ca, na);
  let best: Quaternion | null = null;
  let bestScore = -Infinity;
  for (const j of fb) {
    const q = frameTurn(na, a0, nb, spoke(verts[j]!, cb, nb));
    const maps = verts.every((v) => {
      const w = v.clone().applyQuaternion(q);
      return verts.some((u) => u.distanceToSquared(w) < 1e-6);
    });
    if (maps && score(q) > bestScore) {
      best = q;
      bestScore = score(q);
    }
  }
  return best ?? new Quaternion().setFromUnitVectors(na, nb);
}
