import { pageBundle } from '../../pages/bundle';

/** The account pages' script (page/main.ts, Preact) and style sheet (src/pages/bundle.ts). */
export const accountAssets = pageBundle('accounts/page/main.ts', ['accounts/page/accounts.css']);
