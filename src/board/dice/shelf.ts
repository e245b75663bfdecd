/**
 * The theme preview's table: every die of a theme laid in rows, each resting with one face up, drawn as
 * the board draws it (the same look from materials.ts: shape from `type`, colours, face atlas, textures,
 * models, sizes; the same stage). No throw: a die resting on a face is only a turn, so the preview is
 * still, and it renders only when the canvas changes size.
 */
import { Group, Mesh, MeshBasicMaterial, PlaneGeometry, Quaternion, Vector3, WebGLRenderer, type Object3D } from 'three';
import { faceUp } from './geometry';
import { dieKind, type DieKind } from './materials';
import { faceNormal } from './shapes';
import { createRenderer, Stage } from './stage';
import type { ThemeAssets } from './themes';
import { verifyThemeShaders } from './shaderCheck';
import { setShaderTime, sourceDiagnostics, type ShaderDiagnostic } from './shaders';
import type { Theme } from '../../client';

interface ShelfDie {
  dieId: string;
  kind: DieKind;
  group: Group;
  /** the face index lying up (read at the top corner for a d4, which rests on it) */
  face: number;
}

/** Dice per row: more make a second row. */
const PER_ROW = 6;

export class DiceShelf {
  private readonly stage = new Stage(false);
  private dice: ShelfDie[] = [];
  private extent = { x: 2, z: 1.5, y: 1.2 };

  private constructor(
    private readonly renderer: WebGLRenderer,
    private readonly canvas: HTMLCanvasElement,
  ) {
    new ResizeObserver(() => this.draw()).observe(canvas);
  }

  /** A shelf on `canvas`, or null when this browser has no WebGL (the page's list still shows every face). */
  static create(canvas: HTMLCanvasElement): DiceShelf | null {
    const renderer = createRenderer(canvas);
    if (!renderer) return null;
    return new DiceShelf(renderer, canvas);
  }

  /** Lay out the dice `dieIds` of a loaded theme, each with its last face (the highest value) up (its shaders checked first). */
  async show(assets: ThemeAssets, dieIds: string[]) {
    await verifyThemeShaders(this.renderer, assets);
    for (const die of this.dice) {
      this.stage.scene.remove(die.group);
      // Each die's shadow is its own (the editor lays the dice out again at every change); the dice's looks belong to materials.ts.
      const shadow = die.group.children[1] as Mesh<PlaneGeometry, MeshBasicMaterial> | undefined;
      shadow?.geometry.dispose();
      shadow?.material.dispose();
    }
    const kinds = dieIds.map((id) => dieKind(assets, id, false));
    const pitch = Math.max(1.6, ...kinds.map((k) => k.shape.radius * k.scale * 2.3));
    const columns = Math.min(PER_ROW, Math.max(1, dieIds.length));
    const rows = Math.ceil(dieIds.length / columns);
    this.dice = dieIds.map((dieId, i) => {
      const kind = kinds[i]!;
      const face = kind.shape.valued - 1;
      const group = new Group();
      const turn = restingTurn(kind, face);
      const body: Object3D = kind.model ? kind.model.clone(true) : new Mesh(kind.geometry.geometry, kind.material);
      body.quaternion.copy(turn);
      group.add(body);
      // Resting on the table: the lowest vertex of the turned solid touches it.
      const low = Math.min(...kind.shape.vertices.map(([x, y, z]) => new Vector3(x, y, z).applyQuaternion(turn).y));
      const row = Math.floor(i / columns),
        inRow = Math.min(columns, dieIds.length - row * columns);
      group.position.set(((i % columns) - (inRow - 1) / 2) * pitch, -low * kind.scale, (row - (rows - 1) / 2) * pitch);
      const size = kind.shape.radius * kind.scale;
      const shadow = new Mesh(
        new PlaneGeometry(size * 3.2, size * 3.2),
        new MeshBasicMaterial({ map: this.stage.shadowTexture, transparent: true, depthWrite: false }),
      );
      shadow.rotation.x = -Math.PI / 2;
      shadow.position.y = 0.002 - group.position.y;
      group.add(shadow);
      this.stage.scene.add(group);
      return { dieId, kind, group, face };
    });
    const tallest = Math.max(1, ...kinds.map((k) => k.shape.radius * k.scale * 2));
    this.extent = { x: (columns * pitch) / 2, z: (rows * pitch) / 2, y: tallest };
    this.draw();
  }

  /** What the compiler says of shader sources on this shelf's renderer (an editor shows it by the source). */
  diagnose(shaders: { frag_shader?: string | null; vert_shader?: string | null; uniforms?: Theme['uniforms'] }): ShaderDiagnostic[] {
    return sourceDiagnostics(this.renderer, shaders);
  }

  private draw() {
    const width = this.canvas.clientWidth || 800;
    const height = this.canvas.clientHeight || 400;
    this.renderer.setSize(width, height, false);
    this.stage.fit(width, height, 0, this.extent);
    setShaderTime(performance.now() / 1000);
    this.renderer.render(this.stage.scene, this.stage.camera);
  }

  /** What the preview shows, for tests: each die, the face lying up (from the drawn mesh) and where it is on the page. */
  snapshot() {
    const rect = this.canvas.getBoundingClientRect();
    const camera = this.stage.camera;
    return this.dice.map((die) => {
      const { shape } = die.kind;
      const q = die.group.quaternion.clone().multiply(die.group.children[0]!.quaternion);
      let top = 0,
        best = -Infinity;
      for (let i = 0; i < shape.valued; i++) {
        const [x, y, z] = faceNormal(shape, shape.faces[i]!);
        const up = new Vector3(x, y, z).applyQuaternion(q).y * (shape.reads === 'top' ? 1 : -1);
        if (up > best) {
          best = up;
          top = i;
        }
      }
      const p = die.group.position.clone();
      const screen = p.clone().project(camera);
      const edge = p
        .clone()
        .add(new Vector3(shape.radius * die.kind.scale, 0, 0))
        .project(camera);
      return {
        dieId: die.dieId,
        type: shape.type,
        drawn: die.kind.model ? 'model' : 'solid',
        top: top + 1,
        topText: die.kind.faceTexts[top] ?? null,
        flat: best,
        screen: {
          x: rect.left + ((screen.x + 1) / 2) * rect.width,
          y: rect.top + ((1 - screen.y) / 2) * rect.height,
          r: (Math.abs(edge.x - screen.x) / 2) * rect.width,
        },
      };
    });
  }
}

/**
 * The turn that lays face `face` up (a d4: down, its value read at the top corner), then turns the die
 * about the vertical so the value reads upright for the camera (which looks from +z).
 */
function restingTurn(kind: DieKind, face: number): Quaternion {
  const { shape } = kind;
  const [x, y, z] = faceNormal(shape, shape.faces[face]!);
  const lie = new Quaternion().setFromUnitVectors(new Vector3(x, y, z), new Vector3(0, shape.reads === 'top' ? 1 : -1, 0));
  const up = faceUp(shape, face).applyQuaternion(lie);
  const spin = new Quaternion().setFromAxisAngle(new Vector3(0, 1, 0), Math.atan2(up.x, -up.z));
  return spin.multiply(lie);
}
