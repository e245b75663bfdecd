import test from 'ava';
import { useServer } from '../helpers/server';
import { useChromium, screenshot, watchPage } from './chromium';
import { openBoard, restingDice, shot } from './table';

/**
 * Dice pools and fudge dice on the board's roll list, in a real browser: a dice pool says its successes and failures (in
 * the head and on each die) and fudge dice show -, blank and +, for the faces the API answered.
 */
const ctx = useServer(test);
const chrome = useChromium(test);
const logs: string[] = [];

test("the roll list shows a pool's successes and failures and fudge faces as -, blank, +", async (t) => {
  const owner = await ctx.server.newUser();
  const { slug } = (await owner.api.post('/room', { name: 'Pools' })).body.data;
  const context = await chrome.browser.newContext({ viewport: { width: 1200, height: 700 } });
  const page = await context.newPage();
  watchPage(page, logs);
  await page.goto(`${ctx.server.url}/board/${slug}#key=${owner.key}`);
  await page.locator('#connection[data-state="online"]').waitFor({ state: 'attached', timeout: 20_000 });

  const d10 = (value: number) => ({ type: 'd10', theme: 'standard', value });
  const pool = await owner.api.post('/roll', { room: slug, dice: [d10(8), d10(1), d10(5), d10(10)], operator: { success: '>=8', failure: '1' } });
  t.is(pool.status, 201);
  t.is(pool.body.data.total_value, 1);
  t.is(pool.body.data.success_count, 2);
  t.is(pool.body.data.failure_count, 1);
  const item = page.locator(`#rolls li[data-roll-uuid="${pool.body.data.uuid}"]`);
  await item.waitFor({ timeout: 20_000 });
  t.is(await item.locator('.pool').textContent(), '2 successes, 1 failure');
  t.is(await item.locator('.total').textContent(), '1');
  const marks = await item
    .locator('.die')
    .evaluateAll((dice) => dice.map((d) => (d.classList.contains('success') ? 'S' : d.classList.contains('failure') ? 'F' : '-')));
  t.deepEqual(marks, ['S', 'F', '-', 'S']);

  const df = (value: number) => ({ type: 'df', theme: 'standard', value });
  const fudge = await owner.api.post('/roll', { room: slug, dice: [df(-1), df(0), df(1), df(1)] });
  t.is(fudge.status, 201);
  t.deepEqual(
    fudge.body.data.values.map((v: { value_to_display: string }) => v.value_to_display),
    ['-1', '0', '1', '1'],
  );
  const fudgeItem = page.locator(`#rolls li[data-roll-uuid="${fudge.body.data.uuid}"]`);
  await fudgeItem.waitFor({ timeout: 20_000 });
  t.deepEqual(await fudgeItem.locator('.die .v').allTextContents(), ['-', '', '+', '+']);
  t.is(await fudgeItem.locator('.pool').count(), 0); // no compare point: no pool line

  // 3d6sd: the dice are shown highest first; values and total stay as rolled.
  const d6 = (value: number) => ({ type: 'd6', theme: 'standard', value });
  const sorted = await owner.api.post('/roll', { room: slug, dice: [d6(3), d6(5), d6(1), { type: 'mod', value: 2 }], operator: { s: 'd' } });
  t.is(sorted.status, 201);
  t.is(sorted.body.data.equation, '3d6sd+2');
  t.deepEqual(
    sorted.body.data.values.map((v: { value: number }) => v.value),
    [3, 5, 1, 2],
  );
  const sortedItem = page.locator(`#rolls li[data-roll-uuid="${sorted.body.data.uuid}"]`);
  await sortedItem.waitFor({ timeout: 20_000 });
  t.deepEqual(await sortedItem.locator('.die .v').allTextContents(), ['5', '3', '1', '+2']);
  t.is(await sortedItem.locator('.total').textContent(), '11');
  t.log(`screenshot: ${await screenshot(page, 'board-pools.png')}`);
  t.deepEqual(
    logs.filter((l) => /error/i.test(l)),
    [],
  );
  await context.close();
});

test('successes and failures are told apart by colour (computed style and screenshot pixels), group parts too; fudge dice show -, blank, + in 3D', async (t) => {
  const owner = await ctx.server.newUser();
  const { slug } = (await owner.api.post('/room', { name: 'Colours' })).body.data;
  const page = await openBoard(chrome.browser, `${ctx.server.url}/board/${slug}#key=${owner.key}`, logs);
  const d10 = (value: number) => ({ type: 'd10', theme: 'standard', value });
  // A pool (8 succeeds, 1 fails, 5 neither) and a roll group whose first part (9 + 2 = 11) meets >=10.
  const pool = (await owner.api.post('/roll', { room: slug, dice: [d10(8), d10(1), d10(5)], operator: { success: '>=8', failure: '1' } })).body.data;
  const group = (
    await owner.api.post('/roll', {
      room: slug,
      dice: [d10(9), d10(2), d10(3), d10(4)],
      operator: {
        groups: [
          {
            parts: [
              [0, 1],
              [2, 3],
            ],
            success: '>=10',
          },
        ],
      },
    })
  ).body.data;
  t.is(group.equation, '{2d10, 2d10}>=10');
  t.is(group.total_value, 1);
  const dice = async (uuid: string) => {
    const item = page.locator(`#rolls li[data-roll-uuid="${uuid}"]`);
    await item.waitFor({ timeout: 20_000 });
    return item.locator('.die');
  };
  const poolDice = await dice(pool.uuid);
  const groupDice = await dice(group.uuid);
  const style = (l: Awaited<ReturnType<typeof dice>>) =>
    l.evaluateAll((els) =>
      els.map((e) => {
        const s = getComputedStyle(e);
        return { border: s.borderTopColor, value: getComputedStyle(e.querySelector('.v')!).color };
      }),
    );
  // The board's own success and failure colours (--ok, --error: each colour scheme has its own).
  const [ok, bad] = (await page.evaluate(`['--ok', '--error'].map((name) => {
    const probe = document.createElement('span');
    probe.style.color = 'var(' + name + ')';
    document.body.append(probe);
    const colour = getComputedStyle(probe).color;
    probe.remove();
    return colour;
  })`)) as [string, string];
  t.notDeepEqual(ok, bad);
  const [p, g] = [await style(poolDice), await style(groupDice)];
  t.deepEqual(
    p.map((s) => (s.border === ok ? 'S' : s.border === bad ? 'F' : '-')),
    ['S', 'F', '-'],
  );
  t.deepEqual(
    p.map((s) => (s.value === ok ? 'S' : s.value === bad ? 'F' : '-')),
    ['S', 'F', '-'],
  );
  t.deepEqual(
    g.map((s) => (s.border === ok ? 'S' : s.border === bad ? 'F' : '-')),
    ['S', 'S', '-', '-'],
    'the counting part is marked, die by die',
  );
  t.deepEqual(await groupDice.evaluateAll((els) => els.map((e) => `${(e as HTMLElement).dataset.groupPart}${e.classList.contains('part-start') ? '|' : ''}`)), [
    '0.0',
    '0.0',
    '0.1|',
    '0.1',
  ]);
  const [second, third] = [(await groupDice.nth(1).boundingBox())!, (await groupDice.nth(2).boundingBox())!];
  const [first] = [(await groupDice.nth(0).boundingBox())!];
  t.true(third.x - (second.x + second.width) > second.x - (first.x + first.width) + 5, 'a gap sets the second part apart');

  // In the pixels: the inside of a success leans green, of a failure red, of a plain die neither.
  const png = await shot(page, 'board-pool-colours.png');
  const inside = async (l: Awaited<ReturnType<typeof dice>>, i: number): Promise<[number, number, number]> => {
    const box = (await l.nth(i).boundingBox())!;
    return png.rgb(Math.round(box.x + 3), Math.round(box.y + box.height - 4));
  };
  const lean = ([r, gr]: [number, number, number]) => gr - r;
  const [success, failure, plain] = [await inside(poolDice, 0), await inside(poolDice, 1), await inside(poolDice, 2)];
  t.true(lean(success) > 10, `a success looks green: ${success}`);
  t.true(lean(failure) < -10, `a failure looks red: ${failure}`);
  t.true(Math.abs(lean(plain)) < 10, `a plain die looks neither: ${plain}`);
  t.true(lean(await inside(groupDice, 0)) > 10, 'a die of a successful group part looks green');

  // Fudge dice on the 3D table: the face up reads -, blank or +.
  const df = (value: number) => ({ type: 'df', theme: 'standard', value });
  const fudge = (await owner.api.post('/roll', { room: slug, dice: [df(-1), df(0), df(1), { type: 'df.1', theme: 'standard', value: 1 }] })).body.data;
  const resting = await restingDice(
    page,
    fudge.values.map((v: { uuid: string }) => v.uuid),
  );
  t.deepEqual(
    fudge.values.map((v: { uuid: string }) => resting.find((r) => r.uuid === v.uuid)!.topText),
    ['-', '', '+', '+'],
  );
  t.log(`screenshot: ${await screenshot(page, 'board-fudge-3d.png')}`);
  t.deepEqual(
    logs.filter((l) => l.startsWith('pageerror')),
    [],
  );
  await page.context().close();
});
