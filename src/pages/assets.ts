import { pageBundle } from './bundle';

export type { PageAssets } from './bundle';

/** The home page's script (home/main.ts, Preact) and style sheet (src/pages/bundle.ts). */
export const homeAssets = pageBundle('pages/home/main.ts', ['pages/home/home.css']);
