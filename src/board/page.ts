import { escapeHtml } from '../openapi/html';

/**
 * The board's HTML shell. The slug comes from the URL and is checked against the slug pattern before
 * it gets here; it is escaped anyway. Everything the server sends later is put in the DOM as text by
 * the script (src/board/main.ts), never as HTML.
 */
export function renderBoardPage(slug: string, overlay: boolean, assetVersion: string): string {
  const s = escapeHtml(slug);
  const v = escapeHtml(assetVersion);
  return `<!doctype html>
<html lang="en" class="${overlay ? 'overlay' : ''}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="${overlay ? 'normal' : 'dark light'}">
<title>Dice board · ${s}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/board/assets/board.css?v=${v}">
<script type="module" src="/board/assets/board.js?v=${v}"></script>
</head>
<body data-slug="${s}">
<div id="app">
  <header class="bar">
    <h1 id="room-name">Dice board</h1>
    <span id="connection" class="connection" data-state="offline">offline</span>
    <span id="me" class="me"></span>
    <button id="sound-toggle" class="link" type="button" aria-pressed="true" title="Theme sounds (they start after your first click)">Sound on</button>
    <button id="sign-out" class="link" type="button" hidden>Change key</button>
  </header>

  <section id="login" class="panel" hidden>
    <h2>Sign in to roll</h2>
    <p>Paste an API key, or play as a guest.</p>
    <form id="key-form" autocomplete="off">
      <label>API key <input id="key-input" name="key" type="password" placeholder="dk_…" spellcheck="false"></label>
      <button type="submit">Use this key</button>
    </form>
    <button id="guest" type="button" class="secondary">Play as guest</button>
    <p id="login-error" class="error" role="alert"></p>
  </section>

  <section id="passcode" class="panel" hidden>
    <h2>This room is private</h2>
    <p id="passcode-reason">Enter its passcode to join.</p>
    <form id="passcode-form" autocomplete="off">
      <label>Passcode <input id="passcode-input" name="passcode" type="password" spellcheck="false"></label>
      <button type="submit">Join</button>
    </form>
    <p id="passcode-error" class="error" role="alert"></p>
  </section>

  <section id="join" class="panel" role="dialog" aria-labelledby="join-title" aria-describedby="join-reason" hidden>
    <h2 id="join-title">Join this room?</h2>
    <p id="join-reason">You are not a player in this room yet. Joining adds you to its players, under your name; they will see you and your rolls.</p>
    <div class="row">
      <button id="join-confirm" type="button">Join</button>
      <button id="join-cancel" type="button" class="secondary">Cancel</button>
    </div>
  </section>

  <p id="fatal" class="panel error" role="alert" hidden></p>

  <main id="board" hidden>
    <div id="stage" class="stage">
      <canvas id="dice-canvas"></canvas>
      <div id="stage-note" class="stage-note" hidden></div>
      <div id="theme-note" class="stage-note theme-note" role="status" hidden></div>
      <div id="last-roll" class="last-roll" aria-live="polite"></div>
    </div>
    <aside class="side">
      <section class="participants">
        <h2>Players</h2>
        <ul id="participants"></ul>
      </section>
      <section id="tray" class="tray" hidden>
        <h2>Your dice tray</h2>
        <div id="tray-rows" class="tray-rows" role="group" aria-label="Dice tray: one click rolls a row"></div>
      </section>
      <form id="roll-form" class="roll-form" autocomplete="off">
        <h2>Roll</h2>
        <div id="picker" class="picker" role="group" aria-label="Dice"></div>
        <label>Equation <input id="equation" name="equation" placeholder="2d6+1d20+3" spellcheck="false" maxlength="1000"></label>
        <div class="row">
          <label class="inline">Theme <select id="theme"><option value="standard">standard</option></select></label>
          <label class="inline"><input id="hidden-roll" type="checkbox"> hidden</label>
        </div>
        <div class="row">
          <button id="roll-button" type="submit">Roll</button>
          <button id="clear-picker" type="button" class="secondary">Clear</button>
        </div>
        <p id="roll-error" class="error" role="alert"></p>
      </form>
      <section class="history">
        <div class="history-head"><h2>Rolls</h2><button id="stats-open" type="button" class="link">Statistics</button></div>
        <ol id="rolls"></ol>
      </section>
    </aside>
  </main>
  <dialog id="stats-dialog" class="stats" aria-labelledby="stats-title"></dialog>
</div>
</body>
</html>`;
}
