/**
 * The throw, simulated before it is shown (as dddice does): cannon-es with each die's convex solid,
 * dice colliding with each other, the felt and the rails, on a table of fixed size in world units, with
 * a fixed time step and every random number drawn from the roll's uuid. The same roll therefore gives
 * the same frames, and the same resting places, in every viewer's browser, whatever its window size.
 */
import { Body, ContactMaterial, ConvexPolyhedron, Material, Plane, Quaternion, Vec3, World } from 'cannon-es';
import type { Shape } from './shapes';

/** Half the table's width (x) and depth (z), in world units; the camera frames it whole. */
export const TABLE = { x: 7, z: 4.5 };
export const STEP = 1 / 60;
const MAX_STEPS = 300;
/** A die is turned flat when its lowest face leans more than this (cosine): never resting on an edge. */
const FLAT = 0.998;
const SNAP_FRAMES = 12;

export interface ThrowDie {
  shape: Shape;
  /** radius scale: the table size × the theme's `sizes[dieId]` */
  scale: number;
  /** `physics.weight[dieId]`, dddice's unit: 300 is a d6 */
  weight?: number;
  /** `physics.inertia[dieId]`, dddice's unit: 13 is a d6 */
  inertia?: number;
}

export interface Collision {
  frame: number;
  die: number;
  speed: number;
}

export interface ThrowResult {
  /** per die: 7 numbers per frame (x, y, z, qx, qy, qz, qw) */
  frames: Float32Array[];
  count: number;
  /** per die: the face lying on top (or, for a d4, on the felt) at rest */
  restFace: number[];
  collisions: Collision[];
}

/** A small, fast PRNG (mulberry32) seeded from a string (FNV-1a): the roll's uuid. */
export function seeded(seed: string): () => number {
  let h = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 0x01000193);
  let a = h >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function solid(shape: Shape, scale: number): ConvexPolyhedron {
  return new ConvexPolyhedron({
    vertices: shape.vertices.map(([x, y, z]) => new Vec3(x * scale, y * scale, z * scale)),
    faces: shape.faces.map((f) => [...f]),
  });
}

function tableWorld(): { world: World; dice: Material } {
  const world = new World({ gravity: new Vec3(0, -30, 0), allowSleep: true });
  const felt = new Material('felt');
  const dice = new Material('dice');
  world.addContactMaterial(new ContactMaterial(felt, dice, { friction: 0.35, restitution: 0.3 }));
  world.addContactMaterial(new ContactMaterial(dice, dice, { friction: 0.2, restitution: 0.4 }));
  const planes: [Vec3, Vec3, number][] = [
    [new Vec3(0, 0, 0), new Vec3(1, 0, 0), -Math.PI / 2], // floor: a plane's normal is its +z, turned up
    [new Vec3(0, 12, 0), new Vec3(1, 0, 0), Math.PI / 2], // a ceiling, so no die leaves the table upwards
    [new Vec3(-TABLE.x, 0, 0), new Vec3(0, 1, 0), Math.PI / 2],
    [new Vec3(TABLE.x, 0, 0), new Vec3(0, 1, 0), -Math.PI / 2],
    [new Vec3(0, 0, -TABLE.z), new Vec3(0, 1, 0), 0],
    [new Vec3(0, 0, TABLE.z), new Vec3(0, 1, 0), Math.PI],
  ];
  for (const [position, axis, angle] of planes) {
    const body = new Body({ mass: 0, shape: new Plane(), material: felt, position });
    body.quaternion.setFromAxisAngle(axis, angle);
    world.addBody(body);
  }
  return { world, dice };
}

/**
 * Throw `dice` from the side `direction` (degrees) points away from, as hard as `velocity` says
 * (the API's 0.5..1.5 typical), and record every frame until all lie still.
 */
export function simulateThrow(seed: string, dice: ThrowDie[], direction: number, velocity: number): ThrowResult {
  const random = seeded(seed);
  const { world, dice: diceMaterial } = tableWorld();
  const angle = ((Number.isFinite(direction) ? direction : 0) * Math.PI) / 180;
  const heading = new Vec3(Math.cos(angle), 0, -Math.sin(angle));
  const side = new Vec3(-heading.z, 0, heading.x);
  const speed = 11 * Math.min(2, Math.max(0.35, Number.isFinite(velocity) ? velocity : 1));
  const reach = Math.min(TABLE.x / Math.max(Math.abs(heading.x), 1e-3), TABLE.z / Math.max(Math.abs(heading.z), 1e-3)) * 0.6;
  const collisions: Collision[] = [];
  let step = 0;
  const bodies = dice.map((die, i) => {
    const r = die.shape.radius * die.scale;
    const perRow = Math.min(dice.length, 6);
    const col = i % 6,
      row = Math.floor(i / 6);
    // Rows of six, one behind the other towards the middle: a handful of dice leaves from the edge.
    const along = -reach + row * 2.4 * r;
    const across = (col - (perRow - 1) / 2) * 2.2 * r;
    const x = Math.max(-TABLE.x + r, Math.min(TABLE.x - r, heading.x * along + side.x * across));
    const z = Math.max(-TABLE.z + r, Math.min(TABLE.z - r, heading.z * along + side.z * across));
    const mass = Math.min(20, Math.max(0.05, (die.weight ?? 300) / 300));
    const body = new Body({
      mass,
      shape: solid(die.shape, die.scale),
      material: diceMaterial,
      position: new Vec3(x, 1.5 + (row % 2) * 1.2 * r + random() * 1.5, z),
    });
    body.linearDamping = 0.1;
    body.angularDamping = 0.1;
    body.sleepSpeedLimit = 0.15;
    body.sleepTimeLimit = 0.4;
    const inertia = Math.min(10, Math.max(0.1, (die.inertia ?? 13) / 13));
    body.inertia.scale(inertia, body.inertia);
    body.invInertia.set(1 / body.inertia.x, 1 / body.inertia.y, 1 / body.inertia.z);
    body.updateInertiaWorld(true);
    body.quaternion.setFromEuler(random() * Math.PI * 2, random() * Math.PI * 2, random() * Math.PI * 2);
    // The rows in front are slower, so a big handful spreads over the table instead of piling up at a rail.
    // Each die a little off the heading (a handful fans out), the rows in front slower.
    const spread = (random() - 0.5) * Math.min(1.2, 0.3 + dice.length * 0.03);
    const own = new Vec3(Math.cos(angle + spread), 0, -Math.sin(angle + spread));
    const v = own.scale(speed * (0.85 + random() * 0.3) * Math.pow(0.8, row)).vadd(side.scale((random() - 0.5) * 2));
    body.velocity.set(v.x, 1 + random() * 3, v.z);
    body.angularVelocity.set((random() - 0.5) * 30, (random() - 0.5) * 30, (random() - 0.5) * 30);
    body.addEventListener('collide', (e: { contact: { getImpactVelocityAlongNormal(): number } }) => {
      const impact = Math.abs(e.contact.getImpactVelocityAlongNormal());
      if (impact > 2 && collisions.length < 400) collisions.push({ frame: step, die: i, speed: impact });
    });
    world.addBody(body);
    return body;
  });
  const frames: number[][] = bodies.map(() => []);
  const record = () =>
    bodies.forEach((b, i) => frames[i]!.push(b.position.x, b.position.y, b.position.z, b.quaternion.x, b.quaternion.y, b.quaternion.z, b.quaternion.w));
  record();
  const run = (steps: number, dragFrom: number) => {
    let still = 0;
    for (let k = 1; k <= steps; k++, step++) {
      world.step(STEP);
      record();
      // Rolling on (a d16 on its rim, a coin): the felt's drag grows after a while.
      if (k > dragFrom) for (const b of bodies) b.angularDamping = b.linearDamping = Math.min(0.9, 0.1 + (k - dragFrom) / 150);
      still = bodies.every((b) => b.sleepState === Body.SLEEPING || (b.velocity.lengthSquared() < 0.04 && b.angularVelocity.lengthSquared() < 0.09))
        ? still + 1
        : 0;
      if (still >= 15) return;
    }
  };
  step = 1;
  run(MAX_STEPS, 120);
  // A die leaning on another or on a rail is tipped towards its lowest face, by the physics (so it
  // cannot sink into its neighbour), a few times at most; what still leans is laid flat below.
  for (let attempt = 0; attempt < 2; attempt++) {
    const leaning = bodies.filter((b, i) => lowestFace(dice[i]!.shape, b.quaternion).y > -FLAT);
    if (!leaning.length) break;
    for (const b of leaning) {
      const down = lowestFace(dice[bodies.indexOf(b)]!.shape, b.quaternion);
      const axis = down.cross(new Vec3(0, -1, 0));
      axis.normalize();
      b.wakeUp();
      b.angularDamping = b.linearDamping = 0.3;
      b.angularVelocity.copy(axis.scale(4 + attempt * 2));
      b.velocity.set((random() - 0.5) * 2, 1.5, (random() - 0.5) * 2);
    }
    run(90, 30);
  }
  const restFace = bodies.map((b, i) => settle(dice[i]!, b, frames[i]!));
  const count = Math.max(...frames.map((f) => f.length / 7));
  // Dice that settled early wait where they lie until the last one has.
  for (const f of frames) while (f.length / 7 < count) f.push(...f.slice(-7));
  return { frames: frames.map((f) => Float32Array.from(f)), count, restFace, collisions };
}

/** The world normal of the die's lowest resting face (a coin rests on its caps only). */
function lowestFace(shape: Shape, q: Quaternion): Vec3 {
  let best: Vec3 | null = null;
  const faces = shape.type === 'd2' ? shape.faces.slice(0, 2) : shape.faces;
  for (const f of faces) {
    const [a, b, c] = f.map((i) => new Vec3(...shape.vertices[i]!));
    const n = q.vmult(b!.vsub(a!).cross(c!.vsub(a!)).unit());
    if (!best || n.y < best.y) best = n;
  }
  return best!;
}

/** Lay a die flat on its lowest face if it leans (frames appended), and answer the face that reads. */
function settle(die: ThrowDie, body: Body, frames: number[]): number {
  const { shape } = die;
  const faceNormals = shape.faces.map((f) => {
    const [a, b, c] = f.map((i) => new Vec3(...shape.vertices[i]!));
    return b!.vsub(a!).cross(c!.vsub(a!)).unit();
  });
  const world = (q: Quaternion, n: Vec3) => q.vmult(n);
  const resting = shape.type === 'd2' ? faceNormals.slice(0, 2) : faceNormals;
  const q = body.quaternion.clone();
  let lowest = 0;
  resting.forEach((n, i) => {
    if (world(q, n).y < world(q, resting[lowest]!).y) lowest = i;
  });
  const down = world(q, resting[lowest]!);
  // Small leans are laid flat by hand (a few degrees: no visible jump); larger ones were tipped above.
  if (-down.y < 0.9999) {
    const fix = new Quaternion().setFromVectors(down, new Vec3(0, -1, 0));
    const target = fix.mult(q);
    // The lowest point stays where it was: on the felt, or on the die it leans on.
    const lowest = (r: Quaternion) => Math.min(...shape.vertices.map((v) => r.vmult(new Vec3(...v)).y * die.scale));
    const floor = body.position.y + lowest(q) - lowest(target);
    const from = body.position.clone();
    for (let k = 1; k <= SNAP_FRAMES; k++) {
      const t = k / SNAP_FRAMES;
      const s = q.slerp(target, t * t);
      frames.push(from.x, from.y + (floor - from.y) * t, from.z, s.x, s.y, s.z, s.w);
    }
    q.copy(target);
  }
  let best = 0;
  for (let i = 0; i < shape.valued; i++) {
    const y = world(q, faceNormals[i]!).y;
    const bestY = world(q, faceNormals[best]!).y;
    if (shape.reads === 'top' ? y > bestY : y < bestY) best = i;
  }
  return best;
}
