import escapeHtml from 'escape-html';
import type { ActivatePageState } from './state';

/**
 * The /activate page's HTML: a fixed shell whose only values (the state as JSON, the asset versions)
 * go through escape-html. The account pages' style sheet, then this page's few rules.
 */
export function renderShell(state: ActivatePageState, versions: { accounts: string; activate: string }): string {
  const a = escapeHtml(versions.accounts);
  const v = escapeHtml(versions.activate);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="dark light">
<title>Connect an integration · Dice</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/accounts/assets/accounts.css?v=${a}">
<link rel="stylesheet" href="/activation/assets/activate.css?v=${v}">
<script type="module" src="/activation/assets/activate.js?v=${v}"></script>
</head>
<body>
<div id="app" data-page="${escapeHtml(JSON.stringify(state))}"><noscript><p>This page needs JavaScript.</p></noscript></div>
</body>
</html>
`;
}
