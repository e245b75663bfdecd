import { escapeHtml } from '../openapi/html';

/**
 * GET /fairness: what the board's "verified" mark on a roll means, for players (the construction in
 * full is docs/fairness.md). Static text: nothing from a request goes into it but the stylesheet's
 * version, escaped.
 */
export function renderFairnessPage(assetVersion: string): string {
  const v = escapeHtml(assetVersion);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="dark light">
<title>Dice you can check · what "verified" means</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/board/assets/board.css?v=${v}">
</head>
<body>
<main class="explain">
<h1>Dice you can check</h1>
<p>The server draws every die from secrets it committed to <strong>before</strong> the roll, mixed with a
seed your browser chose and sent with the roll. Your board checks each roll it shows, in your browser;
"<strong>✓ verified</strong>" under a roll means every check below passed.</p>
<h2>What was checked</h2>
<ol>
<li><strong>The secret was fixed in advance.</strong> Each die used one 32-byte secret (a "leaf"). The room's
ledger published a fingerprint of 256 such secrets at once (a batch's Merkle root) before any of them was
used. The board checks that the die's secret belongs to a published batch.</li>
<li><strong>The die follows from the secret and your seed.</strong> The face is computed from the secret and the
roll's client seed with HMAC-SHA-256; the board computes it again and compares it with the face shown.
The server learns your seed only with the roll, after its secrets were fixed, so it cannot pick secrets
that give the faces it wants.</li>
<li><strong>Nothing was skipped.</strong> A roll's dice take the ledger's next secrets in order; the ledger lists
which die used each secret, so a skipped or reused one would show.</li>
</ol>
<h2>Hidden dice and whispers</h2>
<p>The secret of a hidden die is shown only to who may see the die. Others see "hidden dice not yet" until
it is revealed; then their board checks it too.</p>
<h2>What it does not cover</h2>
<ul>
<li>Values a virtual tabletop sent itself (marked as supplied by the client) are trusted as sent: no secret
decided them.</li>
<li>Someone who can read the server's database can see secrets not used yet, and so know upcoming draws
before a roll. Your seed still changes every face, so they cannot choose a roll's outcome.</li>
</ul>
<p>Anyone can check rolls outside the browser with the script <code>scripts/verify-roll.mjs</code> from the
project (Node.js only, no other code of the project); the construction is described in full in the
project's <code>docs/fairness.md</code>.</p>
</main>
</body>
</html>`;
}
