import test, { type ExecutionContext } from 'ava';
import { useServer } from '../helpers/server';
import { chiSquareAgainstUniform } from '../../src/stats/chiSquare';
import { rollOk, table, type NewUser, type Roll } from './rolls.support';
import { manifest, postTheme } from '../fixtures/themes';

/**
 * GET /room/{slug}/stats and GET /user/stats, checked against tallies made here from the rolls' own
 * REST answers (each viewer's), never from the database: what a viewer can count from the rolls it is
 * shown is exactly what its statistics say. Runs on SQLite and on PostgreSQL (TEST_DB=postgres): both
 * agree with the same independent tallies.
 */

const ctx = useServer(test);

interface DieStats {
  type: string;
  themes: string[];
  faces: number;
  count: number;
  counts: { face: unknown; value: number; count: number }[];
  mean: number | null;
  expected_mean: number | null;
  chi_square: number | null;
  degrees_of_freedom: number;
  p_value: number | null;
  user_values: number;
}
interface Stats {
  rolls: number;
  dice: DieStats[];
}

/** What one viewer's answers show: per type, drawn values by wire `value`, supplied ones, face numbers, rolls. */
interface Tally {
  drawn: Map<string, Map<number, number>>;
  user: Map<string, number>;
  sums: Map<string, number>;
  rolls: Set<string>;
}

function tally(rolls: Roll[]): Tally {
  const out: Tally = { drawn: new Map(), user: new Map(), sums: new Map(), rolls: new Set() };
  for (const roll of rolls) {
    for (const v of roll.values) {
      // A modifier is no die; a value this viewer is shown as null is one it may not see.
      if (v.type === 'mod' || v.value === null) continue;
      out.rolls.add(roll.uuid);
      if (v.is_user_value) {
        out.user.set(v.type, (out.user.get(v.type) ?? 0) + 1);
        continue;
      }
      const byValue = out.drawn.get(v.type) ?? new Map<number, number>();
      byValue.set(v.value, (byValue.get(v.value) ?? 0) + 1);
      out.drawn.set(v.type, byValue);
      out.sums.set(v.type, (out.sums.get(v.type) ?? 0) + Number(v.value_to_display));
    }
  }
  return out;
}

/** The statistics say what the tally says: counts per face value, user values, means, rolls. */
function agree(t: ExecutionContext, stats: Stats, expected: Tally, what: string) {
  t.is(stats.rolls, expected.rolls.size, `${what}: rolls`);
  const types = new Set([...expected.drawn.keys(), ...expected.user.keys()]);
  t.deepEqual(stats.dice.map((d) => d.type).sort(), [...types].sort(), `${what}: die types`);
  for (const d of stats.dice) {
    const byValue = new Map<number, number>();
    for (const c of d.counts) byValue.set(c.value, (byValue.get(c.value) ?? 0) + c.count);
    const want = expected.drawn.get(d.type) ?? new Map<number, number>();
    for (const [value, n] of byValue) t.is(n, want.get(value) ?? 0, `${what}: ${d.type} value ${value}`);
    for (const value of want.keys()) t.true(byValue.has(value), `${what}: ${d.type} lists value ${value}`);
    t.is(
      d.count,
      [...want.values()].reduce((s, n) => s + n, 0),
      `${what}: ${d.type} count`,
    );
    t.is(d.user_values, expected.user.get(d.type) ?? 0, `${what}: ${d.type} user values`);
    t.is(d.counts.length, d.faces, `${what}: ${d.type} lists every face`);
    t.is(d.degrees_of_freedom, d.faces - 1);
    if (d.count > 0 && d.mean !== null) t.true(Math.abs(d.mean - expected.sums.get(d.type)! / d.count) < 1e-9, `${what}: ${d.type} mean`);
    if (d.count > 0) {
      t.true(Math.abs(d.chi_square! - chiSquareAgainstUniform(d.counts.map((c) => c.count))) < 1e-9, `${what}: ${d.type} chi-square`);
      t.true(d.p_value === null || (d.p_value >= 0 && d.p_value <= 1));
    } else {
      t.is(d.chi_square, null);
      t.is(d.p_value, null);
    }
  }
}

/** Every roll of the room `viewer` may see, from its history (GET /room/{slug}/roll, every page). */
async function history(viewer: NewUser, slug: string): Promise<Roll[]> {
  const out: Roll[] = [];
  let url: string | null = `/room/${slug}/roll?limit=100`;
  while (url) {
    const res: { status: number; body: { data: Roll[]; links: { next: string | null } } } = await viewer.api.get(url);
    if (res.status !== 200) throw new Error(`history: ${res.status}`);
    out.push(...res.body.data);
    url = res.body.links.next;
  }
  return out;
}

async function stats(viewer: NewUser, path: string): Promise<Stats> {
  const res = await viewer.api.get(path);
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
  if (res.body.type !== 'stats') throw new Error(`${path}: type ${res.body.type}`);
  return res.body.data as Stats;
}

const std = (type: string, extra: Record<string, unknown> = {}) => ({ type, theme: 'standard', ...extra });

test('room statistics count every value each viewer may see, as its own REST answers show them', async (t) => {
  const { roller, whisperee, bystander, outsider, slug, participantId } = await table(ctx.server);
  // Dropped dice, rerolls, explosions, a d100 (d10x + d10), fate dice, modifiers, and values supplied.
  for (const equation of ['10d6+5d20+3', '4d6kh3', '10d10rr<3', '8d6e6', '1d100', '4dF', '6d4-2']) {
    for (let i = 0; i < 3; i++) await rollOk(roller, { equation, theme: 'standard', room: slug });
  }
  await rollOk(bystander, { equation: '20d20', theme: 'standard', room: slug });
  await rollOk(roller, { dice: [std('d20', { value: 20 }), std('d20', { value: 20 }), std('d6', { value: 1 })], room: slug });
  // Privacy: a hidden d8 (the roller's alone), a d12 whispered to one player, a d2 whispered to oneself.
  await rollOk(roller, { dice: [std('d8', { is_hidden: true }), std('d8', { is_hidden: true }), std('d20')], room: slug });
  await rollOk(roller, { dice: [std('d12'), std('d12')], room: slug, whisper: [participantId(whisperee)] });
  await rollOk(roller, { dice: [std('d2')], room: slug, whisper: [participantId(roller)] });
  // A roll outside the room is in no room's statistics.
  await rollOk(roller, { dice: [std('d10'), std('d10')] });

  for (const [name, viewer] of [
    ['roller', roller],
    ['whisperee', whisperee],
    ['bystander', bystander],
  ] as const) {
    const seen = await history(viewer, slug);
    agree(t, await stats(viewer, `/room/${slug}/stats`), tally(seen), name);
  }
  const byBystander = await stats(bystander, `/room/${slug}/stats`);
  t.false(
    byBystander.dice.some((d) => d.type === 'd8'),
    "another player's hidden dice are not counted",
  );
  t.false(
    byBystander.dice.some((d) => d.type === 'd12'),
    'a whisper for someone else is not counted',
  );
  t.false(byBystander.dice.some((d) => d.type === 'd2'));
  t.true(
    (await stats(whisperee, `/room/${slug}/stats`)).dice.some((d) => d.type === 'd12'),
    'the whispered player counts the whisper',
  );
  const own = await stats(roller, `/room/${slug}/stats`);
  t.is(own.dice.find((d) => d.type === 'd8')?.count, 2, 'the roller counts their hidden dice');

  // Values supplied by the client are apart: two d20s at 20 and a d6 at 1.
  t.is(own.dice.find((d) => d.type === 'd20')!.user_values, 2);
  t.is(own.dice.find((d) => d.type === 'd6')!.user_values, 1);

  // Faces in face order, zeros included; numbers as roll values give them.
  const d20 = own.dice.find((d) => d.type === 'd20')!;
  t.deepEqual(
    d20.counts.map((c) => c.face),
    Array.from({ length: 20 }, (_, i) => i + 1),
  );
  t.is(d20.expected_mean, 10.5);
  t.deepEqual(d20.themes, ['standard']);
  const d10x = own.dice.find((d) => d.type === 'd10x')!;
  t.deepEqual(
    d10x.counts.map((c) => c.face),
    [0, 10, 20, 30, 40, 50, 60, 70, 80, 90],
    "a d10x's faces 00 to 90",
  );
  t.deepEqual(
    d10x.counts.map((c) => c.value),
    [10, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    'numbered as its values are (10 for 00)',
  );
  t.is(d10x.expected_mean, 45);
  const fate = own.dice.find((d) => d.type === 'df')!;
  t.is(fate.faces, 6, 'a fate die has six faces, two of each');
  t.deepEqual(
    fate.counts.map((c) => c.value),
    [-1, -1, 0, 0, 1, 1],
  );
  t.is(fate.expected_mean, 0);

  // Only participants; an unknown room is a 404.
  t.is((await outsider.api.get(`/room/${slug}/stats`)).status, 403);
  t.is((await roller.api.get('/room/no-such-room-here/stats')).status, 404);
});

test('filters: type, user, since and until', async (t) => {
  const { roller, bystander, slug } = await table(ctx.server);
  const first = [
    await rollOk(roller, { equation: '6d20+6d6', theme: 'standard', room: slug }),
    await rollOk(bystander, { equation: '6d20', theme: 'standard', room: slug }),
  ];
  await new Promise((r) => setTimeout(r, 20));
  const later = [
    await rollOk(roller, { equation: '8d20+2d4', theme: 'standard', room: slug }),
    await rollOk(bystander, { equation: '3d8', theme: 'standard', room: slug }),
  ];
  const all = [...first, ...later];
  const split = later[0]!.created_at;

  const d20s = await stats(roller, `/room/${slug}/stats?type=D20`);
  t.deepEqual(
    d20s.dice.map((d) => d.type),
    ['d20'],
    'one type, case-insensitive',
  );
  t.is(d20s.dice[0]!.count, 6 + 6 + 8);
  t.is(d20s.rolls, 3, 'the rolls that hold a d20');

  const theirs = await stats(roller, `/room/${slug}/stats?user=${bystander.user.uuid}`);
  agree(t, theirs, tally(all.filter((r) => r.user.uuid === bystander.user.uuid)), 'user');
  const nobody = await stats(roller, `/room/${slug}/stats?user=00000000-0000-4000-8000-000000000000`);
  t.deepEqual(nobody, { rolls: 0, dice: [] }, 'an unknown user rolled nothing here');

  agree(t, await stats(roller, `/room/${slug}/stats?since=${split}`), tally(later), 'since');
  agree(t, await stats(roller, `/room/${slug}/stats?until=${split}`), tally(first), 'until');
  agree(t, await stats(roller, `/room/${slug}/stats?since=${first[0]!.created_at}&until=${split}`), tally(first), 'since and until');

  for (const bad of ['since=yesterday', 'until=2026-13-45', `since=${split}&until=${first[0]!.created_at}`, 'user=bob', `type=${'d'.repeat(65)}`, 'type=']) {
    const res = await roller.api.get(`/room/${slug}/stats?${bad}`);
    t.is(res.status, 400, bad);
    t.is(res.body.data.code, 'validation_error', bad);
  }
  const userParam = await roller.api.get(`/user/stats?user=${roller.user.uuid}`);
  t.is(userParam.status, 400, '/user/stats names its own rolls: `user` is refused, not ignored');
  t.regex(userParam.body.data.details[0].message, /room statistics/);
});

test('user statistics: every value of your own rolls, in rooms or not, hidden and whispered too', async (t) => {
  const { roller, bystander, slug, participantId } = await table(ctx.server);
  const mine = [
    await rollOk(roller, { equation: '12d6kh6', theme: 'standard' }),
    await rollOk(roller, { dice: [std('d20', { is_hidden: true }), std('d20', { value: 3 })], room: slug }),
    await rollOk(roller, { dice: [std('d12')], room: slug, whisper: [participantId(bystander)] }),
    await rollOk(roller, { dice: [std('d1000')] }),
  ];
  await rollOk(bystander, { equation: '5d20', theme: 'standard', room: slug });
  const own = await stats(roller, '/user/stats');
  agree(t, own, tally(mine), 'own');
  const big = own.dice.find((d) => d.type === 'd1000')!;
  t.is(big.counts.length, 1000, 'a die of 1,000 faces lists them all');
  t.is(big.counts.filter((c) => c.count === 0).length, 999, 'zeros included');
  t.is(big.p_value !== null, true);
  agree(
    t,
    await stats(roller, '/user/stats?type=d20'),
    tally(mine.filter((r) => r.values.some((v) => v.type === 'd20')).map((r) => ({ ...r, values: r.values.filter((v) => v.type === 'd20') }))),
    'own d20',
  );
  t.deepEqual(await stats(bystander, '/user/stats?type=d6'), { rolls: 0, dice: [] });
});

test("a theme's own faces: its face order, a die found by notation, and one entry per distinct list of faces", async (t) => {
  const { roller, bystander, slug } = await table(ctx.server);
  // A d6 of words (faces that are no numbers), a d20 numbered in strings as themes often write them, and
  // a custom die rolled by its notation.
  const m = manifest({
    available_dice: ['d6', 'd20', { id: 'coin', type: 'd2', notation: 'dC' }],
    values: { d6: ['skull', 'sword', 'shield', 'crown', 'gem', 'star'], d20: Array.from({ length: 20 }, (_, i) => String(i + 1)), coin: ['heads', 'tails'] },
  });
  t.is((await postTheme(roller.api, m)).status, 201);
  const rolls = [
    await rollOk(roller, { equation: '12d6+10d20+8dC', theme: m.id, room: slug }),
    await rollOk(bystander, { equation: '6d6+10d20', theme: 'standard', room: slug }),
  ];
  const seen = await stats(bystander, `/room/${slug}/stats`);
  // A die rolled by its notation keeps the type it was asked as ("dc"), as its roll values do.
  t.deepEqual(
    seen.dice.map((d) => [d.type, d.themes]),
    [
      ['d6', ['standard']],
      ['d6', [m.id as string]],
      ['d20', [m.id as string, 'standard'].sort()],
      ['dc', [m.id as string]],
    ],
  );
  const words = seen.dice.find((d) => d.type === 'd6' && d.themes[0] === m.id)!;
  t.deepEqual(
    words.counts.map((c) => c.face),
    ['skull', 'sword', 'shield', 'crown', 'gem', 'star'],
    "the theme's face order",
  );
  t.is(words.count, 12);
  t.is(words.mean, null, 'words have no mean');
  t.is(words.expected_mean, null);
  t.is(seen.dice.find((d) => d.type === 'd20')!.count, 20, "the theme's d20 numbered in strings is the same die as the built-in one");
  const coin = seen.dice.find((d) => d.type === 'dc')!;
  t.deepEqual(
    coin.counts.map((c) => c.face),
    ['heads', 'tails'],
  );
  t.is(coin.count, 8);
  // Against the rolls' own answers, by wire value and face.
  for (const [type, theme, n] of [
    ['d6', m.id as string, 12],
    ['d6', 'standard', 6],
  ] as const) {
    const values = rolls.flatMap((r) => r.values).filter((v) => v.type === type && v.theme === theme);
    t.is(values.length, n);
    const entry = seen.dice.find((d) => d.type === type && d.themes.includes(theme))!;
    for (const c of entry.counts) t.is(c.count, values.filter((v) => v.value === c.value).length, `${theme} ${type} face ${String(c.face)}`);
  }
});
