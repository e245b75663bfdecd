import { pageBundle } from '../../pages/bundle';

/** The /activate page's script (page/main.ts, Preact) and its style sheet (src/pages/bundle.ts). */
export const activateAssets = pageBundle('activation/page/main.ts', ['activation/page/activate.css']);
