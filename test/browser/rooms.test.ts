import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { useServer } from '../helpers/server';
import { useChromium, watchPage } from './chromium';
import { checkPage } from './pageChecks';

/**
 * Rooms for people, in Chromium, by clicks and typing: a person with no key creates a private room on
 * the home page and copies its invite; a second browser opens the invite and is in the board with no
 * other step; a roll from either is seen by both. A signed-in person's home page and board are their
 * account's (the page key), and an invite opened signed in joins as the account. axe-core (no serious
 * or critical violation) and no sideways scrolling at 1280 and 375 px on the home page and the board.
 * Screenshots go to $ROOMS_SCREENSHOTS (default: a temporary directory), to be looked at.
 */
const ctx = useServer(test);
const chrome = useChromium(test);
const logs: string[] = [];
test.afterEach.always((t) => {
  if (!t.passed && logs.length) t.log(logs.join('\n'));
});

const SHOTS = process.env.ROOMS_SCREENSHOTS ?? fs.mkdtempSync(path.join(os.tmpdir(), 'rooms-pages-'));
fs.mkdirSync(SHOTS, { recursive: true });

async function newPage(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  watchPage(page, logs);
  return page;
}

const live = (page: Page) => page.locator('#connection[data-state="online"]').waitFor({ state: 'attached', timeout: 20_000 });

/** Roll an equation by typing it; answers the new roll's uuid once listed. */
async function roll(page: Page, equation: string, seen: string[]): Promise<string> {
  await page.getByLabel('Equation').fill(equation);
  await page.getByRole('button', { name: 'Roll', exact: true }).click();
  const handle = await page.waitForFunction(
    (not) => {
      const first = document.querySelector('#rolls li') as HTMLElement | null;
      const uuid = first?.dataset.rollUuid;
      return uuid && !not.includes(uuid) ? uuid : null;
    },
    seen,
    { timeout: 20_000 },
  );
  return (await handle.jsonValue()) as string;
}

const rollShown = (page: Page, uuid: string) => page.locator(`#rolls li[data-roll-uuid="${uuid}"]`).waitFor({ timeout: 20_000 });

let invite = '';
let roomSlug = '';

test.serial("a person with no key creates a private room, copies its invite; a second browser opens it and is in; both see each other's rolls", async (t) => {
  t.timeout(180_000);
  const first = await chrome.browser.newContext({ viewport: { width: 1280, height: 800 }, permissions: ['clipboard-read', 'clipboard-write'] });
  const second = await chrome.browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const gm = await newPage(first);
    await gm.goto(`${ctx.server.url}/`);
    await gm.getByRole('heading', { name: 'My rooms' }).waitFor();
    await gm.getByText('Rooms you create or join show up here.').waitFor();
    t.is(await gm.evaluate(() => localStorage.getItem('openDice.apiKey')), null, 'looking at the page made no guest');
    await checkPage(t, gm, 'home-new', { shots: SHOTS });

    // Create a room: typed name, Private (the default), the button.
    await gm.getByLabel('Room name').fill('Friday <b>night</b> table');
    t.true(await gm.getByLabel(/Private/).isChecked());
    await gm.getByRole('button', { name: 'Create a room' }).click();
    await gm.waitForURL(/\/room\/[\w-]+$/);
    await live(gm);
    roomSlug = new URL(gm.url()).pathname.split('/').pop()!;
    t.is(await gm.locator('#room-name').textContent(), 'Friday <b>night</b> table', 'the name is text');
    t.is(await gm.locator('#invite-title').textContent(), 'Your room is ready: invite your players');
    const copyButton = gm.getByRole('button', { name: 'Copy invite link' });
    t.true(await copyButton.evaluate((b) => b === document.activeElement), 'the Copy button has the focus');
    const passcode = (await gm.locator('#invite-passcode-value').textContent())!;
    t.regex(passcode, /^[\w-]{4,}$/, 'the passcode is shown');
    await copyButton.click();
    await gm.getByText('Invite link copied').waitFor();
    invite = (await gm.evaluate(() => navigator.clipboard.readText())) as string;
    t.is(invite, await gm.getByLabel('Invite link').inputValue());
    t.is(invite, `${ctx.server.url}/room/${roomSlug}?passcode=${passcode}`);
    t.is(await gm.getByRole('link', { name: 'Room settings' }).getAttribute('href'), `/room/${roomSlug}/settings`);
    await checkPage(t, gm, 'board-owner', { shots: SHOTS });

    // A second browser, no key at all, opens the invite: in the board with no other step.
    const player = await newPage(second);
    await player.goto(invite);
    await live(player);
    t.false(player.url().includes('passcode'), `the passcode left the address bar: ${player.url()}`);
    t.regex((await player.locator('#me').textContent())!, /^guest-/i, 'a new guest');
    for (const page of [gm, player])
      await page.waitForFunction(() => document.querySelectorAll('#participants li[data-online="true"]').length === 2, null, { timeout: 20_000 });
    t.is(await player.getByLabel('Invite link').inputValue(), invite, 'a player of a private room may invite too');
    await checkPage(t, player, 'board-invited', { shots: SHOTS });

    // A roll from either is seen by both.
    const fromPlayer = await roll(player, '2d6+1', []);
    await rollShown(gm, fromPlayer);
    const fromGm = await roll(gm, '1d20', [fromPlayer]);
    await rollShown(player, fromGm);
    t.is(
      await gm.locator(`#rolls li[data-roll-uuid="${fromPlayer}"] .total`).textContent(),
      await player.locator(`#rolls li[data-roll-uuid="${fromPlayer}"] .total`).textContent(),
    );

    // Back on the home page: the room is under My rooms, and the guest is named in the header.
    await gm.goto(`${ctx.server.url}/`);
    await gm.getByRole('link', { name: 'Friday <b>night</b> table' }).waitFor();
    t.is(await gm.getByRole('link', { name: 'Friday <b>night</b> table' }).getAttribute('href'), `/room/${roomSlug}`);
    await gm.getByText('(guest)').waitFor();
    await checkPage(t, gm, 'home-with-room', { shots: SHOTS });
  } finally {
    await first.close();
    await second.close();
  }
});

test.serial("a signed-in person's pages use their account: the home page, a room they create, an invite they open", async (t) => {
  t.timeout(180_000);
  t.truthy(invite, 'the first test made the invite');
  const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await newPage(context);
    const username = `gm${Date.now() % 100_000}`;
    await page.goto(`${ctx.server.url}/`);
    await page.getByRole('link', { name: 'Sign up' }).click();
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill('dice under the table');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.waitForURL(`${ctx.server.url}/`);
    await page.getByText(`Signed in as ${username}`).waitFor();
    await page.getByText('Rooms you create or join show up here.').or(page.getByText('No rooms yet')).waitFor();

    await page.getByLabel('Room name').fill('Campaign');
    await page.getByLabel(/Public/).check();
    await page.getByRole('button', { name: 'Create a room' }).click();
    await page.waitForURL(/\/room\/[\w-]+$/);
    await live(page);
    t.is(await page.locator('#me').textContent(), username, 'the board is the account, not a guest');
    t.true(await page.locator('#sign-out').isHidden(), 'no "Change key" when signed in');
    t.false(await page.locator('#invite-passcode').isVisible(), 'a public room has no passcode to show');
    t.regex(await page.getByLabel('Invite link').inputValue(), /\/room\/[\w-]+$/);
    t.is(await page.evaluate(() => localStorage.getItem('openDice.apiKey')), null, 'no guest was made');

    // The private room's invite, opened signed in: joined as the account.
    await page.goto(invite);
    await live(page);
    t.is(await page.locator('#me').textContent(), username);
    await page.waitForFunction((name) => Array.from(document.querySelectorAll('#participants .name')).some((n) => n.textContent === name), username, {
      timeout: 20_000,
    });

    // Someone else's public room: its address opened from anywhere asks first (no passcode proves
    // that the person meant it) ...
    const host = await ctx.server.newUser();
    const tavern = (await host.api.post('/room', { name: 'Open tavern', is_public: true })).body.data.slug as string;
    await page.goto(`${ctx.server.url}/room/${tavern}`);
    await page.getByRole('dialog', { name: 'Join "Open tavern"?' }).waitFor();
    t.false(await page.locator('#board').isVisible());
    // ... while Join a room on the home page, with its slug, goes straight in (the person asked here).
    await page.goto(`${ctx.server.url}/`);
    await page.getByRole('link', { name: 'Campaign' }).waitFor();
    await page.getByRole('link', { name: 'Friday <b>night</b> table' }).waitFor();
    await page.getByLabel('Invite link or room slug').fill('not a room address!');
    await page.getByRole('button', { name: 'Join a room' }).click();
    await page.getByText('Paste an invite link').waitFor();
    await page.getByLabel('Invite link or room slug').fill(`  ${tavern} `);
    await page.getByRole('button', { name: 'Join a room' }).click();
    await page.waitForURL(`${ctx.server.url}/room/${tavern}`);
    await live(page);
    await page.waitForFunction((name) => Array.from(document.querySelectorAll('#participants .name')).some((n) => n.textContent === name), username, {
      timeout: 20_000,
    });

    // My rooms pages as the API does, 10 a page: 13 rooms make two pages.
    const pageKey = (await page.evaluate(() => JSON.parse(localStorage.getItem('openDice.pageKey') ?? 'null')?.key)) as string;
    for (let i = 1; i <= 10; i++) {
      const made = await fetch(`${ctx.server.url}/api/1.0/room`, {
        method: 'POST',
        headers: { authorization: `Bearer ${pageKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Extra ${i}` }),
      });
      t.is(made.status, 201);
    }
    await page.goto(`${ctx.server.url}/`);
    await page.getByText('Page 1 of 2').waitFor();
    const firstPage = await page.locator('.room-name').allTextContents();
    t.is(firstPage.length, 10);
    t.true(await page.getByRole('button', { name: 'Previous page' }).isDisabled());
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText('Page 2 of 2').waitFor();
    const secondPage = await page.locator('.room-name').allTextContents();
    t.is(secondPage.length, 3);
    t.deepEqual(
      [...firstPage, ...secondPage].sort(),
      ['Campaign', 'Friday <b>night</b> table', 'Open tavern', ...Array.from({ length: 10 }, (_, i) => `Extra ${i + 1}`)].sort(),
      'owned and joined, each once',
    );
    await checkPage(t, page, 'home-signed-in', { shots: SHOTS });

    // The developer settings list the session's page key; signing out revokes it.
    await page.goto(`${ctx.server.url}/account`);
    await page.getByText('Web session').first().waitFor();
    const kept = (await page.evaluate(() => JSON.parse(localStorage.getItem('openDice.pageKey') ?? 'null')?.key)) as string;
    t.regex(kept, /^dk_/);
    t.is((await fetch(`${ctx.server.url}/api/1.0/user`, { headers: { authorization: `Bearer ${kept}` } })).status, 200);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/signin/);
    t.is((await fetch(`${ctx.server.url}/api/1.0/user`, { headers: { authorization: `Bearer ${kept}` } })).status, 401, 'the page key ended with the session');
  } finally {
    await context.close();
  }
});
