import test from 'ava';
import { manifest, postTheme, themeId } from '../fixtures/themes';
import { useServer } from '../helpers/server';
import { screenshot, useChromium } from './chromium';
import { openBoard } from './table';

/**
 * The board's panel holds what it shows: a theme with a long name (up to 255 characters) chosen in
 * the roll form once pushed the "hidden" checkbox half out of the panel. Measured as a person sees it:
 * the boxes Chromium lays out, and the screenshot kept in test-artifacts/.
 */
const ctx = useServer(test);
const chrome = useChromium(test);
const logs: string[] = [];

type Box = { left: number; right: number; top: number; bottom: number };

test('a long theme name stays inside the roll form: the select shrinks, "hidden" keeps its place in the panel', async (t) => {
  const owner = await ctx.server.newUser();
  const { slug } = (await owner.api.post('/room', { name: 'Layout', is_public: true })).body.data;
  const long = manifest({ id: themeId('long'), name: `The Very Long Name of a Theme ${'Ornate '.repeat(20)}Edition`, available_dice: ['d6'] });
  t.is((await postTheme(owner.api, long)).status, 201);
  const page = await openBoard(chrome.browser, `${ctx.server.url}/board/${slug}#key=${owner.key}`, logs);
  await page.waitForFunction((id) => Array.from(document.querySelectorAll('#theme option')).some((o) => (o as HTMLOptionElement).value === id), long.id);
  await page.selectOption('#theme', long.id as string);

  // One list of selectors, no named function inside evaluate (the test's compiler would name it).
  const [form, select, hidden, checkbox] = (await page.evaluate(() =>
    ['#roll-form', '#theme', 'label:has(#hidden-roll)', '#hidden-roll'].map((s) => {
      const r = document.querySelector(s)!.getBoundingClientRect();
      return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
    }),
  )) as [Box, Box, Box, Box];
  const boxes = { form, select, hidden, checkbox };
  await screenshot(page, 'board-long-theme-name.png');
  const inside = (inner: Box, outer: Box) => inner.left >= outer.left - 0.5 && inner.right <= outer.right + 0.5;
  t.true(inside(boxes.hidden, boxes.form), `"hidden" inside the form: ${JSON.stringify(boxes)}`);
  t.true(inside(boxes.select, boxes.form), `the theme select inside the form: ${JSON.stringify(boxes)}`);
  t.true(boxes.select.right <= boxes.hidden.left, 'the select ends before "hidden" begins (no overlap)');
  t.true(boxes.checkbox.right - boxes.checkbox.left > 8, 'the checkbox keeps its size');
  // Still usable: checking "hidden" by clicking the label's checkbox works.
  await page.click('#hidden-roll');
  t.true(await page.isChecked('#hidden-roll'));
  t.deepEqual(
    logs.filter((l) => l.startsWith('pageerror')),
    [],
  );
});
