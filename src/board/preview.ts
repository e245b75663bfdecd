/**
 * The theme preview page (GET /theme/{id}/preview, /theme/{id}/version/{version}/preview; the page is
 * src/themes/preview/page.ts). It fetches the theme from the keyless preview endpoint, draws every die
 * of it resting with a face up on the board's renderer (dice/shelf.ts: the board's look, same modules),
 * and lists the dice with their faces below (also what a browser without WebGL shows).
 *
 * The page's <body> carries what to load: `data-theme`, `data-version` (optional) and `data-share` (a
 * share link's code, optional). Everything from the server goes into the DOM as text or as URLs of
 * <img>/<audio> elements, never as HTML. `body[data-state]` ends as `ready` or `error`.
 */
import type { DieEntry, Face, Theme } from '../client/types';
import { DiceShelf } from './dice/shelf';
import { configureThemes, themeAssets } from './dice/themes';

const body = document.body;

/** The keyless JSON of the theme this page shows (docs/api/themes.md, "Preview"). */
export function previewDataPath(id: string, version: string | undefined, share: string | undefined): string {
  const path = `/api/1.0/theme/${encodeURIComponent(id)}${version ? `/version/${encodeURIComponent(version)}` : ''}/preview`;
  return share ? `${path}?share=${encodeURIComponent(share)}` : path;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, className?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

/** `"d6"` or `{id, type, notation}` as one shape. */
function dieOf(entry: string | DieEntry): Required<DieEntry> {
  return typeof entry === 'string' ? { id: entry, type: entry, notation: entry } : { id: entry.id, type: entry.type, notation: entry.notation ?? entry.id };
}

function faceNode(face: Face): HTMLElement {
  if (face && typeof face === 'object' && 'src' in face && typeof face.src === 'string') {
    const img = el('img', undefined, 'face-image');
    img.src = face.src;
    img.alt = 'image face';
    img.width = 48;
    img.height = 48;
    return el('li').appendChild(img).parentElement!;
  }
  return el('li', String(face));
}

function render(theme: Theme) {
  document.title = `${theme.name} · dice theme preview`;
  const title = el('h1', theme.name, 'theme-label');
  title.style.color = theme.label.color;
  title.style.background = theme.label.background_color;
  const meta = el('p', `Theme ${theme.id}, version ${theme.version}`, 'meta');
  const description = el('p', theme.description);
  const list = el('ul', undefined, 'dice');
  list.id = 'dice';
  for (const entry of theme.available_dice) {
    const die = dieOf(entry);
    const item = el('li', undefined, 'die');
    item.dataset.die = die.id;
    item.dataset.type = die.type;
    item.append(el('strong', die.notation), el('span', ` (${die.type})`, 'type'));
    const faces = theme.values?.[die.id];
    if (faces?.length) {
      const ol = el('ol', undefined, 'faces');
      for (const face of faces) ol.append(faceNode(face));
      item.append(ol);
    }
    const mesh = theme.meshes?.[die.id];
    if (mesh) item.dataset.mesh = mesh;
    list.append(item);
  }
  const canvas = el('canvas');
  canvas.id = 'preview-canvas';
  // The CSP allows no inline style in the markup; styles set from the script are allowed.
  Object.assign(canvas.style, { display: 'block', width: '100%', maxWidth: '960px', height: '360px', borderRadius: '8px', background: '#10261d' });
  const note = el('p', undefined, 'theme-note');
  note.id = 'theme-note';
  note.hidden = true;
  const app = document.getElementById('preview')!;
  app.replaceChildren(title, meta, description, canvas, note, list);
  return { canvas, note };
}

/** Draw the theme's dice in 3D; the page's list stays whatever happens here. */
async function draw(theme: Theme, canvas: HTMLCanvasElement, note: HTMLElement) {
  configureThemes({
    readTheme: async () => theme,
    apiKey: null,
    report: (message) => {
      note.textContent = message;
      note.hidden = false;
    },
  });
  const shelf = DiceShelf.create(canvas);
  (window as unknown as { __preview: unknown }).__preview = {
    webgl: Boolean(shelf),
    dice: () => shelf?.snapshot() ?? [],
    /** compile errors of shader sources, as an editor would show them (tests) */
    shaderDiagnostics: (frag_shader: string | null, vert_shader: string | null) => shelf?.diagnose({ frag_shader, vert_shader }) ?? [],
  };
  if (!shelf) {
    canvas.hidden = true;
    note.textContent = 'No WebGL here: the dice show in the list.';
    note.hidden = false;
    return;
  }
  await shelf.show(
    await themeAssets(theme.id),
    theme.available_dice.map((entry) => dieOf(entry).id),
  );
}

async function main() {
  const id = body.dataset.theme ?? '';
  try {
    const res = await fetch(previewDataPath(id, body.dataset.version || undefined, body.dataset.share || undefined), {
      headers: { accept: 'application/json' },
    });
    const json = (await res.json()) as { type: string; data: Theme & { message?: string } };
    if (!res.ok || json.type !== 'theme') throw new Error(json.data?.message ?? `The theme could not be loaded (${res.status}).`);
    const { canvas, note } = render(json.data);
    await draw(json.data, canvas, note);
    body.dataset.state = 'ready';
  } catch (err) {
    document.getElementById('preview')!.replaceChildren(el('p', err instanceof Error ? err.message : String(err), 'error'));
    body.dataset.state = 'error';
  }
}

void main();
