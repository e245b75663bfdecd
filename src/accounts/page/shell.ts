import { renderShell as renderPage } from '../../pages/shell';
import type { PageState } from './state';

const TITLES: Record<PageState['view'], string> = { signin: 'Sign in', signup: 'Sign up', claim: 'Keep your guest account', account: 'Your account' };

/**
 * An account page's HTML: the shared page shell (src/pages/shell.ts) with the state as JSON in #app's
 * data-page. The script renders the page from the state with Preact.
 */
export function renderShell(state: PageState, assetVersion: string): string {
  return renderPage({
    title: `${TITLES[state.view]} · Dice`,
    styles: [`/accounts/assets/accounts.css?v=${assetVersion}`],
    scripts: [`/accounts/assets/accounts.js?v=${assetVersion}`],
    app: { page: JSON.stringify(state) },
    markup: '<noscript><p>These pages need JavaScript.</p></noscript>',
  });
}
