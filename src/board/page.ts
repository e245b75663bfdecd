import { renderShell } from '../pages/shell';

/**
 * The board's HTML: the shared page shell (src/pages/shell.ts) around the board's fixed skeleton below.
 * The slug comes from the URL and is checked against the slug pattern before it gets here; it is
 * escaped anyway, as every `data-*` value. Everything the server sends later is put in the DOM as
 * text by the script (src/board/main.ts), never as HTML.
 *
 * `page` are more `data-*` attributes of <body> for the script: `mode` (`room` on /room/{slug}, the
 * address invites carry; `board` on /board/{slug}), and for a signed-in browser what
 * src/pages/client/pageKey.ts reads (`session`, `csrf`, `user`). `firstScript`, a path of this
 * server, runs before anything else (the stream address's, src/pages/stream/moveKey.ts).
 */
export function renderBoardPage(
  slug: string,
  overlay: boolean,
  assetVersion: string,
  page: Readonly<Record<string, string | undefined>> = {},
  firstScript?: string,
): string {
  return renderShell({
    title: `Dice board · ${slug}`,
    firstScripts: firstScript ? [firstScript] : undefined,
    styles: [`/board/assets/board.css?v=${assetVersion}`],
    scripts: [`/board/assets/board.js?v=${assetVersion}`],
    htmlClass: overlay ? 'overlay' : undefined,
    colorScheme: overlay ? 'normal' : 'dark light',
    body: { ...page, slug },
    markup: BOARD_MARKUP,
  });
}

/** The board's skeleton: fixed markup, no value in it (main.ts fills it in as text). */
const BOARD_MARKUP = `
  <header class="bar">
    <a class="home" href="/">Home</a>
    <h1 id="room-name">Dice board</h1>
    <span id="connection" class="connection" data-state="offline">offline</span>
    <span id="me" class="me"></span>
    <a id="room-page" class="bar-link" hidden>Room settings</a>
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
      <section id="invite" class="invite" aria-labelledby="invite-title" hidden>
        <h2 id="invite-title">Invite players</h2>
        <p id="invite-note" class="invite-note"></p>
        <label for="invite-link">Invite link</label>
        <div class="copy-row">
          <input id="invite-link" type="text" readonly spellcheck="false">
          <button id="copy-invite" type="button">Copy invite link</button>
        </div>
        <p id="invite-passcode" class="invite-passcode" hidden>Passcode: <code id="invite-passcode-value"></code></p>
        <p id="copy-status" class="copy-status" role="status"></p>
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
`;
