import escapeHtml from 'escape-html';

/**
 * The room page's HTML: a fixed shell whose only values (the slug, already checked against the slug
 * pattern, and the asset versions) go through escape-html. The script (main.ts) renders the page with
 * Preact from what the API answers, every value as text.
 */
export function renderRoomShell(slug: string, versions: { js: string; css: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="dark light">
<meta name="robots" content="noindex">
<title>Room settings · Dice</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/room-page/assets/room.css?v=${escapeHtml(versions.css)}">
<script type="module" src="/room-page/assets/room.js?v=${escapeHtml(versions.js)}"></script>
</head>
<body data-slug="${escapeHtml(slug)}">
<div id="app"><noscript><p>This page needs JavaScript.</p></noscript></div>
</body>
</html>
`;
}
