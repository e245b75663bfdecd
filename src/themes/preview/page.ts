/**
 * The theme preview page's HTML shell: the script (src/board/preview.ts, bundled like the board) reads
 * what to show from <body data-*> and fetches it from the keyless preview endpoint. Every value is
 * escaped; the page has no inline script or style (the board's Content-Security-Policy).
 */

function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export interface PreviewPageData {
  slug: string;
  version?: string;
  share?: string;
  /** content hash of the bundled script, for its cache-busting query */
  scriptVersion: string;
}

export function previewPage(data: PreviewPageData): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="color-scheme" content="dark light">
<title>Dice theme preview · ${escapeHtml(data.slug)}</title>
<link rel="icon" href="data:,">
<script type="module" src="/board/assets/preview.js?v=${escapeHtml(data.scriptVersion)}"></script>
</head>
<body data-theme="${escapeHtml(data.slug)}" data-version="${escapeHtml(data.version ?? '')}" data-share="${escapeHtml(data.share ?? '')}" data-state="loading">
<main id="preview"><p>Loading the theme…</p></main>
</body>
</html>
`;
}

export function previewErrorPage(status: number, message: string): string {
  const title = status === 410 ? 'This share link no longer works' : 'No theme to preview';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
</head>
<body data-state="error">
<main><h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(message)}</p></main>
</body>
</html>
`;
}
