/**
 * The 3D table: each roll thrown by the physics (physics.ts), drawn in its theme's look (materials.ts),
 * each die turned so the face of the value the server rolled lies up. The latest roll stays on the
 * table; a new one takes its place. The render loop runs only while something moves.
 */
import {
  EdgesGeometry,
  Group,
  LineBasicMaterial,
  LineSegments,
  Mesh,
  MeshBasicMaterial,
  PlaneGeometry,
  Quaternion,
  ShaderMaterial,
  Vector3,
  WebGLRenderer,
  type Object3D,
} from 'three';
import { faceTurn, faceUp } from './geometry';
import { dieKind, type DieKind } from './materials';
import { STEP, type Collision } from './physics';
import { ranIn, runThrow } from './throwRunner';
import { faceNormal } from './shapes';
import { createRenderer, Stage } from './stage';
import { shaderProbe, verifyThemeShaders } from './shaderCheck';
import { fadedShaderMaterial, setShaderTime } from './shaders';
import { slowTheme, themeAssets } from './themes';

export interface DieView {
  uuid: string;
  /** the die id of its theme (`d20`, `d10x`, `big`...); the shape comes from the theme's `type` for it */
  dieId: string;
  theme: string;
  /** the value the server rolled (docs/api/rolls.md: a face's position, a d10x's tens digit, a fate die's -1/0/1); null when hidden */
  value: number | null;
  /** the rolled face as text (`value_to_display`), null when hidden or an image: finds a d10x's or fate die's face */
  face: string | null;
  /** `#rrggbb` of the roller's seat: the die's outline */
  color: string;
  dropped: boolean;
}

interface TableDie {
  view: DieView;
  kind: DieKind;
  group: Group;
  turn: Quaternion;
  shadow: Mesh;
  frames: Float32Array;
  /** the roll's size factor (many dice are drawn smaller) */
  crowd: number;
}

interface TableRoll {
  uuid: string;
  signature: string;
  dice: TableDie[];
  count: number;
  start: number;
  collisions: Collision[];
  played: number;
  /** the frame drawn last */
  shown: number;
}

/** The room's rolls are drawn as they come; a theme slower than this is drawn in the built-in look. */
const THEME_WAIT_MS = 8000;
const TOP_BAND = 0.2;
/** Up to this many dice keep their size; more are drawn smaller. */
const CROWD = 12;

export type CollisionListener = (die: DieView, speed: number, position: Vector3) => void;

export class DiceTable {
  private readonly stage: Stage;
  private roll: TableRoll | null = null;
  private generation = 0;
  private pending = 0;
  private frame = 0;
  private readonly edges = new Map<DieKind, EdgesGeometry>();
  /** collisions as they are played (sounds) and rolls as they come to rest */
  onCollision: CollisionListener = () => {};
  onRest: (dice: { view: DieView; face: string | null }[]) => void = () => {};
  /** for tests and curious people: frames drawn, and the last throw's simulation time */
  readonly stats = { renders: 0, simulateMs: 0, diceOnTable: 0, simulatedIn: 'none', frames: 0, shaderProbeMs: 0 };

  private constructor(
    private readonly renderer: WebGLRenderer,
    private readonly canvas: HTMLCanvasElement,
    overlay: boolean,
  ) {
    this.stage = new Stage(overlay);
    new ResizeObserver(() => this.resize()).observe(canvas);
    this.resize();
  }

  /** A table on `canvas`, or null when this browser has no WebGL (the list still shows every value). */
  static create(canvas: HTMLCanvasElement, overlay: boolean): DiceTable | null {
    const renderer = createRenderer(canvas);
    if (!renderer) return null;
    return new DiceTable(renderer, canvas, overlay);
  }

  private resize() {
    const width = this.canvas.clientWidth || 800;
    const height = this.canvas.clientHeight || 600;
    this.renderer.setSize(width, height, false);
    this.stage.fit(width, height, this.topReserve ?? Math.min(150, height * TOP_BAND));
    this.wake();
  }

  private topReserve: number | null = null;

  /**
   * Keep the top `px` pixels of the canvas free of the table (the roll cards are there). Only the view
   * changes: the throw is in table units, the same for everyone.
   */
  setTopReserve(px: number) {
    const height = this.canvas.clientHeight || 600;
    const next = Math.max(0, Math.min(px, height * 0.4));
    if (this.topReserve !== null && Math.abs(next - this.topReserve) < 2) return;
    this.topReserve = next;
    this.resize();
  }

  setBackground(url: string | null) {
    void this.stage
      .setBackground(url)
      .catch(() => undefined)
      .then(() => this.wake());
  }

  /** The background image on the table now, once loaded. */
  background(): string | null {
    return this.stage.shown;
  }

  /**
   * Throw a roll (or, `animate` false, lay it where its throw ends: the same place, for a board opened
   * after it). The dice's themes are loaded first. A viewer who asked their system for less motion
   * (`prefers-reduced-motion: reduce`) sees each new roll land at once where its throw ends, with its
   * resting sounds and without the tumble or the sounds of its collisions.
   */
  async throwRoll(uuid: string, views: DieView[], direction: number, velocity: number, animate = true): Promise<void> {
    const generation = ++this.generation;
    this.pending++;
    try {
      const themes = [...new Set(views.map((v) => v.theme))];
      const loaded = new Map(
        await Promise.all(themes.map(async (id) => [id, await withTimeout(themeAssets(id), THEME_WAIT_MS, () => slowTheme(id))] as const)),
      );
      if (generation !== this.generation) return;
      // A theme whose shaders fail here is drawn in the built-in look (said once), before any die uses them.
      await Promise.all([...loaded.values()].map((assets) => verifyThemeShaders(this.renderer, assets)));
      this.stats.shaderProbeMs = shaderProbe.lastMs;
      if (generation !== this.generation) return;
      const kinds = views.map((v) => dieKind(loaded.get(v.theme)!, v.dieId, v.value === null));
      const started = performance.now();
      // A big handful is drawn smaller, so it lies on the table instead of in a heap (the same for all: it is the roll's).
      const crowd = Math.min(1, Math.sqrt(CROWD / views.length));
      const result = await runThrow(
        uuid,
        kinds.map((k) => ({ shape: k.shape, scale: k.scale * crowd, weight: k.weight, inertia: k.inertia })),
        direction,
        velocity,
      );
      if (generation !== this.generation) return;
      this.stats.simulateMs = Math.round(performance.now() - started);
      this.stats.simulatedIn = ranIn.last;
      this.stats.frames = result.count;
      this.clear();
      const dice = views.map((view, i) => this.place(view, kinds[i]!, result.frames[i]!, result.restFace[i]!, crowd));
      const tumble = animate && !prefersReducedMotion();
      this.roll = {
        uuid,
        signature: signature(views),
        dice,
        count: result.count,
        start: tumble ? performance.now() : -Infinity,
        collisions: result.collisions,
        // Infinity: laid, not thrown (no sounds, no onRest); past the last collision: landed without motion.
        played: !animate ? Infinity : tumble ? 0 : result.collisions.length,
        shown: -1,
      };
      this.wake();
    } finally {
      this.pending--;
    }
  }

  /** A roll on the table changed (a die revealed, cleared, dropped): laid again where it rests. */
  updateRoll(uuid: string, views: DieView[], direction: number, velocity: number) {
    if (this.roll?.uuid !== uuid || this.roll.signature === signature(views)) return;
    if (!views.length) return this.removeRoll(uuid);
    void this.throwRoll(uuid, views, direction, velocity, false);
  }

  removeRoll(uuid: string) {
    if (this.roll?.uuid !== uuid) return;
    this.generation++;
    this.clear();
    this.wake();
  }

  /** True when nothing moves and no throw is being prepared. */
  atRest(): boolean {
    // By the frame drawn last, not the clock: what the page shows is at rest.
    return this.pending === 0 && (!this.roll || this.roll.shown >= this.roll.count - 1);
  }

  private place(view: DieView, kind: DieKind, frames: Float32Array, restFace: number, crowd: number): TableDie {
    const group = new Group();
    group.scale.setScalar(crowd);
    // The rolled face goes where the throw left the resting face: a turn of the solid onto itself.
    const rolled = rolledFace(view, kind);
    // Of the turns that put the rolled face there, the one whose value reads upright for the viewer.
    const o = frames.length - 7;
    const rest = new Quaternion(frames[o + 3], frames[o + 4], frames[o + 5], frames[o + 6]);
    const readable = (q: Quaternion) => (rolled < 0 ? 0 : -faceUp(kind.shape, rolled).applyQuaternion(q).applyQuaternion(rest).z);
    const turn = rolled < 0 ? new Quaternion() : faceTurn(kind.shape, rolled, restFace, readable);
    const body: Object3D = kind.model ? kind.model.clone(true) : new Mesh(kind.geometry.geometry, kind.material);
    body.quaternion.copy(turn);
    group.add(body);
    if (!kind.model) {
      let edges = this.edges.get(kind);
      if (!edges) this.edges.set(kind, (edges = new EdgesGeometry(kind.geometry.geometry, 20)));
      const outline = new LineSegments(edges, new LineBasicMaterial({ color: view.color }));
      outline.quaternion.copy(turn);
      group.add(outline);
    }
    if (view.dropped) {
      group.traverse((o) => {
        const m = (o as Mesh).material as MeshBasicMaterial | ShaderMaterial | undefined;
        if (m instanceof ShaderMaterial) (o as Mesh).material = fadedShaderMaterial(m, 0.4);
        else if (m) (o as Mesh).material = Object.assign(m.clone(), { transparent: true, opacity: 0.4 });
      });
    }
    const size = kind.shape.radius * kind.scale * crowd;
    const shadow = new Mesh(
      new PlaneGeometry(size * 3.2, size * 3.2),
      new MeshBasicMaterial({ map: this.stage.shadowTexture, transparent: true, depthWrite: false }),
    );
    shadow.rotation.x = -Math.PI / 2;
    this.stage.scene.add(group, shadow);
    return { view, kind, group, turn, shadow, frames, crowd };
  }

  private clear() {
    for (const die of this.roll?.dice ?? []) {
      this.stage.scene.remove(die.group, die.shadow);
      die.shadow.geometry.dispose();
      (die.shadow.material as MeshBasicMaterial).dispose();
      die.group.traverse((o) => {
        if (o instanceof LineSegments || ((o as Mesh).material as MeshBasicMaterial)?.transparent) ((o as Mesh).material as MeshBasicMaterial).dispose();
      });
    }
    this.roll = null;
  }

  private frameOf(roll: TableRoll, now: number): number {
    return Math.min(roll.count - 1, Math.floor((now - roll.start) / 1000 / STEP));
  }

  private wake() {
    if (this.frame) return;
    this.frame = requestAnimationFrame((t) => this.tick(t));
  }

  private tick(now: number) {
    this.frame = 0;
    const roll = this.roll;
    let moving = false;
    if (roll) {
      const k = this.frameOf(roll, now);
      roll.shown = k;
      for (const die of roll.dice) {
        const f = die.frames,
          o = k * 7;
        die.group.position.set(f[o]!, f[o + 1]!, f[o + 2]!);
        die.group.quaternion.set(f[o + 3]!, f[o + 4]!, f[o + 5]!, f[o + 6]!);
        die.shadow.position.set(f[o]!, 0.002, f[o + 2]!);
        die.shadow.scale.setScalar(1 + Math.max(0, f[o + 1]! - 0.5) * 0.12);
      }
      for (; roll.played < roll.collisions.length && roll.collisions[roll.played]!.frame <= k; roll.played++) {
        const c = roll.collisions[roll.played]!;
        const die = roll.dice[c.die];
        if (die) this.onCollision(die.view, c.speed, die.group.position);
      }
      moving = k < roll.count - 1;
      if (!moving && roll.played !== Infinity) {
        roll.played = Infinity;
        this.onRest(roll.dice.map((d) => ({ view: d.view, face: d.view.value === null ? null : (d.kind.faceTexts[rolledFace(d.view, d.kind)] ?? null) })));
      }
    }
    setShaderTime(now / 1000);
    this.renderer.render(this.stage.scene, this.stage.camera);
    this.stats.renders++;
    this.stats.diceOnTable = roll?.dice.length ?? 0;
    if (moving) this.wake();
  }

  /** Where a point of the table is on the page (CSS pixels), for tests. */
  screenOf(x: number, y: number, z: number) {
    const rect = this.canvas.getBoundingClientRect();
    const p = new Vector3(x, y, z).project(this.stage.camera);
    return { x: rect.left + ((p.x + 1) / 2) * rect.width, y: rect.top + ((1 - p.y) / 2) * rect.height };
  }

  /** What the table shows, for tests: each die's place, the face on top (from the drawn mesh) and where it is on screen. */
  snapshot() {
    const rect = this.canvas.getBoundingClientRect();
    return (this.roll?.dice ?? []).map((die) => {
      const q = die.group.quaternion.clone().multiply(die.turn);
      const { shape } = die.kind;
      let best = 0,
        bestY = -Infinity;
      for (let i = 0; i < shape.valued; i++) {
        const [x, y, z] = faceNormal(shape, shape.faces[i]!);
        const up = new Vector3(x, y, z).applyQuaternion(q).y * (shape.reads === 'top' ? 1 : -1);
        if (up > bestY) {
          bestY = up;
          best = i;
        }
      }
      const p = die.group.position.clone();
      const screen = p.clone().project(this.stage.camera);
      const edge = p
        .clone()
        .add(new Vector3(shape.radius * die.kind.scale * die.crowd, 0, 0))
        .project(this.stage.camera);
      return {
        uuid: die.view.uuid,
        dieId: die.view.dieId,
        type: shape.type,
        value: die.view.value,
        drawn: die.kind.model ? 'model' : 'solid',
        position: [p.x, p.y, p.z],
        top: best + 1,
        topText: die.kind.faceTexts[best] ?? null,
        flat: bestY,
        screen: {
          x: rect.left + ((screen.x + 1) / 2) * rect.width,
          y: rect.top + ((1 - screen.y) / 2) * rect.height,
          r: (Math.abs(edge.x - screen.x) / 2) * rect.width,
        },
      };
    });
  }
}

/** Read at each throw, so that a change of the system setting applies to the next roll. */
function prefersReducedMotion(): boolean {
  return typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;
}

function signature(views: DieView[]): string {
  return views.map((v) => `${v.uuid}:${v.value}:${v.dropped}:${v.color}`).join(',');
}

/** The theme, or what `late` says when it takes longer than `ms` (the table never waits for ever). */
function withTimeout<T>(promise: Promise<T>, ms: number, late: () => T): Promise<T> {
  let timer = 0;
  return Promise.race([
    promise,
    new Promise<T>((resolve) => {
      timer = window.setTimeout(() => resolve(late()), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

const NUMBERED_BY_FACE = /^(d10x|df(\.[12])?)$/;

/** What a face's text counts as: fudge dice are drawn -, blank, +. */
function textNumber(text: string): number {
  if (text === '-') return -1;
  if (text === '+') return 1;
  return text.trim() === '' ? 0 : Number(text);
}

/**
 * The 0-based face of the model the server rolled, -1 when hidden. `value` is most dice's face position,
 * but a d10x's tens digit and a fate die's -1/0/1: those are found by their face among the drawn faces
 * (the first that counts the same), else by position as any die.
 */
function rolledFace(view: DieView, kind: DieKind): number {
  if (view.value === null) return -1;
  if (view.face !== null && view.face.trim() !== '' && NUMBERED_BY_FACE.test(view.dieId.toLowerCase())) {
    const want = Number(view.face);
    const i = Number.isFinite(want) ? kind.faceTexts.findIndex((t) => textNumber(t) === want) : -1;
    if (i >= 0) return i % kind.shape.valued;
  }
  return (((view.value - 1) % kind.shape.valued) + kind.shape.valued) % kind.shape.valued;
}
