import test from 'ava';
import { simulateThrow, TABLE, type ThrowDie } from '../../src/board/dice/physics';
import { faceNormal, shapeOf, SHAPED_TYPES, type Shape } from '../../src/board/dice/shapes';
import { faceTurn } from '../../src/board/dice/geometry';
import { Quaternion, Vector3 } from 'three';

/** The board's throw (src/board/dice/physics.ts) runs in Node too: cannon-es is pure JavaScript. */
const dice = (types: readonly string[], extra: Partial<ThrowDie> = {}): ThrowDie[] => types.map((t) => ({ shape: shapeOf(t), scale: 0.85, ...extra }));
const inradius = (s: Shape) =>
  Math.min(
    ...s.faces.map((f) => {
      const n = faceNormal(s, f);
      const v = s.vertices[f[0]!]!;
      return v[0] * n[0] + v[1] * n[1] + v[2] * n[2];
    }),
  );
const last = (frames: Float32Array, count: number) => Array.from(frames.slice((count - 1) * 7, count * 7));

test('every solid is whole: faces by type, planar, wound outwards, and the d10s have ten kites', (t) => {
  const expected: Record<string, [number, number]> = {
    d2: [22, 2],
    d4: [4, 4],
    d6: [6, 6],
    d8: [8, 8],
    d10: [10, 10],
    d10x: [10, 10],
    d12: [12, 12],
    d16: [16, 16],
    d20: [20, 20],
  };
  for (const type of SHAPED_TYPES) {
    const s = shapeOf(type);
    t.deepEqual([s.faces.length, s.valued], expected[type], type);
    for (const f of s.faces) {
      const n = faceNormal(s, f);
      const c = f.map((i) => s.vertices[i]!).reduce((a, v) => a + v[0] * n[0] + v[1] * n[1] + v[2] * n[2], 0) / f.length;
      t.true(c > 0, `${type}: face wound outwards`);
    }
  }
  t.true(
    shapeOf('d10').faces.every((f) => f.length === 4),
    'kites',
  );
  t.is(shapeOf('nonsense').type, 'd6');
});

test('a turn of the solid onto itself brings any face where any other lies', (t) => {
  for (const type of SHAPED_TYPES) {
    const s = shapeOf(type);
    for (let from = 0; from < s.valued; from++) {
      const to = (from * 7 + 3) % s.valued;
      const q: Quaternion = faceTurn(s, from, to);
      const [x, y, z] = faceNormal(s, s.faces[from]!);
      const moved = new Vector3(x, y, z).applyQuaternion(q);
      const [tx, ty, tz] = faceNormal(s, s.faces[to]!);
      t.true(moved.distanceTo(new Vector3(tx, ty, tz)) < 1e-6, `${type} ${from}->${to}`);
    }
  }
});

test('the same roll uuid gives the same throw; another gives another', (t) => {
  const a = simulateThrow('3f1c0b52-uuid', dice(['d6', 'd20', 'd10x', 'd4']), 45, 1);
  const b = simulateThrow('3f1c0b52-uuid', dice(['d6', 'd20', 'd10x', 'd4']), 45, 1);
  const c = simulateThrow('another-uuid', dice(['d6', 'd20', 'd10x', 'd4']), 45, 1);
  t.deepEqual(a.frames, b.frames);
  t.deepEqual(a.restFace, b.restFace);
  t.notDeepEqual(
    a.frames.map((f) => last(f, a.count)),
    c.frames.map((f) => last(f, c.count)),
  );
});

test('dice come to rest flat, on the table, apart from each other, in 60 throws of every type', (t) => {
  const types = ['d2', 'd4', 'd6', 'd8', 'd10', 'd10x', 'd12', 'd16', 'd20'];
  for (let seed = 0; seed < 60; seed++) {
    const set = dice(types);
    const r = simulateThrow(`seed-${seed}`, set, seed * 37, 0.5 + (seed % 10) / 10);
    const rest = r.frames.map((f) => last(f, r.count));
    rest.forEach((p, i) => {
      const shape = set[i]!.shape;
      const q = new Quaternion(p[3], p[4], p[5], p[6]);
      const lowest = Math.min(
        ...shape.faces.slice(0, shape.type === 'd2' ? 2 : undefined).map((f) => {
          const [x, y, z] = faceNormal(shape, f);
          return new Vector3(x, y, z).applyQuaternion(q).y;
        }),
      );
      t.true(lowest < -0.999, `seed ${seed} ${types[i]} lies on a face (${lowest})`);
      // On the felt, or lying flat on another die (a die may come to rest on top of one, as real dice do).
      t.true(Math.abs(p[0]!) < TABLE.x && Math.abs(p[2]!) < TABLE.z && p[1]! < 2.5, `seed ${seed} ${types[i]} on the table`);
      for (let j = 0; j < i; j++) {
        const o = rest[j]!;
        const gap = Math.hypot(p[0]! - o[0]!, p[1]! - o[1]!, p[2]! - o[2]!);
        // Solids that do not pass through each other keep their inscribed spheres apart (a die may lie on a coin).
        t.true(gap > (inradius(shape) + inradius(set[j]!.shape)) * 0.85 * 0.98, `seed ${seed}: ${types[i]} and ${types[j]} do not overlap (${gap})`);
      }
    });
  }
});

test('weight and inertia change the throw; direction sends the dice that way', (t) => {
  const base = simulateThrow('w', dice(['d6', 'd6']), 0, 1);
  const heavy = simulateThrow('w', dice(['d6', 'd6'], { weight: 3000 }), 0, 1);
  const spinny = simulateThrow('w', dice(['d6', 'd6'], { inertia: 80 }), 0, 1);
  t.notDeepEqual(base.frames, heavy.frames);
  t.notDeepEqual(base.frames, spinny.frames);
  for (const direction of [0, 90, 180, 270]) {
    const r = simulateThrow(`dir-${direction}`, dice(['d6']), direction, 0.4);
    const f = r.frames[0]!;
    // Frame 20: the die is in flight along the heading (direction 0: +x, 90: -z), not yet at the rails.
    const dx = f[20 * 7]! - f[0]!,
      dz = f[20 * 7 + 2]! - f[2]!;
    const a = (direction * Math.PI) / 180;
    t.true(dx * Math.cos(a) - dz * Math.sin(a) > 1, `direction ${direction}: moved (${dx.toFixed(2)}, ${dz.toFixed(2)})`);
  }
});
