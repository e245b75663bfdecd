import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { useServer } from '../helpers/server';
import { useChromium } from './chromium';
import { openBoard } from './table';
import { valueRecord } from '../../src/rolls/create';
import { insertRoll } from '../../src/rolls/store/write';
import type { RollRecord } from '../../src/rolls/store/records';
import { db } from '../../src/db';
import { seriousViolations } from './pageChecks';

/**
 * The board's Statistics dialog in real Chromium, by clicks: a histogram per die type, the fair count
 * across it, the verdict in words (as the API's p-value says), the table alternative, the filter by
 * player, a live refresh; axe-core (no serious or critical violation), 1280 and 375 px wide without sideways scroll.
 * Screenshots go to $STATS_SCREENSHOTS (default: a temporary directory), to be looked at.
 */
const ctx = useServer(test);
const chrome = useChromium(test);
const logs: string[] = [];
test.afterEach.always((t) => {
  if (!t.passed && logs.length) t.log(logs.join('\n'));
});

const SHOTS = process.env.STATS_SCREENSHOTS ?? fs.mkdtempSync(path.join(os.tmpdir(), 'stats-board-'));
fs.mkdirSync(SHOTS, { recursive: true });

/** A p-value as the dialog writes it (docs/stats.md): two decimals, three (cut) below 0.01, "< 0.001" below that. */
const shownP = (p: number) => (p >= 0.01 ? `p = ${p.toFixed(2)}` : p >= 0.001 ? `p = ${(Math.floor(p * 1000) / 1000).toFixed(3)}` : 'p < 0.001');

/**
 * A roll of `count` d6 all showing 6, written straight into the store as a server that chose its numbers
 * would write it: what the statistics exist to show.
 */
async function loadedDiceRoll(userUuid: string, slug: string, count: number) {
  const [user] = await db().sql.query<{ id: number }>('SELECT id FROM users WHERE uuid = $1', [userUuid]);
  const [room] = await db().sql.query<{ id: number }>('SELECT id FROM rooms WHERE slug = $1', [slug]);
  const now = new Date();
  const roll: RollRecord = {
    id: 0,
    uuid: crypto.randomUUID(),
    userId: Number(user!.id),
    roomId: Number(room!.id),
    direction: 0,
    velocity: 1,
    equation: `${count}d6`,
    totalValue: 6 * count,
    operator: null,
    label: 'loaded',
    externalId: null,
    isWhispered: false,
    createdAt: now,
    updatedAt: now,
  };
  const values = Array.from({ length: count }, (_, i) =>
    valueRecord(
      i,
      {
        dieIndex: i,
        type: 'd6',
        theme: 'standard',
        value: 6,
        valueToDisplay: 6,
        numericValue: 6,
        isDropped: false,
        isSuccess: false,
        isFailure: false,
        isCompounded: false,
        isPenetrated: false,
        isUserValue: false,
        isHidden: false,
        origin: 'roll',
      },
      now,
    ),
  );
  await insertRoll(roll, values, []);
}

test('the Statistics dialog: histograms, the fair count, verdicts in words, a table, a filter by player', async (t) => {
  t.timeout(120_000);
  const owner = await ctx.server.newUser();
  const friend = await ctx.server.newUser();
  const { slug } = (await owner.api.post('/room', { name: 'Stats night', is_public: true })).body.data;
  t.is((await friend.api.post(`/room/${slug}/participant`, {})).status, 200);
  for (let i = 0; i < 10; i++) t.is((await owner.api.post('/roll', { equation: '20d20', theme: 'standard', room: slug })).status, 201);
  t.is((await owner.api.post('/roll', { equation: '1d100', theme: 'standard', room: slug })).status, 201);
  t.is((await friend.api.post('/roll', { equation: '3d8', theme: 'standard', room: slug })).status, 201);
  t.is((await friend.api.post('/roll', { dice: [{ type: 'd20', theme: 'standard', value: 20 }], room: slug })).status, 201);
  await loadedDiceRoll(friend.user.uuid, slug, 60);
  const api = (await owner.api.get(`/room/${slug}/stats`)).body.data as { dice: { type: string; p_value: number | null; count: number }[] };
  const d20p = api.dice.find((d) => d.type === 'd20')!.p_value!;

  const page = await openBoard(chrome.browser, `${ctx.server.url}/board/${slug}#key=${owner.key}`, logs);
  await page.getByRole('button', { name: 'Statistics' }).click();
  const dialog = page.getByRole('dialog', { name: 'Statistics' });
  await dialog.locator('.stats-die[data-type="d20"]').waitFor();
  t.deepEqual(await dialog.locator('.stats-die h3').allTextContents(), ['d6', 'd8', 'd10', 'd10x', 'd20'], 'one card per die type, in order');

  const d20 = dialog.locator('.stats-die[data-type="d20"]');
  t.is(await d20.locator('.verdict').textContent(), d20p >= 0.01 ? `Consistent with a fair d20 (${shownP(d20p)})` : `Unusual: ${shownP(d20p)}`);
  t.is(await d20.locator('svg rect.bar').count(), 20, 'a bar per face');
  t.is(await d20.locator('svg line.expected').count(), 1, 'the fair count across them');
  t.regex((await d20.locator('svg').getAttribute('aria-label'))!, /^Throws per face of the d20: 1: \d+, 2: \d+, .* A fair die would give 10 each\.$/);
  t.regex((await d20.locator('.facts').allTextContents()).join(' | '), /^200 throws · mean [\d.]+ \(fair: 10\.5\) \| 1 value sent by a client: not counted$/);
  t.is(await dialog.locator('.stats-die[data-type="d6"] .verdict').textContent(), 'Unusual: p < 0.001', 'sixty sixes are no fair d6');
  t.is(
    await dialog.locator('.stats-die[data-type="d8"] .verdict').textContent(),
    `Too few throws to judge yet (${shownP(api.dice.find((d) => d.type === 'd8')!.p_value!)})`,
  );

  await page.screenshot({ path: path.join(SHOTS, 'stats-top-1280.png') });

  // The table alternative, opened by a click.
  await d20.getByText('Counts as a table').click();
  t.is(await d20.locator('tbody tr').count(), 20);
  t.deepEqual(
    await d20
      .locator('tbody tr')
      .first()
      .locator('th, td')
      .allTextContents()
      .then((cells) => [cells[0], cells[2]]),
    ['1', '10'],
  );

  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: width === 375 ? 740 : 800 });
    t.deepEqual(await seriousViolations(page), [], `at ${width} px: no serious or critical axe violation`);
    const [scrollWidth, innerWidth] = (await page.evaluate('[document.documentElement.scrollWidth, window.innerWidth]')) as [number, number];
    t.true(scrollWidth <= innerWidth, `at ${width} px nothing scrolls sideways (${scrollWidth} > ${innerWidth})`);
    const [dialogScroll, dialogWidth] = await dialog.evaluate((d) => [d.scrollWidth, d.clientWidth]);
    t.true(dialogScroll <= dialogWidth, `at ${width} px the dialog does not scroll sideways (${dialogScroll} > ${dialogWidth})`);
    await page.screenshot({ path: path.join(SHOTS, `stats-${width}.png`) });
  }
  // The board is dark unless the system asks for light (as Chromium here does): both schemes.
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.setViewportSize({ width: 1280, height: 800 });
  t.deepEqual(await seriousViolations(page), [], 'dark scheme: no serious or critical axe violation');
  await page.screenshot({ path: path.join(SHOTS, 'stats-dark.png') });

  // Only the friend's rolls: their d8s, the loaded d6s and one d20 they chose (not counted).
  const seats = (await owner.api.get(`/room/${slug}`)).body.data.participants as { username: string; user: { uuid: string } }[];
  await dialog.getByLabel('Whose rolls').selectOption({ label: seats.find((p) => p.user.uuid === friend.user.uuid)!.username });
  await page.waitForFunction(() => document.querySelectorAll('#stats-dialog .stats-die').length === 3);
  t.deepEqual(await dialog.locator('.stats-die h3').allTextContents(), ['d6', 'd8', 'd20']);
  t.is(await dialog.locator('.stats-die[data-type="d20"] .verdict').textContent(), 'No throws drawn by the server yet');
  await page.screenshot({ path: path.join(SHOTS, 'stats-friend.png') });

  // Live: a roll made while the dialog is open shows without a click.
  t.is((await friend.api.post('/roll', { equation: '4d12', theme: 'standard', room: slug })).status, 201);
  await dialog.locator('.stats-die[data-type="d12"]').waitFor({ timeout: 15_000 });
  t.regex((await dialog.locator('.stats-die[data-type="d12"] .facts').textContent())!, /^4 throws · mean /);

  // Escape closes it; the board is as it was.
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  t.deepEqual(
    logs.filter((l) => l.startsWith('pageerror')),
    [],
  );
  t.log(`screenshots: ${SHOTS}`);
});
