/**
 * A theme's dice drawn by the board's preview renderer (src/board/dice/shelf.ts: the board's own look,
 * shaders and files included), for the pages for people (browser module):
 * - `livePreview(canvas)`: a shelf on a canvas of the page, redrawn with every version shown (the
 *   theme page);
 * - `previewPicture(theme)`: a picture of a theme's dice as a `data:` URL, drawn on one shelf kept off
 *   screen and shared by every call, one theme at a time (the dice box). A browser gives a page only
 *   a few WebGL contexts (Chromium: 16), so a dice box of fifty themes cannot have a canvas each.
 *
 * Themes are loaded (src/board/dice/themes.ts) under `id@version`, so two versions of one theme are two
 * looks. Their files come from the keyless, content-addressed URLs the theme's JSON carries.
 */
import type { DieEntry, Theme } from '../../client/types';
import { DiceShelf } from '../../board/dice/shelf';
import { configureThemes, themeAssets, type ThemeAssets } from '../../board/dice/themes';

const themes = new Map<string, Theme>();
let onReport: (message: string) => void = () => {};

configureThemes({
  readTheme: async (key) => {
    const theme = themes.get(key);
    if (!theme) throw new Error('not loaded');
    return theme;
  },
  apiKey: null,
  report: (message) => onReport(message),
});

/** Where a theme that cannot be drawn in its own look is reported (once per version, naming the theme). */
export function reportThemeProblems(report: (message: string) => void) {
  onReport = report;
}

export const dieIdOf = (entry: string | DieEntry) => (typeof entry === 'string' ? entry : entry.id);

/** A theme version's look: its files loaded once per page. */
export function assetsOf(theme: Theme): Promise<ThemeAssets> {
  const key = `${theme.id}@${theme.version}`;
  if (!themes.has(key)) themes.set(key, theme);
  return themeAssets(key);
}

export interface LivePreview {
  show(theme: Theme): Promise<void>;
  /** each die drawn, with the face lying up (tests read it) */
  snapshot(): ReturnType<DiceShelf['snapshot']>;
}

/** A shelf on `canvas`, or null without WebGL (the page then says so and lists the faces in words). */
export function livePreview(canvas: HTMLCanvasElement): LivePreview | null {
  const shelf = DiceShelf.create(canvas);
  if (!shelf) return null;
  return {
    show: async (theme) => shelf.show(await assetsOf(theme), theme.available_dice.map(dieIdOf)),
    snapshot: () => shelf.snapshot(),
  };
}

/** Dice in a picture: the first row of the shelf, as the theme page shows them all. */
const PICTURE_DICE = 6;

let painter: { shelf: DiceShelf | null; canvas: HTMLCanvasElement } | null = null;
let queue: Promise<unknown> = Promise.resolve();

function paintingShelf() {
  if (!painter) {
    const canvas = document.createElement('canvas');
    canvas.className = 'preview-painter';
    canvas.setAttribute('aria-hidden', 'true');
    document.body.append(canvas);
    painter = { canvas, shelf: DiceShelf.create(canvas) };
  }
  return painter;
}

/** A PNG `data:` URL of the theme's first dice resting face up; null without WebGL. One at a time. */
export function previewPicture(theme: Theme): Promise<string | null> {
  const job = queue.then(async () => {
    const { shelf, canvas } = paintingShelf();
    if (!shelf) return null;
    await shelf.show(await assetsOf(theme), theme.available_dice.slice(0, PICTURE_DICE).map(dieIdOf));
    // The shelf drew in show() (preserveDrawingBuffer: the picture is still there to read).
    return canvas.toDataURL('image/png');
  });
  queue = job.catch(() => undefined);
  return job;
}
