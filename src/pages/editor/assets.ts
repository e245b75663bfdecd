import { pageBundle } from '../bundle';

/**
 * The upload and editor pages' script (main.ts: Preact, with the board's 3D preview) and style sheet
 * (the home page's look, then the editor's own), bundled once per process (src/pages/bundle.ts).
 */
export const editorAssets = pageBundle('pages/editor/main.ts', ['pages/home/home.css', 'pages/editor/editor.css']);
