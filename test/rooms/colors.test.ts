import test from 'ava';
import { colorAt, HEX_COLOR, nextFreePosition, PALETTE, pickDefaultColor } from '../../src/rooms/colors';

test('the colour sequence is made of distinct #rrggbb colours for far more seats than a room has', (t) => {
  const seen = new Set<string>();
  for (let i = 0; i < 1000; i++) {
    const c = colorAt(i);
    t.regex(c, HEX_COLOR);
    t.is(c, c.toLowerCase());
    seen.add(c);
  }
  t.is(seen.size, 1000);
});

test('pickDefaultColor takes the first colour nobody uses, ignoring case', (t) => {
  t.is(pickDefaultColor([]), PALETTE[0]);
  t.is(pickDefaultColor([PALETTE[0]]), PALETTE[1]);
  t.is(pickDefaultColor([PALETTE[0].toUpperCase(), PALETTE[2]]), PALETTE[1]);
});

test('200 newcomers picking in turn all get different colours', (t) => {
  const used: string[] = [];
  for (let i = 0; i < 200; i++) used.push(pickDefaultColor(used));
  t.is(new Set(used).size, 200);
});

test('nextFreePosition fills gaps first, starting at 1', (t) => {
  t.is(nextFreePosition([]), 1);
  t.is(nextFreePosition([1, 2, 3]), 4);
  t.is(nextFreePosition([1, 3]), 2);
  t.is(nextFreePosition([2, 3]), 1);
});
