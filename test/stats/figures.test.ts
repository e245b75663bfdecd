import test from 'ava';
import { builtinDefinition, type DieDefinition, type Resolve } from '../../src/dice';
import { dieFigures } from '../../src/stats/figures';
import type { FaceCount } from '../../src/stats/store/counts';

/** dieFigures alone: how face counts become a die's figures when themes disagree or are gone. */

const row = (type: string, theme: string, position: number, count: number, isUserValue = false): FaceCount => ({ type, theme, position, count, isUserValue });

const themes: Record<string, Record<string, DieDefinition>> = {
  // A theme whose d6 has pictures, and one whose d20 is numbered like the built-in one.
  runes: {
    d6: {
      id: 'd6',
      type: 'd6',
      notation: 'd6',
      faces: [{ src: 'a.png' }, { src: 'b.png' }, { src: 'c.png' }, { src: 'd.png' }, { src: 'e.png' }, { src: 'f.png' }],
    },
  },
  numbered: { d20: { id: 'd20', type: 'd20', notation: 'd20', faces: Array.from({ length: 20 }, (_, i) => String(i + 1)) } },
  // A custom die found by its notation, as a roll would resolve it.
  coins: { coin: { id: 'coin', type: 'd2', notation: 'coin', faces: ['heads', 'tails'] } },
};
const resolve: Resolve = (theme, type) => themes[theme]?.[type] ?? (theme === 'standard' ? builtinDefinition(type) : null);

test('one entry per type and list of faces; themes with the same faces share it', (t) => {
  const figures = dieFigures(
    [row('d20', 'standard', 1, 3), row('d20', 'numbered', 1, 2), row('d20', 'numbered', 20, 5), row('d6', 'standard', 6, 4), row('d6', 'runes', 2, 7)],
    resolve,
    builtinDefinition,
  );
  t.deepEqual(
    figures.map((f) => [f.type, f.themes, f.count]),
    [
      ['d6', ['runes'], 7],
      ['d6', ['standard'], 4],
      ['d20', ['numbered', 'standard'], 10],
    ],
  );
  // "1" and 1 are one face (numbers by value, as the engine compares faces): one d20 for both themes.
  const d20 = figures.find((f) => f.type === 'd20')!;
  t.is(d20.counts[0]!.count, 5);
  t.is(d20.counts[19]!.count, 5);
});

test('faces that are not numbers have no mean; their counts and test still hold', (t) => {
  const [runes] = dieFigures(
    [
      row('d6', 'runes', 1, 6),
      row('d6', 'runes', 2, 6),
      row('d6', 'runes', 3, 6),
      row('d6', 'runes', 4, 6),
      row('d6', 'runes', 5, 6),
      row('d6', 'runes', 6, 6),
    ],
    resolve,
    builtinDefinition,
  );
  t.is(runes!.mean, null);
  t.is(runes!.expectedMean, null);
  t.is(runes!.chiSquare, 0);
  t.is(runes!.pValue, 1);
  t.deepEqual(runes!.counts[0], { face: { src: 'a.png' }, value: 1, count: 6 });
});

test('a theme that is gone: the built-in die of that name, else as many faces as the highest seen', (t) => {
  const figures = dieFigures([row('d8', 'deleted', 3, 2), row('orb', 'deleted', 5, 1), row('orb', 'deleted', 2, 1, true)], resolve, builtinDefinition);
  const d8 = figures.find((f) => f.type === 'd8')!;
  t.is(d8.faces, 8);
  t.is(d8.expectedMean, 4.5);
  const orb = figures.find((f) => f.type === 'orb')!;
  t.is(orb.faces, 5);
  t.deepEqual(
    orb.counts.map((c) => c.face),
    [1, 2, 3, 4, 5],
  );
  t.is(orb.count, 1);
  t.is(orb.userValues, 1, 'a supplied value is apart, never in the count');
});

test('only supplied values: nothing to test; a one-face die: nothing to test either', (t) => {
  const [only] = dieFigures([row('d20', 'standard', 20, 3, true)], resolve, builtinDefinition);
  t.is(only!.count, 0);
  t.is(only!.userValues, 3);
  t.is(only!.chiSquare, null);
  t.is(only!.pValue, null);
  t.is(only!.mean, null);
  t.is(only!.counts.length, 20);
  const [coin] = dieFigures([row('coin', 'coins', 1, 10), row('coin', 'coins', 2, 10)], resolve, builtinDefinition);
  t.deepEqual(
    coin!.counts.map((c) => [c.face, c.count]),
    [
      ['heads', 10],
      ['tails', 10],
    ],
  );
  t.is(coin!.pValue, 1);
});
