import type { RequestHandler } from 'express';

/**
 * GET /: what a newcomer lands on. What this server is and where everything is: the API reference,
 * the OpenAPI document, the board of a room (a form, since the slug is part of the path: the form
 * sends `?room=` here and is redirected to /board/{slug}, with no script), and health.
 */
const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-cache',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
};

export const homePage: RequestHandler = (req, res) => {
  const room = typeof req.query.room === 'string' ? req.query.room.trim().slice(0, 200) : '';
  if (room) {
    res.redirect(303, `/board/${encodeURIComponent(room)}`);
    return;
  }
  res.set(PAGE_HEADERS).send(renderHomePage());
};

/** Nothing on the page depends on the request: built once. */
let page: string | null = null;

function renderHomePage(): string {
  page ??= `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Open Dice</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>Open Dice</h1>
<p>A self-hostable 3D dice rolling service: a JSON API for dice themes, dice boxes, rolls, rooms and share
links, and live rooms over Socket.IO, so virtual tabletops, integrations and browser boards see every roll
as it happens.</p>
<h2>API</h2>
<ul>
<li><a href="/docs">/docs</a>: the API reference, every endpoint with its fields and errors</li>
<li><a href="/api/1.0/openapi.json">/api/1.0/openapi.json</a>: the same as an OpenAPI 3.1 document</li>
<li>Get a key: <code>POST /api/1.0/user</code> creates a guest and answers its key (when the server allows guests)</li>
</ul>
<h2>Board</h2>
<p>The dice board of a room, in the browser: <code>/board/{slug}</code> (add <code>?overlay=1</code> for streaming software).</p>
<form method="get" action="/">
<label for="room">Room slug</label>
<input id="room" name="room" required maxlength="200" placeholder="k7d2mqx9h4tbw3ze" autocomplete="off">
<button type="submit">Open the board</button>
</form>
<h2>Health</h2>
<ul>
<li><a href="/healthz">/healthz</a>: the process answers</li>
<li><a href="/readyz">/readyz</a>: the database (and Redis, when configured) answer</li>
</ul>
</main>
</body>
</html>`;
  return page;
}

const STYLE = `
:root { --fg: #1d1f24; --muted: #5d6470; --line: #e3e6eb; --bg: #fff; --accent: #4363d8; --code: #f4f5f8; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e8ec; --muted: #a0a6b0; --line: #2c3038; --bg: #15171b; --accent: #8aa2ff; --code: #22252b; } }
body { margin: 0; font: 16px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
main { max-width: 720px; margin: 0 auto; padding: 32px 24px; }
h2 { margin-top: 32px; border-bottom: 1px solid var(--line); padding-bottom: 4px; font-size: 20px; }
a { color: var(--accent); }
code { font-family: ui-monospace, Menlo, monospace; font-size: 0.9em; background: var(--code); padding: 1px 4px; border-radius: 4px; }
form { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
input { font: inherit; padding: 6px 8px; border: 1px solid var(--line); border-radius: 6px; min-width: 16em; background: var(--bg); color: var(--fg); }
button { font: inherit; padding: 6px 14px; border: 0; border-radius: 6px; background: var(--accent); color: #fff; cursor: pointer; }
`;
