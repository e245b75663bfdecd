import escapeHtml from 'escape-html';
import type { PageState } from './state';

const TITLES: Record<PageState['view'], string> = { signin: 'Sign in', signup: 'Sign up', claim: 'Keep your guest account', account: 'Your account' };

/**
 * An account page's HTML: a fixed shell whose only values (the state as JSON, the asset version) go
 * through escape-html. The script renders the page from the state with Preact.
 */
export function renderShell(state: PageState, assetVersion: string): string {
  const v = escapeHtml(assetVersion);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="dark light">
<title>${escapeHtml(TITLES[state.view])} · Dice</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/accounts/assets/accounts.css?v=${v}">
<script type="module" src="/accounts/assets/accounts.js?v=${v}"></script>
</head>
<body>
<div id="app" data-page="${escapeHtml(JSON.stringify(state))}"><noscript><p>These pages need JavaScript.</p></noscript></div>
</body>
</html>
`;
}
