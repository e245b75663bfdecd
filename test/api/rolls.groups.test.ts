/**
 * Roll groups through HTTP: `{4d6+2d8, 3d20+3}kh1` and its kin by equation and by the operator
 * object, each value saying its group part, dropped parts dropped, counting parts counted, stored and read
 * back as answered; and for a viewer who may not see a die, group totals and counts without it.
 */
import test from 'ava';
import { useServer } from '../helpers/server';
import { rollOk, table, type Roll, type Value } from './rolls.support';

const ctx = useServer(test);

type GroupValue = Value & { is_success: boolean; is_failure: boolean; group: number | null; group_part: number | null };
type GroupRoll = Omit<Roll, 'values'> & { values: GroupValue[]; success_count?: number; failure_count?: number };

const d = (type: string, extra: Record<string, unknown> = {}) => ({ type, theme: 'standard', ...extra });

/** Per part: the sum of its faces and modifiers (no operator inside the parts drops anything here). */
function partTotals(roll: GroupRoll, parts: number): number[] {
  const totals = new Array<number>(parts).fill(0);
  for (const v of roll.values) if (v.group_part !== null) totals[v.group_part]! += Number(v.value_to_display);
  return totals;
}

test('{4d6+2d8, 3d20+3}kh1 keeps the higher sub-roll: the other part is dropped whole, the equation is written as read', async (t) => {
  const user = await ctx.server.newUser();
  for (let i = 0; i < 4; i++) {
    const res = await user.api.post('/roll', { equation: '{4d6+2d8, 3d20+3}kh1' });
    t.is(res.status, 201, res.text);
    const roll = res.body.data as GroupRoll;
    t.is(roll.equation, '{4d6+2d8, 3d20+3}kh1');
    t.deepEqual(roll.operator, {
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
    t.deepEqual(
      roll.values.map((v) => v.group),
      Array(10).fill(0),
    );
    t.deepEqual(
      roll.values.map((v) => v.group_part),
      [0, 0, 0, 0, 0, 0, 1, 1, 1, 1],
    );
    const totals = partTotals(roll, 2);
    const kept = totals[0]! >= totals[1]! ? 0 : 1;
    t.is(roll.total_value, totals[kept]);
    t.true(
      roll.values.every((v) => v.is_dropped === (v.group_part !== kept)),
      'the dropped part is dropped whole, its +3 too',
    );
    t.false('success_count' in roll);
    t.deepEqual((await user.api.get(`/roll/${roll.uuid}`)).body.data, roll, 'read back from the database as answered');
  }
});

test('{4d6kh3, 4d6kh3}, kl1, dh1 and a compare point over parts, by equation and by the operator object', async (t) => {
  const user = await ctx.server.newUser();
  const each = (await user.api.post('/roll', { equation: '{4d6kh3, 4d6kh3}' })).body.data as GroupRoll;
  t.is(each.equation, '{4d6kh3, 4d6kh3}');
  t.deepEqual(each.operator, {
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
  for (const part of [0, 1]) t.is(each.values.filter((v) => v.group_part === part && v.is_dropped).length, 1, 'each part drops its lowest');
  t.is(
    each.total_value,
    each.values.filter((v) => !v.is_dropped).reduce((s, v) => s + v.value!, 0),
  );

  // The same by dice and the operator object, with predetermined faces: 6 5 (11) + 1, against 4 + 4 (8).
  const six = (value: number) => d('d6', { value });
  const dice = [six(6), six(5), d('mod', { value: 1 }), six(4), six(4)];
  const kl = (await rollOk(user, {
    dice,
    operator: {
      groups: [
        {
          parts: [
            [0, 1, 2],
            [3, 4],
          ],
          k: 'l1',
        },
      ],
    },
  })) as unknown as GroupRoll;
  t.is(kl.equation, '{2d6+1, 2d6}kl1');
  t.is(kl.total_value, 8);
  t.deepEqual(
    kl.values.map((v) => v.is_dropped),
    [true, true, true, false, false],
  );
  const dh = (await rollOk(user, {
    dice,
    operator: {
      groups: [
        {
          parts: [
            [0, 1, 2],
            [3, 4],
          ],
          d: 'h1',
        },
      ],
    },
  })) as unknown as GroupRoll;
  t.is(dh.equation, '{2d6+1, 2d6}dh1');
  t.is(dh.total_value, 8);
  const counted = (await rollOk(user, {
    dice,
    operator: {
      groups: [
        {
          parts: [
            [0, 1, 2],
            [3, 4],
          ],
          success: '>=10',
          failure: '<9',
        },
      ],
    },
  })) as unknown as GroupRoll;
  t.is(counted.equation, '{2d6+1, 2d6}>=10f<9');
  t.deepEqual([counted.total_value, counted.success_count, counted.failure_count], [0, 1, 1]);
  t.deepEqual(
    counted.values.map((v) => (v.is_success ? 'S' : v.is_failure ? 'F' : '-')),
    ['S', 'S', 'S', 'F', 'F'],
  );
  t.deepEqual((await user.api.get(`/roll/${counted.uuid}`)).body.data, counted);
  // Read back from its equation, the roll is the same roll.
  const again = (await rollOk(user, { equation: counted.equation })) as unknown as GroupRoll;
  t.deepEqual(again.operator, counted.operator);
});

test('a bad group is a 400 naming the rule and where it was broken', async (t) => {
  const { api } = await ctx.server.newUser();
  const bad: [Record<string, unknown>, string][] = [
    [{ dice: [d('d6'), d('d6')], operator: { groups: [{ parts: [[0], [0]] }] } }, 'operator.groups[0].parts[1][0]'],
    [{ dice: [d('d6'), d('d6')], operator: { groups: [{ parts: [[0], [1]], e: '6' }] } }, 'operator.groups[0].e'],
    [{ dice: [d('d6'), d('d6'), d('d6')], operator: { k: 'h1', groups: [{ parts: [[0, 1], [2]] }] } }, 'operator.k'],
    [{ equation: '{2d6}!' }, 'equation'],
    [{ equation: '{60d6, 41d6}kh1' }, 'equation'],
  ];
  for (const [body, path] of bad) {
    const res = await api.post('/roll', body);
    t.is(res.status, 400, JSON.stringify(body));
    t.is(res.body.data.details[0].path, path, JSON.stringify(body));
  }
});

test("a hidden die counts for nobody but its roller: not in a kept part's total, not in a counting part", async (t) => {
  const { roller, bystander, slug } = await table(ctx.server);
  const six = (value: number, is_hidden = false) => d('d6', { value, is_hidden });
  // Part 0: 6 + hidden 5 (11), kept over part 1: 4.
  const keep = (await rollOk(roller, {
    room: slug,
    dice: [six(6), six(5, true), six(4)],
    operator: { groups: [{ parts: [[0, 1], [2]], k: 'h1' }] },
  })) as unknown as GroupRoll;
  t.is(keep.total_value, 11);
  const seenKeep = (await bystander.api.get(`/roll/${keep.uuid}`)).body.data as GroupRoll;
  t.is(seenKeep.total_value, 6);
  t.is(seenKeep.values[1]!.value, null);
  t.deepEqual(
    seenKeep.values.map((v) => v.group_part),
    [0, 0, 1],
    'which part a die is in is in the operator: shown for hidden dice too',
  );
  // Counting parts: both succeed for the roller; the bystander sees only the part without a hidden die.
  const pool = (await rollOk(roller, {
    room: slug,
    dice: [six(6), six(5, true), six(6), six(6)],
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
  })) as unknown as GroupRoll;
  t.deepEqual([pool.total_value, pool.success_count], [2, 2]);
  const seenPool = (await bystander.api.get(`/roll/${pool.uuid}`)).body.data as GroupRoll;
  t.deepEqual([seenPool.total_value, seenPool.success_count, seenPool.failure_count], [1, 1, 0]);
  t.deepEqual(
    seenPool.values.map((v) => v.is_success),
    [true, false, true, true],
  );
  // A hidden modifier inside the braces: the bystander's equation leaves it out, as outside groups.
  const mod = await rollOk(roller, {
    room: slug,
    dice: [six(3), d('mod', { value: 7, is_hidden: true }), six(2)],
    operator: { groups: [{ parts: [[0, 1], [2]], k: 'h1' }] },
  });
  t.is(mod.equation, '{1d6+7, 1d6}kh1');
  const seenMod = (await bystander.api.get(`/roll/${mod.uuid}`)).body.data as GroupRoll;
  t.is(seenMod.equation, '{1d6, 1d6}kh1');
  t.is(seenMod.total_value, 3);
});
