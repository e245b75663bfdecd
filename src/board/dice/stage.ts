/**
 * The table's scene: lights, the camera framing the whole table (a fixed size in world units, so the
 * throw is the same for every viewer) below the band where the roll cards are, the felt or the room's
 * background image, and the soft shadow texture under the dice.
 */
import {
  AmbientLight,
  CanvasTexture,
  Color,
  DirectionalLight,
  Mesh,
  MeshBasicMaterial,
  PerspectiveCamera,
  PlaneGeometry,
  Scene,
  SRGBColorSpace,
  Texture,
  Vector3,
  WebGLRenderer,
} from 'three';
import { TABLE } from './physics';
import { SUN_POSITION } from './shaders';

export class Stage {
  readonly scene = new Scene();
  readonly camera = new PerspectiveCamera(36, 1, 0.1, 200);
  private readonly table: Mesh<PlaneGeometry, MeshBasicMaterial>;
  private background: string | null = null;
  /** the background image drawn on the table now (tests wait for it) */
  shown: string | null = null;
  readonly shadowTexture = shadowTexture();

  constructor(private readonly overlay: boolean) {
    this.scene.add(new AmbientLight(0xffffff, 1.6));
    const sun = new DirectionalLight(0xffffff, 1.9);
    sun.position.copy(SUN_POSITION);
    this.scene.add(sun);
    this.table = new Mesh(
      new PlaneGeometry(TABLE.x * 2, TABLE.z * 2),
      new MeshBasicMaterial({ color: 0x1a4434, transparent: true, opacity: overlay ? 0 : 0.55 }),
    );
    this.table.rotation.x = -Math.PI / 2;
    this.table.position.y = -0.005;
    this.scene.add(this.table);
  }

  /**
   * Frame the table in a `width` × `height` canvas, leaving `top` pixels above it free (the roll cards
   * are there: no die may rest under them). `extent` frames a smaller box (half sizes) instead: the
   * theme preview frames its row of dice.
   */
  fit(width: number, height: number, top: number, extent = { x: TABLE.x, z: TABLE.z, y: 1.2 }) {
    const band = Math.max(1, height - top);
    const cam = this.camera;
    cam.aspect = width / band;
    cam.clearViewOffset();
    const direction = new Vector3(0, 1, 0.5).normalize();
    const corners: Vector3[] = [];
    for (const x of [-1, 1]) for (const z of [-1, 1]) for (const y of [0, extent.y]) corners.push(new Vector3(x * extent.x, y, z * extent.z));
    let lo = 2,
      hi = 150;
    for (let i = 0; i < 40; i++) {
      const d = (lo + hi) / 2;
      cam.position.copy(direction).multiplyScalar(d);
      cam.lookAt(0, 0, 0);
      cam.updateProjectionMatrix();
      cam.updateMatrixWorld(true);
      const fits = corners.every((c) => {
        const p = c.clone().project(cam);
        return Math.abs(p.x) <= 0.97 && Math.abs(p.y) <= 0.97 && p.z < 1;
      });
      if (fits) hi = d;
      else lo = d;
    }
    cam.position.copy(direction).multiplyScalar(hi);
    cam.lookAt(0, 0, 0);
    // The framed view fills the canvas below the band: the canvas extends it upwards by `top` pixels.
    cam.setViewOffset(width, band, 0, -(height - band), width, height);
    cam.updateProjectionMatrix();
    cam.updateMatrixWorld(true);
  }

  /** The room's background image on the table (`bg_file_path`, a keyless URL), or the felt without one. */
  async setBackground(url: string | null): Promise<void> {
    if (url === this.background) return;
    this.background = url;
    const material = this.table.material;
    material.map?.dispose();
    material.map = null;
    this.shown = null;
    material.color.set(0x1a4434);
    material.opacity = this.overlay ? 0 : 0.55;
    material.needsUpdate = true;
    if (!url) return;
    const response = await fetch(url);
    if (!response.ok || url !== this.background) return;
    const image = await createImageBitmap(await response.blob());
    if (url !== this.background) return;
    const texture = new Texture(image);
    texture.flipY = false;
    texture.colorSpace = SRGBColorSpace;
    // Cover the table (as CSS background-size: cover), centred.
    const tableAspect = TABLE.x / TABLE.z;
    const imageAspect = image.width / image.height;
    if (imageAspect > tableAspect) {
      texture.repeat.set(tableAspect / imageAspect, 1);
      texture.offset.set((1 - texture.repeat.x) / 2, 0);
    } else {
      texture.repeat.set(1, imageAspect / tableAspect);
      texture.offset.set(0, (1 - texture.repeat.y) / 2);
    }
    // ImageBitmaps are not flipped: turn the plane's v so the image stands upright.
    texture.repeat.y *= -1;
    texture.offset.y = 1 - texture.offset.y;
    texture.needsUpdate = true;
    material.map = texture;
    this.shown = url;
    material.color.set(0xffffff);
    material.opacity = 1;
    material.needsUpdate = true;
  }
}

/** A soft round shadow under each die (cheaper than shadow maps on software GL). */
function shadowTexture(): CanvasTexture {
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 64;
  const ctx = canvas.getContext('2d')!;
  const gradient = ctx.createRadialGradient(32, 32, 4, 32, 32, 32);
  gradient.addColorStop(0, 'rgba(0,0,0,0.5)');
  gradient.addColorStop(1, 'rgba(0,0,0,0)');
  ctx.fillStyle = gradient;
  ctx.fillRect(0, 0, 64, 64);
  return new CanvasTexture(canvas);
}

/** A software renderer (SwiftShader, llvmpipe): multisampling there halves the frame rate, so it is left off. */
export function softwareGl(): boolean {
  try {
    const gl = document.createElement('canvas').getContext('webgl');
    const info = gl?.getExtension('WEBGL_debug_renderer_info');
    const name = info && gl ? String(gl.getParameter(info.UNMASKED_RENDERER_WEBGL)) : '';
    gl?.getExtension('WEBGL_lose_context')?.loseContext();
    return /swiftshader|llvmpipe|software/i.test(name);
  } catch {
    return false;
  }
}

/**
 * A transparent WebGL renderer on `canvas` (the table's and the theme shelf's), or null when this
 * browser has no WebGL: callers then leave the 3D view out and their lists show every value.
 */
export function createRenderer(canvas: HTMLCanvasElement): WebGLRenderer | null {
  let renderer: WebGLRenderer;
  try {
    renderer = new WebGLRenderer({ canvas, antialias: !softwareGl(), alpha: true, preserveDrawingBuffer: true });
  } catch {
    return null;
  }
  renderer.setClearColor(new Color(0x000000), 0);
  renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
  return renderer;
}
