/**
 * How a room's dice fell, as people read it: one card per die type with its histogram (the count a fair
 * die would give drawn across it), the test's verdict in words, and the counts as a table. Shared by
 * the board's Statistics dialog (src/board/stats.ts) and the room page (src/pages/room/stats.ts).
 * Every value from the server is text, never HTML. docs/stats.md says what is counted and how the
 * words are chosen (verdictOf below). Styles: src/pages/client/stats.css.
 */
import { h } from 'preact';
import type { DieStats, Face } from '../../client/types';

/** Below this p-value a die's throws are called unusual (1%: one fair die in a hundred is, by chance). */
export const UNUSUAL_BELOW = 0.01;
/** The chi-square test needs about 5 throws per face to mean much: fewer, and the words say so. */
export const FEWEST_PER_FACE = 5;

/** A p-value as people read it: two decimals, three below 0.01, and "< 0.001" below that. */
export function formatP(p: number): string {
  if (p >= 0.01) return p.toFixed(2);
  // Cut, not rounded: 0.0099 must not read "0.010" beside the word "unusual".
  if (p >= 0.001) return (Math.floor(p * 1000) / 1000).toFixed(3);
  return '< 0.001';
}

export interface Verdict {
  kind: 'fair' | 'unusual' | 'few' | 'none';
  text: string;
}

/** The test's result in words: "consistent with a fair d20" or "unusual: p = 0.003". */
export function verdictOf(d: Pick<DieStats, 'type' | 'faces' | 'count' | 'p_value'>): Verdict {
  if (d.p_value === null) return { kind: 'none', text: d.count === 0 ? 'No throws drawn by the server yet' : 'A die of one face: nothing to test' };
  const p = formatP(d.p_value);
  const shown = p.startsWith('<') ? `p ${p}` : `p = ${p}`;
  if (d.count < FEWEST_PER_FACE * d.faces) return { kind: 'few', text: `Too few throws to judge yet (${shown})` };
  if (d.p_value >= UNUSUAL_BELOW) return { kind: 'fair', text: `Consistent with a fair ${d.type} (${shown})` };
  return { kind: 'unusual', text: `Unusual: ${shown}` };
}

function faceLabel(face: Face, value: number): string {
  return typeof face === 'object' ? `#${value}` : String(face);
}

const round = (n: number) => (Math.round(n * 100) / 100).toString();

/** Bars per face, the fair count as a dashed line across them; labels in HTML below (they stay legible at any width). */
function Histogram({ die }: { die: DieStats }) {
  const n = die.counts.length;
  const expected = die.count / n;
  const top = Math.max(expected, ...die.counts.map((c) => c.count), 1) * 1.08;
  const y = (count: number) => 100 - (count / top) * 100;
  const labelled = n <= 24 ? die.counts.map((c, i) => i) : [0, Math.floor(n / 4), Math.floor(n / 2), Math.floor((3 * n) / 4), n - 1];
  const described =
    n <= 24
      ? die.counts.map((c) => `${faceLabel(c.face, c.value)}: ${c.count}`).join(', ')
      : `${n} faces, from ${Math.min(...die.counts.map((c) => c.count))} to ${Math.max(...die.counts.map((c) => c.count))} each`;
  return h('figure', { class: 'stats-chart' }, [
    h(
      'svg',
      {
        viewBox: `0 0 ${n * 10} 100`,
        preserveAspectRatio: 'none',
        role: 'img',
        'aria-label': `Throws per face of the ${die.type}: ${described}. A fair die would give ${round(expected)} each.`,
      },
      [
        ...die.counts.map((c, i) =>
          h('rect', { class: 'bar', x: i * 10 + (n > 60 ? 0 : 1.5), width: n > 60 ? 10 : 7, y: y(c.count), height: 100 - y(c.count) }),
        ),
        die.count > 0 ? h('line', { class: 'expected', x1: 0, x2: n * 10, y1: y(expected), y2: y(expected), 'vector-effect': 'non-scaling-stroke' }) : null,
      ],
    ),
    h(
      'div',
      { class: `stats-faces${n <= 24 ? '' : ' sparse'}`, 'aria-hidden': 'true' },
      labelled.map((i) => h('span', { key: i }, faceLabel(die.counts[i]!.face, die.counts[i]!.value))),
    ),
  ]);
}

function CountsTable({ die }: { die: DieStats }) {
  const expected = die.count / die.counts.length;
  return h('details', { class: 'stats-table' }, [
    h('summary', null, 'Counts as a table'),
    h('table', null, [
      h('thead', null, h('tr', null, [h('th', { scope: 'col' }, 'Face'), h('th', { scope: 'col' }, 'Throws'), h('th', { scope: 'col' }, 'Fair die')])),
      h(
        'tbody',
        null,
        die.counts.map((c, i) =>
          h('tr', { key: i }, [h('th', { scope: 'row' }, faceLabel(c.face, c.value)), h('td', null, String(c.count)), h('td', null, round(expected))]),
        ),
      ),
    ]),
  ]);
}

export function DieCard({ die }: { die: DieStats }) {
  const verdict = verdictOf(die);
  const themes = die.themes.length === 1 && die.themes[0] === 'standard' ? null : die.themes.join(', ');
  const facts = [`${die.count} ${die.count === 1 ? 'throw' : 'throws'}`];
  if (die.mean !== null && die.expected_mean !== null) facts.push(`mean ${round(die.mean)} (fair: ${round(die.expected_mean)})`);
  return h('section', { class: 'stats-die', 'data-type': die.type, 'aria-labelledby': `stats-${die.type}-${die.faces}` }, [
    h('h3', { id: `stats-${die.type}-${die.faces}` }, [die.type, themes ? h('span', { class: 'themes' }, ` ${themes}`) : null]),
    h('p', { class: `verdict ${verdict.kind}` }, verdict.text),
    h('p', { class: 'facts' }, facts.join(' · ')),
    die.count > 0 ? h(Histogram, { die }) : null,
    die.user_values > 0 ? h('p', { class: 'facts' }, `${die.user_values} ${die.user_values === 1 ? 'value' : 'values'} sent by a client: not counted`) : null,
    die.count > 0 ? h(CountsTable, { die }) : null,
  ]);
}
