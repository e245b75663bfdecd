import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { png } from '../fixtures/assets';
import { createTestDatabase, type TestDatabase } from '../helpers/env';
import { Api, newGuest } from '../helpers/http';
import { spawnInstance, type Instance } from '../helpers/process';
import { useChromium, watchPage } from './chromium';
import { checkPage } from './pageChecks';

/**
 * The room page (/room/{slug}/settings), the stream address (/room/{slug}/stream?key=) and dddice's
 * theme address (/dice/{id}), as people use them: clicks and typing in Chromium, the API as the
 * judge of what happened. The server is a real process (src/main.ts) logging at info, so the test
 * reads its log lines: the stream's key must not be in any of them. axe-core on every page (no
 * serious or critical violation) at 1280 and 375 px, where nothing may scroll sideways. Screenshots go
 * to $ROOM_PAGE_SCREENSHOTS (default: a temporary directory), to be looked at.
 */
const chrome = useChromium(test);
const logs: string[] = [];
let instance: Instance;
let database: TestDatabase;
let api: Api;

test.before(async () => {
  database = await createTestDatabase();
  instance = await spawnInstance(
    {
      DATA_DIR: database.dataDir,
      DATABASE_URL: database.databaseUrl ?? '',
      LOG_LEVEL: 'info',
      GUESTS_PER_HOUR: '100000',
      RATE_LIMIT_PER_MINUTE: '1000000',
      AUTH_FAILURES_PER_MINUTE: '1000000',
    },
    60_000,
  );
  api = new Api(instance.url);
});
test.after.always(async () => {
  await instance?.stop();
  await database?.drop();
});
test.afterEach.always((t) => {
  if (!t.passed && logs.length) t.log(logs.join('\n'));
});

const SHOTS = process.env.ROOM_PAGE_SCREENSHOTS ?? fs.mkdtempSync(path.join(os.tmpdir(), 'room-pages-'));
fs.mkdirSync(SHOTS, { recursive: true });

/** A browser whose board (and so this page) keeps `key`, as after "Play as guest". */
async function browserWithKey(key: string | null): Promise<{ context: BrowserContext; page: Page }> {
  const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 800 }, permissions: ['clipboard-read', 'clipboard-write'] });
  if (key) await context.addInitScript((k) => localStorage.setItem('openDice.apiKey', k), key);
  const page = await context.newPage();
  watchPage(page, logs);
  return { context, page };
}

/** The sentence beside a control (its Feedback's alert), once it says something. */
async function errorBeside(page: Page, id: string): Promise<string> {
  const line = page.locator(`#${id}`);
  await line.filter({ hasText: /\S/ }).waitFor();
  return (await line.textContent()) ?? '';
}

test('the owner manages the room on its page; a player changes name and colour and leaves', async (t) => {
  t.timeout(180_000);
  const owner = await newGuest(api);
  const player = await newGuest(api);
  const room = (await owner.api.post('/room', { name: 'Friday game', is_public: true })).body.data;
  t.is((await player.api.post(`/room/${room.slug}/participant`, {})).status, 200);
  const playerSeat = () =>
    owner.api.get(`/room/${room.slug}`).then((r) => r.body.data.participants.find((p: { user: { uuid: string } }) => p.user.uuid === player.user.uuid));
  const seat = await playerSeat();

  // The board links to the room page.
  const { context, page } = await browserWithKey(owner.key);
  await page.goto(`${instance.url}/board/${room.slug}`);
  await page.getByRole('link', { name: 'Room settings' }).click();
  await page.waitForURL(`**/room/${room.slug}/settings`);
  await page.getByRole('heading', { level: 1, name: 'Friday game' }).waitFor();
  t.is(await page.getByRole('list').getByText(seat.username, { exact: true }).count(), 1, 'the players are listed');
  await checkPage(t, page, 'room-owner', { shots: SHOTS });

  // Rename: the name is text, HTML and all; a blank one is the API's sentence beside the control.
  await page.getByLabel('Room name').fill('Tuesday <b>game</b>');
  await page.getByRole('button', { name: 'Rename' }).click();
  await page.getByText('Renamed.').waitFor();
  t.is(await page.getByRole('heading', { level: 1 }).textContent(), 'Tuesday <b>game</b>');
  t.is((await owner.api.get(`/room/${room.slug}`)).body.data.name, 'Tuesday <b>game</b>');
  await page.getByLabel('Room name').fill('   ');
  await page.getByRole('button', { name: 'Rename' }).click();
  const blank = await owner.api.patch(`/room/${room.slug}`, { name: '   ' });
  t.is(blank.status, 400);
  t.is(await errorBeside(page, 'rename-error'), blank.body.data.message, "the API's sentence, beside Rename");
  await page.getByLabel('Room name').fill('Tuesday game');
  await page.getByRole('button', { name: 'Rename' }).click();
  await page.getByText('Renamed.').waitFor();

  // Public: the invite has no passcode; copied as shown.
  t.is(await page.getByLabel('Invite link').inputValue(), `${instance.url}/room/${room.slug}`);

  // Private with a chosen passcode: the page says who is sent out before it is confirmed.
  await page.getByRole('button', { name: 'Make private' }).click();
  await page.getByText('Every player but you leaves the room').waitFor();
  // The focus moves once the question is drawn, which may come a frame after its text.
  await page.waitForFunction(() => document.activeElement?.id === 'new-passcode', null, { timeout: 10_000 }).catch(() => undefined);
  t.is(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.id), 'new-passcode', 'the question takes the focus');
  await checkPage(t, page, 'room-owner-make-private', { shots: SHOTS, dark: false });
  await page.getByLabel('Passcode', { exact: true }).fill('no');
  await page.getByRole('button', { name: 'Make private' }).click();
  t.regex(await errorBeside(page, 'access-error'), /passcode must be 4 to 64 characters/);
  await page.getByLabel('Passcode', { exact: true }).fill('table-42');
  await page.getByRole('button', { name: 'Make private' }).click();
  await page.getByText('The room is private.').waitFor();
  t.is(await page.getByLabel('Invite link').inputValue(), `${instance.url}/room/${room.slug}?passcode=table-42`);
  t.is((await player.api.get(`/room/${room.slug}`)).status, 403, 'the player was sent out');
  t.is(await page.getByRole('list').getByText(seat.username, { exact: true }).count(), 0);
  await page.getByRole('button', { name: 'Copy invite link' }).click();
  await page.getByText('Copied.').waitFor();
  t.is(await page.evaluate('navigator.clipboard.readText()'), `${instance.url}/room/${room.slug}?passcode=table-42`);

  // The player comes back with the invite's passcode; the owner removes them.
  t.is((await player.api.post(`/room/${room.slug}/participant`, { passcode: 'table-42' })).status, 200);
  // The page reads the room again when its tab comes back into view.
  await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
  const back = await playerSeat();
  await page.getByRole('button', { name: `Remove ${back.username}` }).click();
  await page.getByText(`Remove ${back.username} from the room?`).waitFor();
  await page.getByRole('button', { name: 'Remove', exact: true }).click();
  await page.getByRole('list').getByText(back.username, { exact: true }).waitFor({ state: 'detached' });
  t.is(await playerSeat(), undefined, 'removed through the API');

  // A new passcode (generated): every player but the owner is out again, the invite carries the new one.
  t.is((await player.api.post(`/room/${room.slug}/participant`, { passcode: 'table-42' })).status, 200);
  await page.getByRole('button', { name: 'Change passcode' }).click();
  await page.getByText('Every player but you leaves the room').waitFor();
  await page.getByRole('button', { name: 'Change passcode' }).click();
  await page.getByText('The passcode is changed.').waitFor();
  const renewed = (await owner.api.get(`/room/${room.slug}`)).body.data;
  t.not(renewed.passcode, 'table-42');
  t.is(await page.getByLabel('Invite link').inputValue(), `${instance.url}/room/${room.slug}?passcode=${renewed.passcode}`);
  t.is(await playerSeat(), undefined, 'a new passcode sends the player out');

  // Background image: uploaded, shown, removed.
  await page.getByLabel(/^Image/).setInputFiles({ name: 'felt.png', mimeType: 'image/png', buffer: png([20, 120, 60, 255]) });
  await page.getByRole('button', { name: 'Upload background' }).click();
  await page.getByText('Background uploaded.').waitFor();
  const background = (await owner.api.get(`/room/${room.slug}`)).body.data.bg_file_path as string;
  t.regex(background, /\/background\/[0-9a-f]{64}\.png$/);
  t.true(
    await page.getByRole('img', { name: 'The room’s background image' }).evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0),
    'the background shows',
  );
  await checkPage(t, page, 'room-owner-private', { shots: SHOTS, dark: false });
  await page.getByRole('button', { name: 'Remove background' }).click();
  await page.getByText('Background removed.').waitFor();
  t.is((await owner.api.get(`/room/${room.slug}`)).body.data.bg_file_path, null);

  // Clear the table: asked first, then every roll is gone.
  t.is((await player.api.post(`/room/${room.slug}/participant`, { passcode: renewed.passcode })).status, 200);
  t.is((await player.api.post('/roll', { dice: [{ type: 'd20', theme: 'standard' }], room: room.slug })).status, 201);
  t.is((await owner.api.get(`/room/${room.slug}/roll`)).body.data.length, 1);
  // Statistics, asked for on a click: the room's d20 as the board's dialog shows it, with its verdict in words.
  await page.getByRole('button', { name: 'Show statistics' }).click();
  const d20 = page.locator('.stats-die[data-type="d20"]');
  await d20.waitFor();
  t.regex(await d20.locator('.verdict').innerText(), /^Too few throws to judge yet \(p = /);
  t.regex(await d20.locator('.facts').first().innerText(), /^1 throw · mean \d+ \(fair: 10\.5\)$/);
  t.true(await d20.getByRole('img', { name: /Throws per face of the d20/ }).isVisible(), 'the histogram, named for screen readers');
  await checkPage(t, page, 'room-owner-stats', { shots: SHOTS, dark: false });
  await page.getByRole('button', { name: 'Clear the table' }).click();
  await page.getByText('Every roll made in this room is deleted').waitFor();
  await page.getByRole('button', { name: 'Clear the table' }).click();
  await page.getByText('The table is cleared.').waitFor();
  t.is((await owner.api.get(`/room/${room.slug}/roll`)).body.data.length, 0);
  await context.close();

  // The player's page: no owner controls; name and colour; the API's sentence for a blank name; leaving.
  const other = await browserWithKey(player.key);
  await other.page.goto(`${instance.url}/room/${room.slug}/settings`);
  await other.page.getByRole('heading', { name: 'You in this room' }).waitFor();
  t.is(await other.page.getByRole('heading', { name: 'Room settings' }).count(), 0, 'no owner controls for a player');
  t.is(await other.page.getByRole('button', { name: /^Remove / }).count(), 0);
  t.is(
    await other.page.getByLabel('Invite link').inputValue(),
    `${instance.url}/room/${room.slug}?passcode=${renewed.passcode}`,
    "a private room's players may invite",
  );
  await checkPage(t, other.page, 'room-player', { shots: SHOTS });
  await other.page.getByLabel('Your name').fill('Zoë <i>the bold</i>');
  await other.page.getByRole('button', { name: 'Change name' }).click();
  await other.page.getByText('Name changed.').waitFor();
  t.is((await playerSeat()).username, 'Zoë <i>the bold</i>');
  t.is(await other.page.getByRole('list').getByText('Zoë <i>the bold</i>', { exact: true }).count(), 1, 'shown as text');
  await other.page.getByLabel('Your name').fill(' ');
  await other.page.getByRole('button', { name: 'Change name' }).click();
  const seatNow = await playerSeat();
  const blankName = await player.api.patch(`/room/${room.slug}/participant/${seatNow.id}`, { username: ' ' });
  t.is(blankName.status, 400);
  t.is(await errorBeside(other.page, 'seat-name-error'), blankName.body.data.message);
  await other.page.getByLabel('Your colour').fill('#00ff88');
  await other.page.getByRole('button', { name: 'Change colour' }).click();
  await other.page.getByText('Colour changed.').waitFor();
  t.is((await playerSeat()).color, '#00ff88');
  // By keyboard: the button, then the question's own button (the question takes the focus).
  await other.page.getByRole('button', { name: 'Leave the room' }).focus();
  await other.page.keyboard.press('Enter');
  await other.page.getByText(/To come back you need the invite link/).waitFor();
  // The focus moves once the question has been drawn, a frame after its text shows.
  await other.page.waitForFunction(() => document.activeElement?.textContent === 'Leave the room', null, { timeout: 5000 }).catch(() => undefined);
  t.is(await other.page.evaluate(() => document.activeElement?.textContent), 'Leave the room', 'the question has the focus');
  await other.page.keyboard.press('Enter');
  await other.page.getByRole('heading', { name: 'You left the room' }).waitFor();
  t.is(await playerSeat(), undefined, 'left, by the API');
  t.is((await player.api.get(`/room/${room.slug}`)).status, 403);
  await other.context.close();

  // Without a key, and for a room that does not exist: the page says so.
  const stranger = await browserWithKey(null);
  await stranger.page.goto(`${instance.url}/room/${room.slug}/settings`);
  await stranger.page.getByText('This browser does not play in any room yet.').waitFor();
  await checkPage(t, stranger.page, 'room-no-key', { shots: SHOTS, dark: false });
  await stranger.context.close();
  // The owner deletes the room: asked first, then gone for the API too.
  const again = await browserWithKey(owner.key);
  await again.page.goto(`${instance.url}/room/${room.slug}/settings`);
  await again.page.getByRole('button', { name: 'Delete the room' }).click();
  await again.page.getByText('This cannot be undone.').waitFor();
  await again.page.getByRole('button', { name: 'Delete the room' }).click();
  await again.page.getByRole('heading', { name: 'The room is deleted' }).waitFor();
  t.is((await owner.api.get(`/room/${room.slug}`)).status, 404);
  await again.context.close();
  const lost = await browserWithKey(player.key);
  await lost.page.goto(`${instance.url}/room/nosuchroom123/settings`);
  await lost.page.getByText('There is no such room (or it was deleted).').waitFor();
  await lost.context.close();
});

test('the stream address signs in from ?key=, takes it out of the address bar, and no log line has it', async (t) => {
  t.timeout(120_000);
  const owner = await newGuest(api);
  const room = (await owner.api.post('/room', { name: 'Stream night', is_public: false })).body.data;
  const made = await owner.api.post('/user/key', { name: 'OBS' });
  t.is(made.status, 201, made.text);
  const key = made.body.data.key as string;
  t.truthy(key);

  const { context, page } = await browserWithKey(null);
  await page.goto(`${instance.url}/room/${room.slug}/stream?key=${encodeURIComponent(key)}&sound=1`);
  await page.waitForFunction(() => document.body.dataset.screen === 'board');
  t.is(page.url(), `${instance.url}/room/${room.slug}/stream?sound=1`, 'the key left the address bar; other values stay');
  t.is(await page.evaluate((s) => sessionStorage.getItem(`openDice.streamKey.${s}`), room.slug), key, "kept for this tab's reloads");
  t.is(await page.evaluate(() => localStorage.getItem('openDice.apiKey')), null, 'never kept beyond the tab');
  t.true(await page.evaluate(() => document.documentElement.classList.contains('overlay')), 'the overlay');

  // A roll reaches the overlay live.
  t.is((await owner.api.post('/roll', { dice: [{ type: 'd6', theme: 'standard' }], room: room.slug })).status, 201);
  await page.waitForFunction(() => (window as unknown as { __board: { rolls(): number } }).__board.rolls() === 1);
  // A bound, not a figure: alone the dice rest in a few seconds; software WebGL beside a busy suite is slower.
  await page.waitForFunction(() => (window as unknown as { __board: { atRest(): boolean } }).__board.atRest(), null, { timeout: 80_000 });
  await page.screenshot({ path: path.join(SHOTS, 'stream-1280.png'), omitBackground: true });

  // A reload of the address as it now is (OBS refreshing its source) signs in again.
  await page.reload();
  await page.waitForFunction(() => document.body.dataset.screen === 'board');
  await context.close();

  // The server's log: the request is there, its key is not.
  const output = instance.output();
  t.true(output.includes(`/room/${room.slug}/stream?key=[redacted]&sound=1`), 'the stream request is logged, redacted');
  t.false(output.includes(key), 'the key is in no log line');
  t.false(output.includes(key.slice(3, 20)), 'nor any part of it');
});

test("/dice/{themeId} is the theme's page; an unknown theme is the 404 page", async (t) => {
  t.timeout(90_000);
  const { context, page } = await browserWithKey(null);
  const res = await page.goto(`${instance.url}/dice/standard`);
  t.is(res?.status(), 200);
  await page.waitForSelector('#stage[data-state="ready"]', { timeout: 30_000 });
  t.true((await page.locator('#manifest').textContent())!.length > 0);
  await checkPage(t, page, 'dice-standard', { shots: SHOTS, dark: false });
  const missing = await page.goto(`${instance.url}/dice/no-such-theme`);
  t.is(missing?.status(), 404);
  await page.getByRole('heading', { name: 'No such theme' }).waitFor();
  await context.close();
});

test("signed in, the page calls the API with the session's page key: the owner's controls with no key kept", async (t) => {
  t.timeout(90_000);
  const { context, page } = await browserWithKey(null);
  await page.goto(`${instance.url}/signup`);
  await page.getByLabel('Username').fill(`roomowner${Date.now() % 100_000}`);
  await page.getByLabel('Password').fill('a table of dice');
  await page.getByRole('button', { name: 'Sign up' }).click();
  await page.waitForURL('**/account');
  await page.getByLabel('Label').fill('script');
  await page.getByRole('button', { name: 'Create key' }).click();
  const key = (await page.locator('#new-key').textContent())!;
  const room = (await api.as(key).post('/room', { name: 'Signed-in table', is_public: false })).body.data;

  await page.goto(`${instance.url}/room/${room.slug}/settings`);
  await page.getByRole('heading', { name: 'Room settings' }).waitFor();
  t.is(await page.evaluate(() => localStorage.getItem('openDice.apiKey')), null, 'no guest key: the page key of the session');
  await page.getByLabel('Room name').fill('Signed-in table, renamed');
  await page.getByRole('button', { name: 'Rename' }).click();
  await page.getByText('Renamed.').waitFor();
  t.is((await api.as(key).get(`/room/${room.slug}`)).body.data.name, 'Signed-in table, renamed');
  await checkPage(t, page, 'room-signed-in', { shots: SHOTS, dark: false });
  // Sign out from the page's header (its CSRF token): the page key dies with the session.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL('**/signin');
  await page.goto(`${instance.url}/room/${room.slug}/settings`);
  await page.getByText('This browser does not play in any room yet.').waitFor();
  await context.close();
});
