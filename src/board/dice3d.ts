/**
 * The 3D table: every roll thrown as polyhedra that tumble across the felt and come to rest showing
 * the values the server rolled (drawn on a canvas texture in front of each die). Honest but simple:
 * a few lines of ballistics, bounces and damping, no physics engine. The values never come from the
 * animation: the server decided them before the first frame.
 */
import {
  AmbientLight, Color, DirectionalLight, Group, Mesh, MeshBasicMaterial, MeshStandardMaterial, PerspectiveCamera, PlaneGeometry,
  Quaternion, Raycaster, Scene, Sprite, SpriteMaterial, Vector2, Vector3, WebGLRenderer, type Material,
} from 'three';
import { geometryFor, labelTexture, shadowTexture, SIZE } from './geometry';
// Only `#rrggbb` reaches three either (a colour comes from the server, i.e. from another user).
import { safeColor } from './view';

export interface DieView {
  uuid: string;
  /** die id of the theme (`d20`, `d10x`...): decides the shape */
  type: string;
  /** what the die shows at rest: the face the server gave, `?` when hidden from this viewer */
  text: string;
  /** `#rrggbb` of the roller */
  color: string;
  hidden: boolean;
  dropped: boolean;
}

const GRAVITY = -32;
const MAX_ROLLS_ON_TABLE = 4;

interface Body {
  view: DieView;
  group: Group;
  mesh: Mesh;
  material: MeshStandardMaterial;
  label: Sprite;
  shadow: Mesh;
  velocity: Vector3;
  spin: Vector3;
  age: number;
  resting: boolean;
}

interface TableRoll {
  uuid: string;
  bodies: Body[];
}

export class DiceTable {
  private readonly scene = new Scene();
  private readonly camera = new PerspectiveCamera(38, 1, 0.1, 100);
  private readonly rolls: TableRoll[] = [];
  private readonly shadowMap = shadowTexture();
  private bounds = { x: 6, z: 4 };
  private frame = 0;
  private last = 0;
  private readonly onResize = () => this.resize();

  private constructor(
    private readonly renderer: WebGLRenderer,
    private readonly canvas: HTMLCanvasElement,
  ) {
    this.camera.position.set(0, 15, 8.5);
    this.camera.lookAt(0, 0, 0.4);
    this.scene.add(new AmbientLight(0xffffff, 1.1));
    const sun = new DirectionalLight(0xffffff, 2.2);
    sun.position.set(-4, 12, 6);
    this.scene.add(sun);
    window.addEventListener('resize', this.onResize);
    this.resize();
  }

  /** A table on `canvas`, or null when this browser has no WebGL (the DOM list still shows every value). */
  static create(canvas: HTMLCanvasElement, transparent: boolean): DiceTable | null {
    let renderer: WebGLRenderer;
    try {
      renderer = new WebGLRenderer({ canvas, antialias: true, alpha: true, preserveDrawingBuffer: true });
    } catch {
      return null;
    }
    renderer.setClearColor(new Color(0x000000), 0);
    renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
    void transparent; // the page background (felt or nothing) shows through the clear colour either way
    return new DiceTable(renderer, canvas);
  }

  /** How far the table reaches: where the camera's view meets the floor. */
  private resize() {
    const width = this.canvas.clientWidth || 800;
    const height = this.canvas.clientHeight || 600;
    this.renderer.setSize(width, height, false);
    this.camera.aspect = width / height;
    this.camera.updateProjectionMatrix();
    const ray = new Raycaster();
    const hit = (x: number, y: number) => {
      ray.setFromCamera(new Vector2(x, y), this.camera);
      const { origin, direction } = ray.ray;
      const t = -origin.y / direction.y;
      return origin.clone().add(direction.clone().multiplyScalar(t));
    };
    const nearLeft = hit(-0.92, -0.85);
    const farRight = hit(0.92, 0.7);
    this.bounds = { x: Math.max(2, Math.min(Math.abs(nearLeft.x), Math.abs(farRight.x)) - SIZE), z: Math.max(2, Math.min(Math.abs(nearLeft.z), Math.abs(farRight.z)) - SIZE) };
    this.wake();
  }

  /**
   * Throw a roll: the dice enter from the side `direction` (degrees) points away from, as fast as
   * `velocity` says, tumble, bounce off the rails and settle.
   */
  throwRoll(uuid: string, dice: DieView[], direction = 0, velocity = 0.5) {
    this.removeRoll(uuid);
    while (this.rolls.length >= MAX_ROLLS_ON_TABLE) this.dispose(this.rolls.shift()!);
    for (const roll of this.rolls) for (const b of roll.bodies) b.material.opacity = Math.min(b.material.opacity, 0.55);
    for (const roll of this.rolls) for (const b of roll.bodies) b.material.transparent = true;
    const angle = ((Number.isFinite(direction) ? direction : 0) * Math.PI) / 180;
    const heading = new Vector3(Math.cos(angle), 0, -Math.sin(angle));
    const speed = 9 + 9 * Math.min(1, Math.max(0, Number.isFinite(velocity) ? velocity : 0.5));
    const start = heading.clone().multiplyScalar(-Math.min(this.bounds.x, this.bounds.z) * 0.85);
    const bodies = dice.map((view, i) => {
      const body = this.makeBody(view);
      const spread = (i - (dice.length - 1) / 2) * SIZE * 1.6;
      const side = new Vector3(-heading.z, 0, heading.x).multiplyScalar(spread);
      body.group.position.copy(start).add(side).add(new Vector3(0, 2.5 + Math.random() * 1.5, 0));
      body.velocity.copy(heading).multiplyScalar(speed * (0.8 + Math.random() * 0.4)).add(new Vector3((Math.random() - 0.5) * 3, 0, (Math.random() - 0.5) * 3));
      body.spin.set((Math.random() - 0.5) * 24, (Math.random() - 0.5) * 24, (Math.random() - 0.5) * 24);
      body.group.quaternion.setFromAxisAngle(new Vector3(Math.random(), Math.random(), Math.random()).normalize(), Math.random() * Math.PI * 2);
      this.scene.add(body.group, body.shadow, body.label);
      return body;
    });
    this.rolls.push({ uuid, bodies });
    this.wake();
  }

  /** New flags or values for a roll already on the table (hidden dice revealed, dice cleared...). */
  updateRoll(uuid: string, dice: DieView[]) {
    const roll = this.rolls.find((r) => r.uuid === uuid);
    if (!roll) return;
    const kept: Body[] = [];
    for (const body of roll.bodies) {
      const view = dice.find((d) => d.uuid === body.view.uuid);
      if (!view) {
        // Picked up from the board (is_cleared): off the table.
        this.dispose({ uuid, bodies: [body] });
        continue;
      }
      body.view = view;
      this.paint(body);
      kept.push(body);
    }
    roll.bodies = kept;
    this.wake();
  }

  removeRoll(uuid: string) {
    const index = this.rolls.findIndex((r) => r.uuid === uuid);
    if (index < 0) return;
    this.dispose(this.rolls.splice(index, 1)[0]!);
    this.wake();
  }

  /** True when every die lies still with its value shown. */
  atRest(): boolean {
    return this.rolls.every((r) => r.bodies.every((b) => b.resting && (b.label.material as SpriteMaterial).opacity >= 1));
  }

  private makeBody(view: DieView): Body {
    const material = new MeshStandardMaterial({ color: 0xffffff, flatShading: true, roughness: 0.45, metalness: 0.05 });
    const mesh = new Mesh(geometryFor(view.type), material);
    const label = new Sprite(new SpriteMaterial({ depthTest: false, transparent: true, opacity: 0 }));
    label.scale.set(SIZE * 2, SIZE * 2, 1);
    label.renderOrder = 10;
    const group = new Group();
    group.add(mesh);
    const shadow = new Mesh(new PlaneGeometry(SIZE * 3, SIZE * 3), new MeshBasicMaterial({ map: this.shadowMap, transparent: true, depthWrite: false }));
    shadow.rotation.x = -Math.PI / 2;
    shadow.position.y = 0.01;
    const body: Body = { view, group, mesh, material, label, shadow, velocity: new Vector3(), spin: new Vector3(), age: 0, resting: false };
    this.paint(body);
    return body;
  }

  /** Colour, dimming and the value texture of a die, from its view. */
  private paint(body: Body) {
    const { view, material } = body;
    material.color.set(view.hidden && view.text === '?' ? '#4a4f59' : safeColor(view.color));
    material.transparent = view.dropped;
    material.opacity = view.dropped ? 0.35 : 1;
    const old = (body.label.material as SpriteMaterial).map;
    (body.label.material as SpriteMaterial).map = labelTexture(view.text, view.dropped, view.hidden && view.text !== '?');
    (body.label.material as SpriteMaterial).needsUpdate = true;
    old?.dispose();
  }

  private dispose(roll: TableRoll) {
    for (const b of roll.bodies) {
      this.scene.remove(b.group, b.shadow, b.label);
      b.material.dispose();
      (b.label.material as SpriteMaterial).map?.dispose();
      (b.label.material as Material).dispose();
      (b.shadow.material as Material).dispose();
      b.shadow.geometry.dispose();
    }
  }

  private wake() {
    if (this.frame) return;
    this.last = performance.now();
    this.frame = requestAnimationFrame((t) => this.tick(t));
  }

  private tick(now: number) {
    this.frame = 0;
    const dt = Math.min(0.033, Math.max(0.001, (now - this.last) / 1000));
    this.last = now;
    let moving = false;
    const all = this.rolls.flatMap((r) => r.bodies);
    for (const b of all) if (this.step(b, dt)) moving = true;
    this.separate(all);
    this.renderer.render(this.scene, this.camera);
    if (moving) this.frame = requestAnimationFrame((t) => this.tick(t));
  }

  /** One step of one die; answers whether it still moves. */
  private step(b: Body, dt: number): boolean {
    const p = b.group.position;
    const labelMaterial = b.label.material as SpriteMaterial;
    if (b.resting) {
      if (labelMaterial.opacity < 1) {
        labelMaterial.opacity = Math.min(1, labelMaterial.opacity + dt * 4);
        this.placeShadow(b);
        return true;
      }
      return false;
    }
    b.age += dt;
    b.velocity.y += GRAVITY * dt;
    p.addScaledVector(b.velocity, dt);
    const floor = SIZE * 0.8;
    const grounded = p.y <= floor;
    if (grounded) {
      p.y = floor;
      if (b.velocity.y < 0) b.velocity.y = -b.velocity.y * 0.35;
      if (Math.abs(b.velocity.y) < 0.6) b.velocity.y = 0;
      const friction = Math.exp(-3.2 * dt);
      b.velocity.x *= friction;
      b.velocity.z *= friction;
      b.spin.multiplyScalar(Math.exp(-3.5 * dt));
    }
    for (const axis of ['x', 'z'] as const) {
      const limit = this.bounds[axis];
      // The rails: a die that reaches one comes back, and never lies beyond it.
      if (Math.abs(p[axis]) > limit) {
        p[axis] = Math.sign(p[axis]) * limit;
        if (Math.sign(b.velocity[axis]) === Math.sign(p[axis])) b.velocity[axis] *= -0.6;
      }
    }
    const w = b.spin.length();
    if (w > 1e-3) b.group.quaternion.premultiply(new Quaternion().setFromAxisAngle(b.spin.clone().divideScalar(w), w * dt));
    this.placeShadow(b);
    const slow = grounded && b.velocity.lengthSq() < 0.05 && w < 0.6;
    if (slow || b.age > 3.5) {
      b.velocity.set(0, 0, 0);
      b.spin.set(0, 0, 0);
      p.y = floor;
      b.resting = true;
    }
    return true;
  }

  private placeShadow(b: Body) {
    b.shadow.position.x = b.group.position.x;
    b.shadow.position.z = b.group.position.z;
    const height = Math.max(0, b.group.position.y - SIZE * 0.8);
    b.shadow.scale.setScalar(1 + height * 0.15);
    // The value never tumbles with the die: it sits on its upper face, turned to be read.
    b.label.position.set(b.group.position.x, b.group.position.y + SIZE * 0.7, b.group.position.z + SIZE * 0.3);
  }

  /** Keep dice from sinking into each other (pairs on the floor plane). */
  private separate(bodies: Body[]) {
    const min = SIZE * 1.9;
    for (let i = 0; i < bodies.length; i++) {
      for (let j = i + 1; j < bodies.length; j++) {
        const a = bodies[i]!.group.position, b = bodies[j]!.group.position;
        const dx = b.x - a.x, dz = b.z - a.z;
        const d = Math.hypot(dx, dz);
        if (d >= min || d === 0) continue;
        const push = (min - d) / 2;
        const nx = dx / d, nz = dz / d;
        if (!bodies[i]!.resting) { a.x -= nx * push; a.z -= nz * push; }
        if (!bodies[j]!.resting) { b.x += nx * push; b.z += nz * push; }
        if (bodies[i]!.resting && bodies[j]!.resting) continue;
        this.placeShadow(bodies[i]!);
        this.placeShadow(bodies[j]!);
      }
    }
  }
}
