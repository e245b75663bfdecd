import test from 'ava';
import type { Page } from 'playwright-core';
import { useServer } from '../helpers/server';
import { MOTION, useChromium, screenshot, watchPage } from './chromium';

/**
 * The dice board in a real browser: two players in one private room, each on their own page (own
 * storage), see the same rolls with the same values as they arrive. Screenshots land in
 * test-artifacts/ (git-ignored).
 */
const ctx = useServer(test);
const chrome = useChromium(test);
const logs: string[] = [];

interface ShownDie {
  type: string;
  face: string;
  hidden: boolean;
  dropped: boolean;
}

/** A roll as the page lists it. */
async function shownRoll(page: Page, uuid: string) {
  const item = page.locator(`#rolls li[data-roll-uuid="${uuid}"]`);
  await item.waitFor({ timeout: 20_000 });
  return item.evaluate((li) => ({
    total: (li as HTMLElement).dataset.total,
    who: li.querySelector('.who')?.textContent,
    equation: li.querySelector('.equation')?.textContent,
    dice: Array.from(li.querySelectorAll('.die')).map((d) => ({
      type: d.querySelector('.t')!.textContent!,
      face: d.querySelector('.v')!.textContent!,
      hidden: d.classList.contains('hidden'),
      dropped: d.classList.contains('dropped'),
    })),
  }));
}

async function newestRollUuid(page: Page, not: string[] = []): Promise<string> {
  const handle = await page.waitForFunction(
    (seen) => {
      const first = document.querySelector('#rolls li') as HTMLElement | null;
      const uuid = first?.dataset.rollUuid;
      return uuid && !seen.includes(uuid) ? uuid : null;
    },
    not,
    { timeout: 20_000 },
  );
  return (await handle.jsonValue()) as string;
}

async function waitLive(page: Page) {
  await page.locator('#connection[data-state="online"]').waitFor({ state: 'attached', timeout: 20_000 });
}

async function waitAtRest(page: Page) {
  await page.waitForFunction(() => (window as unknown as { __board: { atRest(): boolean } }).__board.atRest(), null, { timeout: 30_000 });
}

function faceOf(value: { type: string; value: number | null; value_to_display: unknown }) {
  if (value.type === 'mod') return Number(value.value) < 0 ? String(value.value) : `+${value.value}`;
  return value.value_to_display === null ? '?' : String(value.value_to_display);
}

test('two players in a private room see the same rolls, live, with the same values', async (t) => {
  const server = ctx.server;
  const owner = await server.newUser();
  const created = await owner.api.post('/room', { name: 'Friday <i>night</i> table', is_public: false });
  t.is(created.status, 201);
  const { slug, passcode } = created.body.data;
  // A username is user input: make it look like HTML, and check the board shows it as text.
  const seat = created.body.data.participants[0].id;
  const evilName = '<img src=x onerror="window.__pwned=1">Alice';
  t.is((await owner.api.patch(`/room/${slug}/participant/${seat}`, { username: evilName, color: '#e6194b' })).status, 200);

  // Both see the throw tumble, as most viewers do (the other files' pages ask for less motion: chromium.ts).
  const contextA = await chrome.browser.newContext({ viewport: { width: 1280, height: 800 }, ...MOTION });
  const contextB = await chrome.browser.newContext({ viewport: { width: 1280, height: 800 }, ...MOTION });
  const a = await contextA.newPage();
  const b = await contextB.newPage();
  watchPage(a, logs);
  watchPage(b, logs);

  // Player A: the owner, signed in through the URL fragment.
  await a.goto(`${server.url}/board/${slug}#key=${owner.key}`);
  await waitLive(a);
  t.is(await a.locator('#room-name').textContent(), 'Friday <i>night</i> table');

  // Player B: a guest made by the board, asked for the passcode (a wrong one first).
  await b.goto(`${server.url}/board/${slug}`);
  await b.locator('#login').waitFor({ state: 'visible' });
  await b.click('#guest');
  await b.locator('#passcode').waitFor({ state: 'visible' });
  const asked = await b.locator('#passcode-reason').textContent();
  t.truthy(asked, 'the server says why it needs a passcode');
  await b.fill('#passcode-input', 'wrong-code');
  await b.click('#passcode-form button[type="submit"]');
  // The server's answer to a wrong passcode replaces the first message.
  await b.waitForFunction(
    (first) => {
      const text = document.querySelector('#passcode-reason')?.textContent ?? '';
      return text !== '' && text !== first;
    },
    asked,
    { timeout: 10_000 },
  );
  t.false(await b.locator('#board').isVisible(), 'a wrong passcode does not get in');
  await b.fill('#passcode-input', passcode);
  await b.click('#passcode-form button[type="submit"]');
  await waitLive(b);

  // Both see both players, online; the evil name is text, not an element.
  for (const page of [a, b]) {
    await page.waitForFunction(() => document.querySelectorAll('#participants li[data-online="true"]').length === 2, null, { timeout: 20_000 });
    const names = await page.locator('#participants .name').allTextContents();
    t.true(names.includes(evilName), `names shown: ${names.join(', ')}`);
    t.is(await page.locator('#participants img').count(), 0);
    t.is(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
  }
  const colour = await b
    .locator('#participants li')
    .first()
    .locator('.swatch')
    .evaluate((s) => getComputedStyle(s).backgroundColor);
  t.is(colour, 'rgb(230, 25, 75)', 'the participant colour is shown');

  // B rolls with the picker: 2d6 + 1d20.
  await b.click('#picker button[data-die="d6"]');
  await b.click('#picker button[data-die="d6"]');
  await b.click('#picker button[data-die="d20"]');
  t.is(await b.inputValue('#equation'), '2d6+1d20');
  await b.click('#roll-button');
  const first = await newestRollUuid(b);
  const seenByB = await shownRoll(b, first);
  const seenByA = await shownRoll(a, first);
  t.deepEqual(seenByA.dice, seenByB.dice, 'both pages show the same dice');
  t.is(seenByA.total, seenByB.total);
  const api = (await owner.api.get(`/roll/${first}`)).body.data;
  t.deepEqual(
    seenByA.dice.map((d: ShownDie) => d.face),
    api.values.map(faceOf),
    'the faces are the server’s',
  );
  t.is(seenByA.total, String(api.total_value));
  t.deepEqual(
    seenByA.dice.map((d: ShownDie) => d.type),
    ['d6', 'd6', 'd20'],
  );

  // A rolls an equation that drops a die: both show it dimmed, and the same total.
  await a.fill('#equation', '4d6kh3+2');
  await a.click('#roll-button');
  const second = await newestRollUuid(a, [first]);
  const droppedA = await shownRoll(a, second);
  const droppedB = await shownRoll(b, second);
  t.deepEqual(droppedA, droppedB);
  t.is(droppedA.dice.filter((d: ShownDie) => d.dropped).length, 1, 'kh3 of 4d6 drops one die');
  t.is(droppedA.who, evilName);

  // A rolls a hidden die through the API: B sees that it is hidden, not its value; A sees both.
  const hiddenRoll = await owner.api.post('/roll', {
    room: slug,
    dice: [
      { type: 'd20', theme: 'standard', is_hidden: true },
      { type: 'd8', theme: 'standard' },
    ],
  });
  t.is(hiddenRoll.status, 201);
  const third = hiddenRoll.body.data.uuid as string;
  const hiddenForB = await shownRoll(b, third);
  const hiddenForA = await shownRoll(a, third);
  t.deepEqual(hiddenForB.dice[0], { type: 'd20', face: '?', hidden: true, dropped: false });
  t.is(hiddenForA.dice[0]!.face, String(hiddenRoll.body.data.values[0].value_to_display));
  t.true(hiddenForA.dice[0]!.hidden);
  t.is(hiddenForA.dice[1]!.face, hiddenForB.dice[1]!.face);

  // The 3D table draws when WebGL exists; either way it comes to rest, and we keep a picture of it.
  const webgl = await a.evaluate(() => (window as unknown as { __board: { webgl: boolean } }).__board.webgl);
  t.log(`WebGL: ${webgl ? 'yes (3D dice drawn)' : 'no (list only)'}`);
  await waitAtRest(a);
  await waitAtRest(b);
  t.log(`screenshots: ${await screenshot(a, 'board.png')}, ${await screenshot(b, 'board-guest.png')}`);

  await contextA.close();
  await contextB.close();
  t.deepEqual(
    logs.filter((l) => l.startsWith('pageerror')),
    [],
    'no script errors',
  );
});

test('overlay mode: a transparent page with only the table and the latest rolls', async (t) => {
  const owner = await ctx.server.newUser();
  const { slug } = (await owner.api.post('/room', { name: 'Stream' })).body.data;
  const context = await chrome.browser.newContext({ viewport: { width: 960, height: 540 } });
  const page = await context.newPage();
  watchPage(page, logs);
  await page.goto(`${ctx.server.url}/board/${slug}?overlay=1#key=${owner.key}`);
  await waitLive(page);
  const background = await page.evaluate(() => [
    getComputedStyle(document.documentElement).backgroundColor,
    getComputedStyle(document.body).backgroundColor,
    getComputedStyle(document.querySelector('.stage')!).backgroundImage,
  ]);
  t.deepEqual(background, ['rgba(0, 0, 0, 0)', 'rgba(0, 0, 0, 0)', 'none']);
  t.false(await page.locator('.side').isVisible());
  const roll = await owner.api.post('/roll', { room: slug, equation: '3d6', theme: 'standard' });
  t.is(roll.status, 201);
  const card = page.locator(`#last-roll .card[data-roll-uuid="${roll.body.data.uuid}"]`);
  await card.waitFor({ timeout: 20_000 });
  t.is(await card.locator('.total').textContent(), String(roll.body.data.total_value));
  await waitAtRest(page);
  t.log(`screenshot: ${await screenshot(page, 'board-overlay.png', true)}`);
  await context.close();
});

test('a page for a room that does not exist says so; a bad key goes back to sign-in', async (t) => {
  const { key } = await ctx.server.newUser();
  const context = await chrome.browser.newContext();
  const page = await context.newPage();
  await page.goto(`${ctx.server.url}/board/nosuchroom1234#key=${key}`);
  await page.locator('#fatal').waitFor({ state: 'visible', timeout: 20_000 });
  t.regex((await page.locator('#fatal').textContent()) ?? '', /no room/i);

  await page.goto(`${ctx.server.url}/board/nosuchroom1234#key=dk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`);
  await page.reload();
  await page.locator('#login').waitFor({ state: 'visible', timeout: 20_000 });
  t.regex((await page.locator('#login-error').textContent()) ?? '', /unknown|revoked/i);
  await context.close();
});

test('the board page and its assets come from this server, with a strict content policy', async (t) => {
  const page = await fetch(`${ctx.server.url}/board/abc123`);
  t.is(page.status, 200);
  const html = await page.text();
  t.regex(page.headers.get('content-security-policy') ?? '', /script-src 'self'/);
  t.notRegex(html, /https?:\/\//, 'nothing from another origin');
  const version = /board\.js\?v=([0-9a-f]+)/.exec(html)?.[1];
  t.truthy(version);
  const js = await fetch(`${ctx.server.url}/board/assets/board.js?v=${version}`);
  t.is(js.status, 200);
  t.regex(js.headers.get('content-type') ?? '', /javascript/);
  t.regex(js.headers.get('cache-control') ?? '', /immutable/);
  t.true((await js.text()).length > 100_000, 'three.js and socket.io-client are bundled in');
  const physics = await fetch(`${ctx.server.url}/board/assets/physics.js?v=${version}`);
  t.is(physics.status, 200, 'the throw is simulated in a worker script of its own');
  t.regex(physics.headers.get('content-type') ?? '', /javascript/);
  t.regex(await physics.text(), /ConvexPolyhedron|onmessage/);
  t.is((await fetch(`${ctx.server.url}/board/assets/other.js`)).status, 404);
  t.is((await fetch(`${ctx.server.url}/board/${'x'.repeat(65)}`)).status, 404);
  t.is((await fetch(`${ctx.server.url}/board/bad%3Cslug`)).status, 404);
});
