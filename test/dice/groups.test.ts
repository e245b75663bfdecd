/**
 * rpg-dice-roller's roll groups (src/dice/groups.ts): a table of fixed cases, properties over seeded random
 * faces (what is kept, dropped and counted, against the rules), predetermined values, bounds and refusals,
 * and what a viewer who may not see every die is shown.
 */
import test from 'ava';
import { DiceError, parseEquation, rollDice, rollEquation, type DieRequest, type OperatorInput, type RolledValue, type RollResult } from '../../src/dice/index';
import { poolCounts, viewerEquation, viewerTotal } from '../../src/dice/hidden';
import { dice, faces, resolve, seeded, T } from './helpers';

function roll(eq: string, ...script: number[]): RollResult {
  const rng = faces(...script);
  const r = rollEquation(eq, T, resolve, rng);
  if (rng.left() !== 0) throw new Error(`${eq}: ${rng.left()} scripted faces were not drawn`);
  return r;
}

/** Per part of the first group: the values whose die is in it (the operator says which dice). */
function partsOf(r: RollResult, group = 0): RolledValue[][] {
  const g = (r.operator!.groups as { parts: number[][] }[])[group]!;
  return g.parts.map((part) => r.values.filter((v) => part.includes(v.dieIndex)));
}

/** A part's total as the group saw it: its values that its own dice operators did not drop. */
function partTotal(values: RolledValue[], ignoreGroupDrop: boolean): number {
  return values.reduce((s, v) => s + ((!v.isDropped || ignoreGroupDrop) && v.numericValue !== null ? v.numericValue : 0), 0);
}

test('a table of fixed cases: keep, drop, count, per-part operators, ties, modifiers', (t) => {
  // [equation, faces, total, successes (null: no compare point), values dropped (by position in values)]
  const cases: [string, number[], number, number | null, number[]][] = [
    // 4d6: 1 2 3 4 (10) + 2d8: 5 6 (11) = 21 against 3d20: 10 5 1 + 3 = 19
    ['{4d6+2d8, 3d20+3}kh1', [1, 2, 3, 4, 5, 6, 10, 5, 1], 21, null, [6, 7, 8, 9]],
    ['{4d6+2d8, 3d20+3}kl1', [1, 2, 3, 4, 5, 6, 10, 5, 1], 19, null, [0, 1, 2, 3, 4, 5]],
    ['{4d6+2d8, 3d20+3}dh1', [1, 2, 3, 4, 5, 6, 10, 5, 1], 19, null, [0, 1, 2, 3, 4, 5]],
    ['{4d6+2d8, 3d20+3}dl1', [1, 2, 3, 4, 5, 6, 10, 5, 1], 21, null, [6, 7, 8, 9]],
    ['{4d6+2d8, 3d20+3}ph1', [1, 2, 3, 4, 5, 6, 10, 5, 1], 19, null, [0, 1, 2, 3, 4, 5]],
    ['{4d6+2d8, 3d20+3}kh1+2', [1, 2, 3, 4, 5, 6, 10, 5, 1], 23, null, [6, 7, 8, 9]],
    ['{4d6+2d8, 3d20+3}>=20', [1, 2, 3, 4, 5, 6, 10, 5, 1], 1, 1, []],
    ['{4d6+2d8, 3d20+3}>=10', [1, 2, 3, 4, 5, 6, 10, 5, 1], 2, 2, []],
    ['{4d6+2d8, 3d20+3}>=20f<20', [1, 2, 3, 4, 5, 6, 10, 5, 1], 0, 1, []],
    ['{4d6+2d8, 3d20+3}kh1>=20', [1, 2, 3, 4, 5, 6, 10, 5, 1], 1, 1, [6, 7, 8, 9]],
    // each part its own keep: 1 2 3 4 keeps 2 3 4 (9); 6 6 1 1 keeps 6 6 1 (13), the later 1 dropped
    ['{4d6kh3, 4d6kh3}', [1, 2, 3, 4, 6, 6, 1, 1], 22, null, [0, 7]],
    ['{4d6kh3, 4d6kh3}kh1', [1, 2, 3, 4, 6, 6, 1, 1], 13, null, [0, 1, 2, 3, 7]],
    ['{1d20, 1d12}kh1', [4, 11], 11, null, [0]],
    ['{1d20, 1d20}', [4, 17], 21, null, []],
    ['{1d20, 1d20}>=10', [4, 17], 1, 1, []],
    ['{1d6, 1d6}kh1', [3, 3], 3, null, [1]], // a tie keeps the part written first
    ['{1d6, 1d6}kl1', [3, 3], 3, null, [1]],
    ['{2d6, 2d6}k>7', [3, 5, 2, 2], 8, null, [2, 3]], // a value selector compares totals
    ['{2d6, 2d6, 2d6}kh2', [1, 1, 6, 6, 3, 3], 18, null, [0, 1]],
    // one part: keep and drop act on its dice (rpg-dice-roller), a compare point on its total
    ['{2d20}kh1', [4, 17], 17, null, [0]],
    ['{2d6+2d8}dl1', [1, 2, 3, 4], 9, null, [0]],
    ['{3d20+5}>40', [11, 7, 19], 1, 1, []],
    ['{3d10+5}>30f<15', [5, 3, 1], -1, 0, []],
    ['{3, 5}kh1', [], 5, null, [0]],
    // dice operators inside parts: an explosion adds to its part; a d100 pair stays in its part
    ['{2d6!, 1d20}kh1', [6, 2, 10, 3], 11, null, [2]], // the explosion is drawn after the dice
    ['{1d100, 1d20}kh1', [6, 7, 18], 57, null, [2]],
    ['{2d6, 2d6}sd', [1, 2, 3, 4], 10, null, []],
  ];
  for (const [eq, script, total, successes, dropped] of cases) {
    const r = roll(eq, ...script);
    t.is(r.total, total, eq);
    t.is(r.successCount, successes, eq);
    t.deepEqual(
      r.values.flatMap((v, i) => (v.isDropped ? [i] : [])),
      dropped,
      eq,
    );
    t.is(r.equation, eq, `${eq} is written back as read`);
    t.deepEqual(parseEquation(r.equation), parseEquation(eq), eq);
  }
  // A part meeting the compare point: every value of it says so; a part meeting the failure point too.
  const counted = roll('{4d6+2d8, 3d20+3}>=20f<20', 1, 2, 3, 4, 5, 6, 10, 5, 1);
  t.deepEqual(
    partsOf(counted).map((p) => p.map((v) => (v.isSuccess ? 'S' : v.isFailure ? 'F' : '-')).join('')),
    ['SSSSSS', 'FFFF'],
  );
  t.is(counted.failureCount, 1);
});

test('the operator object says the group: parts by dice index, modifiers included; dh is written as read', (t) => {
  t.deepEqual(parseEquation('{4d6+2d8, 3d20+3}kh1').operator, {
    groups: [
      {
        parts: [
          [0, 1, 2, 3, 4, 5],
          [6, 7, 8, 9],
        ],
        k: 'h1',
      },
    ],
  });
  t.deepEqual(parseEquation('{4d6kh3, 4d6kh3}').operator, {
    k: {
      h3: [
        [0, 1, 2, 3],
        [4, 5, 6, 7],
      ],
    },
    groups: [
      {
        parts: [
          [0, 1, 2, 3],
          [4, 5, 6, 7],
        ],
      },
    ],
  });
  t.deepEqual(parseEquation('{2d6, 1d8}dh1>=5f1').operator, { groups: [{ parts: [[0, 1], [2]], d: 'h1', success: '>=5', failure: '1' }] });
  t.deepEqual(parseEquation('{3d20+3}').dice, [{ type: 'd20' }, { type: 'd20' }, { type: 'd20' }, { type: 'mod', value: 3 }]);
});

test('predetermined values: the given faces are the first throws, the group rules run after them', (t) => {
  const req: DieRequest[] = [
    ...[6, 6, 1, 1].map((value) => ({ type: 'd6', theme: T, value })),
    { type: 'd8', theme: T, value: 8 },
    { type: 'mod', theme: T, value: 3 },
  ];
  const op: OperatorInput = {
    k: { h3: [0, 1, 2, 3] },
    groups: [
      {
        parts: [
          [0, 1, 2, 3],
          [4, 5],
        ],
        k: 'l1',
      },
    ],
  };
  const r = rollDice(req, op, resolve, faces());
  t.is(r.total, 11); // 6 6 1 (kh3 drops a 1) = 13 against 8 + 3 = 11: the lower part stays
  t.is(r.equation, '{4d6kh3, 1d8+3}kl1');
  t.deepEqual(
    r.values.map((v) => v.isDropped),
    [true, true, true, true, false, false],
  );
  t.true(r.values.slice(0, 5).every((v) => v.isUserValue));
  // A predetermined 6 in an exploding part: the explosion is drawn.
  const ex = rollDice(
    [
      { type: 'd6', theme: T, value: 6 },
      { type: 'd20', theme: T, value: 5 },
    ],
    { '!': { '': [0] }, groups: [{ parts: [[0], [1]], k: 'h1' }] },
    resolve,
    faces(2),
  );
  t.is(ex.total, 8);
  t.is(ex.equation, '{1d6!, 1d20}kh1');
});

test('refusals: each with its path, before anything is drawn', (t) => {
  const bad: [DieRequest[], OperatorInput, string, RegExp][] = [
    [dice('d6', 'd6'), { groups: [{ parts: [[0], [0]] }] }, 'operator.groups[0].parts[1][0]', /one part/],
    [dice('d6', 'd6'), { groups: [{ parts: [[0], [2]] }] }, 'operator.groups[0].parts[1][0]', /not the index/],
    [dice('d6', 'd6'), { groups: [{ parts: [[0], []] }] }, 'operator.groups[0].parts[1]', /indices/],
    [dice('d6', 'd6'), { groups: [{ parts: [[0], [1]], rr: '1' }] }, 'operator.groups[0].rr', /not a group operator/],
    [dice('d6', 'd6'), { groups: [{ parts: [[0], [1]], success: 'h1' }] }, 'operator.groups[0].success', /compare point/],
    [dice('d6', 'd6'), { groups: [{ parts: [[0], [1]], k: 'x' }] }, 'operator.groups[0].k', /selector/],
    [dice('d6', 'd6'), { groups: [{ k: 'h1' }] as never }, 'operator.groups[0].parts', /parts/],
    [dice('d6', 'd6'), { groups: [] }, 'operator.groups', /list groups/],
    [dice('d6', 'd6', 'd6'), { k: 'h2', groups: [{ parts: [[0, 1], [2]] }] }, 'operator.k', /different group parts/],
    [dice('d6', 'd6'), { success: { '>=4': [0] }, groups: [{ parts: [[0], [1]], success: '>=4' }] }, 'operator.success.>=4', /counts successes/],
    [dice('d10x', 'd10', 'd6'), { groups: [{ parts: [[0], [1, 2]] }] }, 'operator.groups', /one d100/],
  ];
  for (const [req, op, path, message] of bad) {
    const rng = faces();
    const e = t.throws(() => rollDice(req, op, resolve, rng), { instanceOf: DiceError }, JSON.stringify(op))!;
    t.is(e.status, 400);
    t.is(e.details[0]!.path, path, JSON.stringify(op));
    t.regex(e.message, message);
  }
  for (const [eq, message] of [
    ['{2d6}!', /write ! inside its parts/],
    ['{{1d6}, 1d6}', /.+/],
    ['-{1d6}', /cannot be subtracted/],
    ['{1d6*2}', /around the whole roll/],
    ['{2d6, 2d6}kh1kh1>=3kh1', /repeat/],
    ['{60d6, 41d6}kh1', /at most 100/],
    ['{2d6, 2d6}rr1', /inside its parts/],
  ] as const) {
    const e = t.throws(() => parseEquation(eq), { instanceOf: DiceError }, eq)!;
    t.is(e.details[0]!.path, 'equation');
    t.regex(e.message, message, eq);
  }
  // The 1,000-value bound holds inside groups as everywhere.
  const e = t.throws(() => rollEquation('{90d20!>=2, 1d6}kh1', T, resolve, seeded(1)), { instanceOf: DiceError })!;
  t.is(e.status, 400);
});

const RULES: [string, (parts: RolledValue[][], r: RollResult) => string | null][] = [
  ['{4d6+2d8, 3d20+3}kh1', keepsBest('h', 0)],
  ['{4d6+2d8, 3d20+3}kl1', keepsBest('l', 0)],
  // dropping the higher of two keeps the lower; on a tie the part written first is "the highest" and goes
  ['{4d6+2d8, 3d20+3}dh1', keepsBest('l', 1)],
  [
    '{2d6, 2d6, 1d12}kh2',
    (parts) => {
      const totals = parts.map((p) => partTotal(p, true));
      const kept = parts.flatMap((p, i) => (p.every((v) => !v.isDropped) ? [i] : []));
      const dropped = [0, 1, 2].find((i) => !kept.includes(i))!;
      return kept.length === 2 && kept.every((i) => totals[i]! >= totals[dropped]!) ? null : `kept ${kept} of ${totals}`;
    },
  ],
  [
    '{4d6kh3, 4d6kh3}',
    (parts) => {
      for (const p of parts) {
        const kept = p.filter((v) => !v.isDropped).map((v) => v.numericValue!);
        const gone = p.filter((v) => v.isDropped).map((v) => v.numericValue!);
        if (kept.length !== 3 || gone.length !== 1 || gone[0]! > Math.min(...kept)) return `part kept ${kept}, dropped ${gone}`;
      }
      return null;
    },
  ],
  [
    '{4d6+2d8, 3d20+3, 5d10+1}>=20f<12',
    (parts, r) => {
      let s = 0;
      let f = 0;
      for (const p of parts) {
        const total = partTotal(p, false);
        const want = total >= 20 ? 'S' : total < 12 ? 'F' : '-';
        if (!p.every((v) => (v.isSuccess ? 'S' : v.isFailure ? 'F' : '-') === want)) return `part totalling ${total} is not ${want}`;
        if (want === 'S') s++;
        if (want === 'F') f++;
      }
      return r.successCount === s && r.failureCount === f && r.total === s - f ? null : `counts ${r.successCount}/${r.failureCount}, total ${r.total}`;
    },
  ],
];

/**
 * A group of two parts keeping one: the kept part's total is the highest (h) or lowest (l), and is the
 * total; `tieKept` is the part kept when both total the same (selection ranks ties in written order).
 */
function keepsBest(which: 'h' | 'l', tieKept: number): (parts: RolledValue[][], r: RollResult) => string | null {
  return (parts, r) => {
    const totals = parts.map((p) => partTotal(p, true));
    const kept = parts.findIndex((p) => p.every((v) => !v.isDropped));
    const other = 1 - kept;
    if (kept < 0 || !parts[other]!.every((v) => v.isDropped)) return 'not exactly one part kept';
    const ok = which === 'h' ? totals[kept]! >= totals[other]! : totals[kept]! <= totals[other]!;
    if (totals[kept] === totals[other] && kept !== tieKept) return `a tie keeps part ${tieKept}`;
    return ok && r.total === totals[kept] ? null : `kept ${totals[kept]} against ${totals[other]}, total ${r.total}`;
  };
}

test('properties over random faces: what groups keep, drop and count follows the rules', (t) => {
  const rng = seeded(21);
  for (const [eq, check] of RULES) {
    for (let i = 0; i < 1500; i++) {
      const r = rollEquation(eq, T, resolve, rng);
      const problem = check(partsOf(r), r);
      if (problem !== null) {
        t.fail(`${eq} roll ${i}: ${problem}: ${r.values.map((v) => `${v.numericValue}${v.isDropped ? 'd' : ''}`).join(' ')}`);
        return;
      }
      if (r.equation !== eq) {
        t.fail(`${eq} written as ${r.equation}`);
        return;
      }
    }
  }
  t.pass();
});

test('what a viewer may not see counts nothing: a hidden die of a kept part, a counting part with a hidden die', (t) => {
  const d = (type: string, value: number, isHidden = false): DieRequest => ({ type, theme: T, value, isHidden });
  // Part 0: 6 + hidden 5 = 11, kept; part 1: 4.
  const keep = rollDice([d('d6', 6), d('d6', 5, true), d('d6', 4)], { groups: [{ parts: [[0, 1], [2]], k: 'h1' }] }, resolve, faces());
  t.is(keep.total, 11);
  t.is(viewerTotal(keep.values, keep.operator), 6, 'the hidden 5 is left out; the dropped part stays out');
  t.is(viewerEquation(keep.equation, keep.operator, keep.values), keep.equation);
  // Counting parts: part 0 (with a hidden die) and part 1 both succeed; the viewer is shown one success.
  const pool = rollDice(
    [d('d6', 6), d('d6', 5, true), d('d6', 6), d('d6', 6)],
    {
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
    resolve,
    faces(),
  );
  t.deepEqual([pool.total, pool.successCount], [2, 2]);
  t.is(viewerTotal(pool.values, pool.operator), 1);
  t.deepEqual(poolCounts(pool.values, false, pool.operator), { success_count: 1, failure_count: 0 });
  t.deepEqual(poolCounts(pool.values, true, pool.operator), { success_count: 2, failure_count: 0 });
  // A hidden modifier inside a group's braces is taken out of the viewer's equation, as outside groups.
  const mod = rollDice(
    [d('d6', 3), { type: 'mod', theme: T, value: 7, isHidden: true }, d('d6', 2)],
    { groups: [{ parts: [[0, 1], [2]], k: 'h1' }] },
    resolve,
    faces(),
  );
  t.is(mod.equation, '{1d6+7, 1d6}kh1');
  t.is(viewerEquation(mod.equation, mod.operator, mod.values), '{1d6, 1d6}kh1');
  t.is(viewerTotal(mod.values, mod.operator), 3);
  const m = (value: number, isHidden = false): DieRequest => ({ type: 'mod', theme: T, value, isHidden });
  const scaled = rollDice(
    [d('d6', 1), m(3), d('d6', 2), m(-2, true), d('d4', 4), m(5, true), m(1)],
    { groups: [{ parts: [[0, 1, 2, 3], [4]], k: 'h1' }], '/': 2, round: 'down' },
    resolve,
    faces(),
  );
  t.is(scaled.equation, 'floor(({2d6+3-2, 1d4}kh1+5+1)/2)');
  t.is(viewerEquation(scaled.equation, scaled.operator, scaled.values), 'floor(({2d6+3, 1d4}kh1+1)/2)');
  const alone = rollDice([m(3, true), d('d6', 5)], { groups: [{ parts: [[0], [1]], k: 'h1' }] }, resolve, faces());
  t.is(viewerEquation(alone.equation, alone.operator, alone.values), '{0, 1d6}kh1');
  t.is(viewerEquation('{1d6+9, 1d6}kh1', alone.operator, alone.values), '', "a shape that is not the writer's gives nothing away");
  // With nothing hidden, the viewer's numbers are the stored ones, for every group form.
  const rng = seeded(8);
  for (const [eq] of RULES) {
    for (let i = 0; i < 200; i++) {
      const r = rollEquation(eq, T, resolve, rng);
      t.is(viewerTotal(r.values, r.operator), r.total, eq);
      if (r.successCount !== null) t.deepEqual(poolCounts(r.values, false, r.operator), { success_count: r.successCount, failure_count: r.failureCount! });
    }
  }
});

test("an equation's operator is compiled once per layout of dice, never served to another layout", (t) => {
  // The parse cache's object for this equation, handed to rollDice with other dice.
  const op = rollEquation('{1d6, 1d6}kh1', T, resolve, faces(2, 5)).operator!;
  t.is(rollEquation('{1d6, 1d6}kh1', T, resolve, faces(6, 1)).total, 6);
  t.is(rollDice(dice('d6', 'd6'), op, resolve, faces(3, 4)).total, 4);
  // The same object over a d100 pair: a new layout, checked anew (a d100 split across parts).
  const e = t.throws(() => rollDice(dice('d10x', 'd10'), op, resolve, faces()), { instanceOf: DiceError })!;
  t.regex(e.message, /one d100/);
  t.is(rollDice(dice('d6', 'd6'), op, resolve, faces(1, 2)).total, 2);
  t.true(Object.isFrozen(op));
});

test("a viewer's equation of a group roll is the equation of the same roll without its hidden modifiers", (t) => {
  // Oracle: the engine's own equation for the request with the hidden modifiers left out (every part keeps a die).
  const rng = seeded(77);
  const ops = [{}, { k: 'h1' }, { k: 'l1' }, { success: '>=7' }, { d: 'h1', s: 'd' }];
  for (let i = 0; i < 400; i++) {
    const dice: DieRequest[] = [];
    const parts: number[][] = [];
    const partCount = 1 + rng.int(3);
    for (let p = 0; p < partCount; p++) {
      const part: number[] = [];
      for (let k = 0, n = 1 + rng.int(3); k < n; k++) {
        part.push(dice.length);
        dice.push({ type: rng.int(2) ? 'd6' : 'd8', theme: T });
      }
      for (let k = 0, n = rng.int(3); k < n; k++) {
        part.push(dice.length);
        dice.push({ type: 'mod', theme: T, value: rng.int(21) - 10, isHidden: rng.int(2) === 0 });
      }
      parts.push(part);
    }
    for (let k = 0, n = rng.int(3); k < n; k++) dice.push({ type: 'mod', theme: T, value: 1 + rng.int(9), isHidden: rng.int(2) === 0 });
    const scaling: Record<string, string | number> = rng.int(3) === 0 ? { '*': 2, round: 'up' } : {};
    const op = { groups: [{ parts, ...ops[rng.int(ops.length)]! }], ...scaling } as unknown as OperatorInput;
    const r = rollDice(dice, op, resolve, rng);
    // The same request without the hidden modifiers, indices renumbered.
    const keep = dice.map((x, j) => (x.type === 'mod' && x.isHidden ? -1 : j)).filter((j) => j >= 0);
    const renumber = new Map(keep.map((j, k) => [j, k]));
    const visibleOp = {
      groups: [{ ...(op.groups as object[])[0]!, parts: parts.map((part) => part.filter((j) => renumber.has(j)).map((j) => renumber.get(j)!)) }],
      ...scaling,
    } as unknown as OperatorInput;
    const oracle = rollDice(
      keep.map((j) => dice[j]!),
      visibleOp,
      resolve,
      seeded(1),
    ).equation;
    const seen = viewerEquation(r.equation, r.operator, r.values);
    if (seen !== oracle) {
      t.fail(`${r.equation}: the viewer reads ${seen}, expected ${oracle}`);
      return;
    }
  }
  t.pass();
});
