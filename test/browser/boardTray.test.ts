import test from 'ava';
import { useServer } from '../helpers/server';
import { useChromium } from './chromium';
import { openBoard } from './table';

/** The board shows the player's dice tray (participant.dice_tray) as buttons; one click rolls that row. */
const ctx = useServer(test);
const chrome = useChromium(test);
const logs: string[] = [];

test("a dice tray's row is one button on the board; clicking it rolls that row's dice in their themes", async (t) => {
  const owner = await ctx.server.newUser();
  const { slug, participants } = (await owner.api.post('/room', { name: 'Tray', is_public: true })).body.data;
  const tray = [
    [{ dieType: 'd20', theme: 'dddice-bees' }],
    [
      { dieType: 'd6', theme: 'standard' },
      { dieType: 'd6', theme: 'standard' },
      { dieType: 'd8', theme: 'dddice-red' },
    ],
  ];
  t.is((await owner.api.patch(`/room/${slug}/participant/${participants[0].id}`, { dice_tray: tray })).status, 200);

  const page = await openBoard(chrome.browser, `${ctx.server.url}/board/${slug}#key=${owner.key}`, logs);
  await page.waitForSelector('#tray-rows button');
  t.deepEqual(await page.locator('#tray-rows button').allTextContents(), ['d20', '2d6 + d8']);
  await page.click('#tray-rows button[data-tray-row="1"]');
  await page.waitForFunction(() => document.querySelector('#rolls li') || document.querySelector('#roll-error')?.textContent, null, { timeout: 20_000 });
  t.is(await page.locator('#roll-error').textContent(), '');

  const history = (await owner.api.get(`/room/${slug}/roll`)).body.data;
  t.is(history.length, 1, 'one roll made');
  t.deepEqual(
    history[0].values.map((v: { type: string; theme: string }) => [v.type, v.theme]),
    [
      ['d6', 'standard'],
      ['d6', 'standard'],
      ['d8', 'dddice-red'],
    ],
  );
  t.deepEqual(await page.locator('#rolls li .die .t').allTextContents(), ['d6', 'd6', 'd8']);
  t.deepEqual(
    logs.filter((l) => l.startsWith('pageerror')),
    [],
  );
});

test('a player without a tray sees no tray', async (t) => {
  const owner = await ctx.server.newUser();
  const { slug } = (await owner.api.post('/room', { name: 'No tray', is_public: true })).body.data;
  const page = await openBoard(chrome.browser, `${ctx.server.url}/board/${slug}#key=${owner.key}`, logs);
  await page.waitForSelector('#board:not([hidden])');
  t.true(await page.locator('#tray').isHidden());
});
