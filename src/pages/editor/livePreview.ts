/**
 * The editor's 3D preview: the theme preview's shelf (src/board/dice/shelf.ts: every die resting face
 * up, drawn as the board draws it, custom shaders included) redrawn after every change of the draft,
 * in place, with no reload.
 *
 * The theme's files are fetched and decoded once (src/board/dice/themes.ts, by file name); each change
 * makes a new look of the draft over those same decoded files (a new ThemeAssets sharing them), so a
 * colour or a face costs a redraw, never a download. Changes coming faster than the redraws are folded
 * into the next one. The old looks are freed (materials.ts disposeKinds). Shader sources are compiled
 * on the shelf's own renderer: a failing one makes the preview fall back to the built-in look (with the
 * board's one message) and its compile errors, with line numbers, are answered to the page.
 */
import type { Theme } from '../../client/types';
import { DiceShelf } from '../../board/dice/shelf';
import { disposeKinds } from '../../board/dice/materials';
import { configureThemes, themeAssets, type ThemeAssets } from '../../board/dice/themes';
import type { ShaderDiagnostic } from '../../board/dice/shaders';
import { dieOf, previewTheme, type Draft } from './draft';

export interface PreviewState {
  /** the board's message when the draft cannot be drawn in its own look (a shader that fails), else '' */
  note: string;
  /** what the compiler says of the draft's shaders (empty: fine, or none) */
  diagnostics: ShaderDiagnostic[];
  /** redraws done, for tests that wait for one */
  drawn: number;
}

export class LivePreview {
  private base: ThemeAssets | null = null;
  private current: ThemeAssets | null = null;
  private pending: Draft | null = null;
  private running = false;
  private note = '';
  private drawn = 0;

  private constructor(
    private readonly shelf: DiceShelf,
    private readonly onState: (state: PreviewState) => void,
  ) {}

  /** A preview on `canvas`, or null without WebGL. `urls`: file name -> URL of the theme's files so far. */
  static create(canvas: HTMLCanvasElement, onState: (state: PreviewState) => void): LivePreview | null {
    const shelf = DiceShelf.create(canvas);
    return shelf ? new LivePreview(shelf, onState) : null;
  }

  /** Fetch and decode the files of the theme being edited (once), by name. */
  async load(draft: Draft, urls: Map<string, string>, owner: Theme['user']) {
    configureThemes({
      readTheme: async () => ({ ...previewTheme(draft, owner), assets: Object.fromEntries(urls) }),
      apiKey: null,
      report: (message) => (this.note = message),
    });
    this.base = await themeAssets(draft.id || 'draft');
  }

  /** Decoded image of a file picked on the page (a face image, a texture), under its file name. */
  async addImage(name: string, file: Blob, use: 'face' | 'texture') {
    const image = await createImageBitmap(file);
    (use === 'face' ? this.base?.images : this.base?.textures)?.set(name, image);
  }

  /** Draw `draft` (after the redraw under way, if any; only the newest waiting draft is drawn). */
  update(draft: Draft) {
    this.pending = draft;
    if (!this.running) void this.run();
  }

  private async run() {
    this.running = true;
    try {
      while (this.pending) {
        const draft = this.pending;
        this.pending = null;
        await this.draw(draft);
      }
    } finally {
      this.running = false;
    }
  }

  private async draw(draft: Draft) {
    if (!this.base) return;
    const theme = previewTheme(draft, this.base.theme?.user ?? null);
    const next: ThemeAssets = { ...this.base, theme, failed: this.base.failed };
    this.note = this.base.failed ? this.note : '';
    try {
      await this.shelf.show(
        next,
        draft.available_dice.map((d) => dieOf(d).id),
      );
    } catch (err) {
      this.note = `The preview could not be drawn: ${err instanceof Error ? err.message : String(err)}`;
    }
    if (this.current) disposeKinds(this.current);
    this.current = next;
    const diagnostics =
      theme.frag_shader || theme.vert_shader
        ? this.shelf.diagnose({ frag_shader: theme.frag_shader, vert_shader: theme.vert_shader, uniforms: theme.uniforms })
        : [];
    this.drawn++;
    this.onState({ note: this.note, diagnostics, drawn: this.drawn });
  }

  snapshot() {
    return this.shelf.snapshot();
  }
}
