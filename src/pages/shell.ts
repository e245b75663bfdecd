import escapeHtml from 'escape-html';

/**
 * The one HTML shell of every page for people (the home page, the board, the account pages): a fixed
 * document whose only values go through escape-html (the title, asset URLs, `data-*` attributes); the
 * page's script renders everything else from those attributes (Preact, or the board's DOM code),
 * putting every value in the DOM as text. `markup`, when given, is fixed markup written in the
 * source (the board's skeleton), never a value.
 *
 * The headers every such page is served with are here too: scripts and styles from this server only,
 * no inline script, no referrer (an invite's passcode in the address must not travel on to another site).
 */

export const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-cache',
  // Scripts and styles from this server only: a username that slipped through as HTML could run nothing.
  // connect-src data:: three's GLTFLoader fetches a .gltf model's embedded buffers and images (data: URIs).
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'",
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
};

/**
 * Pages with the signed-in person's controls (forms that revoke keys, create rooms, end sessions):
 * framed by no site, and never kept by a cache (they carry CSRF tokens and, once, a new key).
 */
export const PRIVATE_PAGE_HEADERS = {
  ...PAGE_HEADERS,
  'Content-Security-Policy': `${PAGE_HEADERS['Content-Security-Policy']}; frame-ancestors 'none'`,
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
};

export interface Shell {
  title: string;
  /** Style sheet URLs (of this server). */
  styles: readonly string[];
  /** Module script URLs (of this server). */
  scripts: readonly string[];
  /**
   * Classic script URLs (of this server) run first, before the page goes on parsing: for what must
   * happen at once (the stream address takes its key out of the address bar, src/pages/stream/).
   */
  firstScripts?: readonly string[];
  /** `data-*` attributes of <body> (names without `data-`, in the attribute's own spelling). */
  body?: Readonly<Record<string, string | undefined>>;
  /** `data-*` attributes of the #app element that the script renders into. */
  app?: Readonly<Record<string, string | undefined>>;
  /** Fixed markup inside #app, written in the source (never a value); default: a sentence for browsers without JavaScript. */
  markup?: string;
  /** A class on <html> (the board's overlay mode). */
  htmlClass?: string;
  /** The <meta name="color-scheme"> content. */
  colorScheme?: string;
}

const DATA_NAME = /^[a-z][a-z0-9-]*$/;

function dataAttributes(values: Readonly<Record<string, string | undefined>> | undefined): string {
  let out = '';
  for (const [name, value] of Object.entries(values ?? {})) {
    if (value === undefined) continue;
    if (!DATA_NAME.test(name)) throw new Error(`not a data attribute name: ${name}`);
    out += ` data-${name}="${escapeHtml(value)}"`;
  }
  return out;
}

const NO_SCRIPT = '<noscript><p>This page needs JavaScript.</p></noscript>';

export function renderShell(page: Shell): string {
  const styles = page.styles.map((href) => `<link rel="stylesheet" href="${escapeHtml(href)}">`).join('\n');
  const first = (page.firstScripts ?? []).map((src) => `<script src="${escapeHtml(src)}"></script>\n`).join('');
  const scripts = page.scripts.map((src) => `<script type="module" src="${escapeHtml(src)}"></script>`).join('\n');
  return `<!doctype html>
<html lang="en"${page.htmlClass ? ` class="${escapeHtml(page.htmlClass)}"` : ''}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="${escapeHtml(page.colorScheme ?? 'dark light')}">
${first}<title>${escapeHtml(page.title)}</title>
<link rel="icon" href="data:,">
${styles}
${scripts}
</head>
<body${dataAttributes(page.body)}>
<div id="app"${dataAttributes(page.app)}>${page.markup ?? NO_SCRIPT}</div>
</body>
</html>
`;
}
