/**
 * The page a share link opens in a browser: what it offers and how to accept it. Self-contained (no
 * external resources, no script), every value escaped.
 */
import type { PresentedUser } from '../../users/present';

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const HEX = /^#[0-9a-f]{3,8}$/i;
/** Only hex colours reach the style attribute; anything else falls back to neutral colours. */
const colour = (value: unknown, fallback: string) => (typeof value === 'string' && HEX.test(value) ? value : fallback);

const STYLE = `
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f4f4f5; color: #18181b; }
  main { max-width: 36rem; margin: 3rem auto; padding: 2rem; background: #fff; border-radius: 12px; box-shadow: 0 1px 4px #0002; }
  h1 { font-size: 1.4rem; margin: 0 0 1rem; }
  .label { display: inline-block; padding: .3rem .8rem; border-radius: 999px; font-weight: 600; }
  .meta { color: #52525b; }
  pre { background: #18181b; color: #f4f4f5; padding: 1rem; border-radius: 8px; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
  code { font-family: ui-monospace, monospace; }
`;

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body><main>
${body}
</main></body>
</html>
`;
}

export interface SharePageData {
  theme: { id: string; name: string; version: string; description: string; label: { color?: unknown; background_color?: unknown } };
  user: PresentedUser | null;
  expiresAt: string | null;
  acceptUrl: string;
  /** the theme's preview page (root-relative), with this link's code (src/themes/preview/) */
  previewUrl: string;
}

export function sharePage(data: SharePageData): string {
  const { theme, user } = data;
  const label = `color: ${colour(theme.label.color, '#ffffff')}; background: ${colour(theme.label.background_color, '#3f3f46')}`;
  const sharer = user ? `${escapeHtml(user.name)} (@${escapeHtml(user.username)})` : 'someone';
  return layout(
    `${theme.name}: a dice theme shared with you`,
    `<h1>${sharer} shared a dice theme with you</h1>
<p><span class="label" style="${escapeHtml(label)}">${escapeHtml(theme.name)}</span></p>
<p class="meta">Theme <code>${escapeHtml(theme.id)}</code>, version ${escapeHtml(theme.version)}${data.expiresAt ? `. This link works until ${escapeHtml(data.expiresAt)}` : ''}.</p>
${theme.description ? `<p>${escapeHtml(theme.description)}</p>` : ''}
<p><a id="preview" href="${escapeHtml(data.previewUrl)}">See its dice</a></p>
<h2>Add it to your dice box</h2>
<p>Give this link to an app that rolls dice with this server, or accept it with your API key:</p>
<pre><code>curl -X POST -H "Authorization: Bearer YOUR_API_KEY" \\
  ${escapeHtml(data.acceptUrl)}</code></pre>
<p class="meta">Once accepted, the theme is in your dice box and you can roll with it.</p>`,
  );
}

export function shareErrorPage(status: number, message: string): string {
  return layout(status === 410 ? 'This share link no longer works' : 'Share link not found', `<h1>${status === 410 ? 'This share link no longer works' : 'Share link not found'}</h1>
<p>${escapeHtml(message)}</p>`);
}
