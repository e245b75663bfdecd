/**
 * Dice pools and any-sided dice through HTTP: any dN and fudge dice on the built-in theme, errors about an
 * equation pointing at `equation`, and dice pools (`8d10>=8f1`) with their successes and failures, stored
 * and read back, and counted for each viewer from what that viewer may see.
 */
import test from 'ava';
import { useServer } from '../helpers/server';
import { manifest, postTheme } from '../fixtures/themes';
import { rollOk, table, type Roll, type Value } from './rolls.support';

const ctx = useServer(test);

type PoolValue = Value & { is_success: boolean; is_failure: boolean };
type PoolRoll = Omit<Roll, 'values'> & { values: PoolValue[]; success_count?: number; failure_count?: number };

const d = (type: string, extra: Record<string, unknown> = {}) => ({ type, theme: 'standard', ...extra });

test('the built-in theme rolls 1d3, 2d30 and 1d1000 (equation or dice) as generic dice', async (t) => {
  const user = await ctx.server.newUser();
  const { api } = user;
  for (const [eq, type, sides, count] of [
    ['1d3', 'd3', 3, 1],
    ['2d30', 'd30', 30, 2],
    ['1d1000', 'd1000', 1000, 1],
  ] as const) {
    const res = await api.post('/roll', { equation: eq });
    t.is(res.status, 201, `${eq}: ${res.text}`);
    const roll = res.body.data as Roll;
    t.is(roll.equation, eq);
    t.is(roll.values.length, count);
    for (const v of roll.values) {
      t.is(v.type, type);
      t.true(Number.isInteger(v.value) && v.value! >= 1 && v.value! <= sides, `${eq}: ${v.value}`);
      t.is(Number(v.value_to_display), v.value!);
    }
    t.is(
      roll.total_value,
      roll.values.reduce((s, v) => s + v.value!, 0),
    );
  }
  const faces = new Set<number>();
  for (let i = 0; i < 6; i++) for (const v of (await rollOk(user, { dice: Array.from({ length: 20 }, () => d('d3')) })).values) faces.add(v.value!);
  t.deepEqual([...faces].sort(), [1, 2, 3], 'every face of a d3 comes up');
  const preset = await rollOk(user, { dice: [d('d7', { value: 7 })] });
  t.is(preset.total_value, 7);
});

test('a die nobody has is a 422 unknown_die at `equation` when only an equation was sent, at dice[i].type otherwise', async (t) => {
  const { api } = await ctx.server.newUser();
  for (const eq of ['1d1001', '1d1', '1d20+1d5000']) {
    const res = await api.post('/roll', { equation: eq });
    t.is(res.status, 422, eq);
    t.is(res.body.data.code, 'unknown_die', eq);
    t.deepEqual(
      res.body.data.details.map((x: { path: string }) => x.path),
      ['equation'],
      eq,
    );
  }
  const dice = await api.post('/roll', { dice: [d('d6'), d('d1001')] });
  t.is(dice.status, 422);
  t.is(dice.body.data.details[0].path, 'dice[1].type');

  // A theme of one's own rolls only its own dice: no generic d3 there.
  const creator = await ctx.server.newUser();
  const m = manifest({ name: 'Only d6', available_dice: ['d6'] });
  t.is((await postTheme(creator.api, m)).status, 201);
  const own = await creator.api.post('/roll', { equation: '1d3', theme: m.id });
  t.is(own.status, 422);
  t.is(own.body.data.details[0].path, 'equation');
  t.regex(own.body.data.message, /d3/);
});

test('4dF and dF.1 roll fudge dice on the built-in theme: faces -1, 0, +1, written back as read', async (t) => {
  const user = await ctx.server.newUser();
  const { api } = user;
  const seen = new Set<number>();
  for (let i = 0; i < 8; i++) {
    const roll = (await api.post('/roll', { equation: '4dF+2' })).body.data as Roll;
    t.is(roll.equation, '4dF+2');
    const dice = roll.values.filter((v) => v.type !== 'mod');
    t.is(dice.length, 4);
    for (const v of dice) {
      t.is(v.type, 'df');
      const n = Number(v.value_to_display);
      t.true([-1, 0, 1].includes(n), String(v.value_to_display));
      seen.add(n);
    }
    t.is(roll.total_value, dice.reduce((s, v) => s + Number(v.value_to_display), 0) + 2);
  }
  t.deepEqual([...seen].sort(), [-1, 0, 1]);
  const one = (await api.post('/roll', { equation: 'dF.1' })).body.data as Roll;
  t.is(one.equation, '1dF.1');
  t.is(one.values[0]!.type, 'df.1');
  const plus = await rollOk(user, { dice: [d('dF.1', { value: 1 })] });
  t.is(plus.total_value, 1, "a fate die's value is its face: 1 is the one +1 of dF.1");
  t.is(plus.values[0]!.value, 1);
});

test('8d10>=8f1: each value says success or failure, the total is successes minus failures, stored as answered', async (t) => {
  const user = await ctx.server.newUser();
  const { api } = user;
  for (let i = 0; i < 5; i++) {
    const res = await api.post('/roll', { equation: '8d10>=8f1' });
    t.is(res.status, 201, res.text);
    const roll = res.body.data as PoolRoll;
    t.is(roll.equation, '8d10>=8f1');
    t.deepEqual(roll.operator, { success: '>=8', failure: '1' });
    let s = 0;
    let f = 0;
    for (const v of roll.values) {
      t.is(v.is_success, v.value! >= 8, `face ${v.value}`);
      t.is(v.is_failure, v.value === 1, `face ${v.value}`);
      if (v.is_success) s++;
      if (v.is_failure) f++;
    }
    t.is(roll.success_count, s);
    t.is(roll.failure_count, f);
    t.is(roll.total_value, s - f);
    t.deepEqual((await api.get(`/roll/${roll.uuid}`)).body.data, roll, 'read back from the database as answered');
  }
  // Explosions in a pool: every die showing 10 adds one more die, and each counts.
  const ex = (await api.post('/roll', { equation: '10d10>=8!' })).body.data as PoolRoll;
  const tens = ex.values.filter((v) => v.value === 10).length;
  t.is(ex.values.length, 10 + tens);
  t.is(ex.total_value, ex.values.filter((v) => v.value! >= 8).length);
  // Predetermined faces and the operator object: 8 and 9 succeed, the 1 fails.
  const fixed = (await rollOk(user, {
    dice: [8, 9, 1, 5].map((value) => d('d10', { value })),
    operator: { success: '>=8', failure: '1' },
  })) as unknown as PoolRoll;
  t.deepEqual([fixed.total_value, fixed.success_count, fixed.failure_count], [1, 2, 1]);
  t.is(fixed.equation, '4d10>=8f1');
  t.deepEqual(
    fixed.values.map((v) => [v.is_success, v.is_failure]),
    [
      [true, false],
      [true, false],
      [false, true],
      [false, false],
    ],
  );
  // rr<3 stays d20's reroll: no pool, no counts.
  const rr = (await api.post('/roll', { equation: '4d20rr<3' })).body.data as PoolRoll;
  t.false('success_count' in rr);
  t.true(rr.values.filter((v) => !v.is_dropped).every((v) => v.value! >= 3 && !v.is_success && !v.is_failure));
});

test('a hidden pool die counts for nobody but its roller', async (t) => {
  const { roller, bystander, slug } = await table(ctx.server);
  const roll = (await rollOk(roller, {
    dice: [
      d('d10', { value: 9, is_hidden: true }),
      d('d10', { value: 8 }),
      d('d10', { value: 1, is_hidden: true }),
      d('d10', { value: 1 }),
      d('d10', { value: 5 }),
    ],
    operator: { success: '>=8', failure: '1' },
    room: slug,
  })) as unknown as PoolRoll;
  t.deepEqual([roll.total_value, roll.success_count, roll.failure_count], [0, 2, 2]);
  t.deepEqual(
    roll.values.map((v) => [v.is_success, v.is_failure]),
    [
      [true, false],
      [true, false],
      [false, true],
      [false, true],
      [false, false],
    ],
  );
  const seen = (await bystander.api.get(`/roll/${roll.uuid}`)).body.data as PoolRoll;
  t.deepEqual([seen.total_value, seen.success_count, seen.failure_count], [0, 1, 1], 'the hidden success and failure are left out');
  t.deepEqual(
    seen.values.map((v) => [v.is_success, v.is_failure]),
    [
      [false, false],
      [true, false],
      [false, false],
      [false, true],
      [false, false],
    ],
  );
  t.is(seen.values[0]!.value, null);
});
