import test from 'ava';
import { useServer } from '../helpers/server';
import { recordEvents } from '../fixtures/events';
import { manifest, postTheme } from '../fixtures/themes';
import { db } from '../../src/db';
import { rollOk, table, TIMESTAMP, UUID, type Roll, type Value } from './rolls.support';

const ctx = useServer(test);
const events = recordEvents();

const ROLL_KEYS = [
  'uuid',
  'direction',
  'velocity',
  'user',
  'room',
  'values',
  'operator',
  'equation',
  'total_value',
  'external_id',
  'label',
  'participants',
  'fairness',
  'created_at',
  'updated_at',
];
const VALUE_KEYS = [
  'uuid',
  'type',
  'theme',
  'value',
  'value_to_display',
  'label',
  'meta',
  'is_hidden',
  'is_user_value',
  'is_visible',
  'is_cleared',
  'is_dropped',
  'is_success',
  'is_failure',
  'is_compounded',
  'is_penetrated',
  'die_index',
  'group',
  'group_part',
  'proof',
  'created_at',
  'updated_at',
];

test('a d20 in the built-in theme: 201 with the whole roll of docs/spec.md §2.6', async (t) => {
  const { api, user } = await ctx.server.newUser();
  const res = await api.post('/roll', { dice: [{ type: 'D20', theme: 'standard' }], label: 'Attack' });
  t.is(res.status, 201);
  t.is(res.body.type, 'roll');
  const roll = res.body.data as Roll;
  t.deepEqual(Object.keys(roll).sort(), [...ROLL_KEYS].sort());
  t.regex(roll.uuid, UUID);
  t.is(roll.user.uuid, user.uuid);
  t.is(roll.room, null);
  t.is(roll.equation, '1d20');
  t.is(roll.label, 'Attack');
  t.is(roll.external_id, null);
  t.is(roll.operator, null);
  t.deepEqual(roll.participants, []);
  t.true(roll.direction >= 0 && roll.direction < 360, 'the server picks a direction in degrees');
  t.true(roll.velocity > 0, 'and a velocity');
  t.regex(roll.created_at, TIMESTAMP);
  t.regex(roll.updated_at, TIMESTAMP);

  t.is(roll.values.length, 1);
  const v = roll.values[0]!;
  t.deepEqual(Object.keys(v).sort(), [...VALUE_KEYS].sort());
  t.regex(v.uuid, UUID);
  t.is(v.type, 'd20', 'types are lower case in responses');
  t.is(v.theme, 'standard');
  t.true(Number.isInteger(v.value) && v.value! >= 1 && v.value! <= 20);
  t.is(v.value_to_display, String(v.value), 'the face of the standard d20 at that index');
  t.is(roll.total_value, v.value as number);
  t.false(v.is_hidden);
  t.false(v.is_user_value);
  t.true(v.is_visible);
  t.false(v.is_cleared);
  t.false(v.is_dropped);
  t.regex(v.created_at, TIMESTAMP);

  const again = await api.get(`/roll/${roll.uuid}`);
  t.is(again.status, 200);
  t.deepEqual(again.body.data, roll, 'GET answers what POST answered');
});

test('rolled values are spread over the faces (crypto randomness, not one face)', async (t) => {
  const { api } = await ctx.server.newUser();
  const roll = (await api.post('/roll', { dice: Array.from({ length: 100 }, () => ({ type: 'd6', theme: 'standard' })) })).body.data as Roll;
  const faces = new Set(roll.values.map((v) => v.value));
  t.true(faces.size >= 4, `100 d6 showed only ${[...faces].join(', ')}`);
  t.is(
    roll.total_value,
    roll.values.reduce((s, v) => s + v.value!, 0),
  );
  t.is(roll.equation, '100d6');
});

test('a roll into a room embeds the room with the participants it involves: the roller (with a colour) and whom it whispers to', async (t) => {
  const { roller, slug, whisperee } = await table(ctx.server);
  const roll = await rollOk(roller, { dice: [{ type: 'd6', theme: 'standard' }], room: slug });
  t.is(roll.room!.slug, slug);
  const me = roll.room!.participants.find((p) => p.user.uuid === roller.user.uuid);
  t.truthy(me, 'the roller is in room.participants');
  t.regex(me!.color, /^#[0-9a-f]{6}$/);
  t.deepEqual(
    roll.room!.participants.map((p) => p.user.uuid),
    [roller.user.uuid],
    'a roll does not carry the whole room (docs/api/rolls.md)',
  );
  t.deepEqual(roll.participants, [], 'not whispered: no whisper list');

  const seat = (await whisperee.api.get(`/room/${slug}`)).body.data.participants.find((p: { user: { uuid: string } }) => p.user.uuid === whisperee.user.uuid);
  const whispered = await rollOk(roller, { dice: [{ type: 'd6', theme: 'standard' }], room: slug, whisper: [seat.id] });
  t.deepEqual(new Set(whispered.room!.participants.map((p) => p.user.uuid)), new Set([roller.user.uuid, whisperee.user.uuid]));
  t.deepEqual(
    whispered.participants.map((p) => p.user.uuid),
    [whisperee.user.uuid],
  );
});

test('a d100 is a d10x and a d10: one 1..100 number, and predetermined faces read as percentiles', async (t) => {
  const { api } = await ctx.server.newUser();
  const random = (
    await api.post('/roll', {
      dice: [
        { type: 'd10x', theme: 'standard' },
        { type: 'd10', theme: 'standard' },
      ],
    })
  ).body.data as Roll;
  t.is(random.equation, '1d100');
  t.is(random.values.length, 2);
  t.true(random.total_value >= 1 && random.total_value <= 100);
  const tens = Number(random.values[0]!.value_to_display);
  const units = Number(random.values[1]!.value_to_display) % 10;
  t.is(random.total_value, tens + units === 0 ? 100 : tens + units);

  const fixed = async (tensFace: number, unitsFace: number) =>
    (
      await api.post('/roll', {
        dice: [
          { type: 'd10x', theme: 'standard', value_to_display: tensFace },
          { type: 'd10', theme: 'standard', value_to_display: unitsFace },
        ],
      })
    ).body.data as Roll;
  const r57 = await fixed(50, 7);
  t.is(r57.total_value, 57);
  t.is(r57.values[0]!.value, 5, "a d10x's value is its tens digit (dddice's numbering): 5 for the face 50");
  t.true(r57.values.every((v) => v.is_user_value));
  t.is((await fixed(0, 10)).total_value, 100, '00 and 0 read 100');
  t.is((await fixed(90, 10)).total_value, 90);
});

test('a modifier adds its number and is written in the equation', async (t) => {
  const { api } = await ctx.server.newUser();
  const roll = (
    await api.post('/roll', {
      dice: [
        { type: 'd6', theme: 'standard', value: 3 },
        { type: 'mod', value: 2 },
        { type: 'mod', value: -4, theme: 'standard' },
      ],
    })
  ).body.data as Roll;
  t.is(roll.total_value, 1);
  t.is(roll.equation, '1d6+2-4');
  const mod = roll.values.find((v) => v.type === 'mod')!;
  t.is(mod.value, 2);
  t.is(mod.value_to_display, '2');
  t.is(mod.theme, 'standard', 'a modifier without a theme gets the built-in one');
  const half = (await api.post('/roll', { dice: [{ type: 'mod', value: 2.5 }] })).body.data as Roll;
  t.is(half.total_value, 2.5, 'decimal modifiers keep their decimals');
  t.is(half.values[0]!.value, 2.5);
});

test('predetermined values: value (face index), value_to_display (face), both, and mismatches', async (t) => {
  const { api } = await ctx.server.newUser();
  const byIndex = (await api.post('/roll', { dice: [{ type: 'd20', theme: 'standard', value: 17 }] })).body.data as Roll;
  t.is(byIndex.total_value, 17);
  t.true(byIndex.values[0]!.is_user_value);
  const byFace = (await api.post('/roll', { dice: [{ type: 'd8', theme: 'standard', value_to_display: '5' }] })).body.data as Roll;
  t.is(byFace.values[0]!.value, 5);
  t.is(byFace.total_value, 5);
  const mixed = (
    await api.post('/roll', {
      dice: [
        { type: 'd4', theme: 'standard', value: 2, value_to_display: 2 },
        { type: 'd4', theme: 'standard' },
      ],
    })
  ).body.data as Roll;
  t.true(mixed.values[0]!.is_user_value);
  t.false(mixed.values[1]!.is_user_value);

  const bad = await api.post('/roll', { dice: [{ type: 'd6', theme: 'standard', value: 7 }] });
  t.is(bad.status, 400);
  t.is(bad.body.data.code, 'invalid_dice');
  t.is(bad.body.data.details[0].path, 'dice[0].value');
  const disagree = await api.post('/roll', { dice: [{ type: 'd6', theme: 'standard', value: 2, value_to_display: 3 }] });
  t.is(disagree.status, 400);
  t.is(disagree.body.data.details[0].path, 'dice[0].value_to_display');
});

test('an equation with a theme rolls with that theme and writes the operator back', async (t) => {
  const { api } = await ctx.server.newUser();
  const res = await api.post('/roll', { equation: '4d6kh3+2', theme: 'standard' });
  t.is(res.status, 201);
  const roll = res.body.data as Roll;
  t.is(roll.equation, '4d6kh3+2');
  t.deepEqual(roll.operator, { k: 'h3' });
  const dice = roll.values.filter((v) => v.type === 'd6');
  t.is(dice.length, 4);
  t.is(dice.filter((v) => v.is_dropped).length, 1, 'one die dropped');
  const kept = dice.filter((v) => !v.is_dropped).map((v) => v.value!);
  t.true(Math.min(...kept) >= dice.find((v) => v.is_dropped)!.value!, 'the lowest is dropped');
  t.is(roll.total_value, kept.reduce((a, b) => a + b, 0) + 2);

  const noTheme = await api.post('/roll', { equation: '1d20' });
  t.is(noTheme.status, 201, 'an equation without a theme uses the built-in theme');
  const broken = await api.post('/roll', { equation: '1d20+', theme: 'standard' });
  t.is(broken.status, 400);
  t.is(broken.body.data.code, 'invalid_equation');
});

test('operators in the request: keep highest, and the dddice SDK scaling', async (t) => {
  const { api } = await ctx.server.newUser();
  const adv = (
    await api.post('/roll', {
      dice: [
        { type: 'd20', theme: 'standard', value: 4 },
        { type: 'd20', theme: 'standard', value: 15 },
      ],
      operator: { k: 'h1' },
    })
  ).body.data as Roll;
  t.is(adv.total_value, 15);
  t.is(adv.equation, '2d20kh1');
  t.deepEqual(
    adv.values.map((v) => v.is_dropped),
    [true, false],
  );
  const halved = (await api.post('/roll', { dice: [{ type: 'd6', theme: 'standard', value: 5 }], operator: { '/': 2, round: 'down' } })).body.data as Roll;
  t.is(halved.total_value, 2);
  const badOp = await api.post('/roll', { dice: [{ type: 'd6', theme: 'standard' }], operator: { zz: 'h1' } });
  t.is(badOp.status, 400);
  t.is(badOp.body.data.code, 'invalid_operator');
});

test('a custom die of a theme made with POST /theme rolls its own faces; the theme must have that die', async (t) => {
  const creator = await ctx.server.newUser();
  const m = manifest({
    name: 'Fudge',
    available_dice: [{ id: 'df', type: 'd6', notation: 'dF' }, 'd8'],
    values: { df: [-1, -1, 0, 0, 1, 1], d8: ['one', 2, 3, 4, 5, 6, 7, 8] },
  });
  const made = await postTheme(creator.api, m);
  t.is(made.status, 201, made.text);
  const id = m.id as string;

  const roll = (await creator.api.post('/roll', { dice: Array.from({ length: 20 }, () => ({ type: 'dF', theme: id })) })).body.data as Roll;
  t.is(roll.values.length, 20);
  for (const v of roll.values) {
    t.is(v.type, 'df');
    t.is(v.theme, id);
    t.true(['-1', '0', '1'].includes(v.value_to_display as string), String(v.value_to_display));
  }
  t.is(
    roll.total_value,
    roll.values.reduce((s, v) => s + Number(v.value_to_display), 0),
  );
  t.is(roll.equation, '20{df}');

  const word = (
    await creator.api.post('/roll', {
      dice: [
        { type: 'd8', theme: id, value: 1 },
        { type: 'd6', theme: 'standard', value: 2 },
      ],
    })
  ).body.data as Roll;
  t.is(word.values[0]!.value_to_display, 'one');
  t.is(word.total_value, 2, 'a face that is not a number counts nothing');

  const missing = await creator.api.post('/roll', {
    dice: [
      { type: 'd6', theme: 'standard' },
      { type: 'd20', theme: id },
    ],
  });
  t.is(missing.status, 422);
  t.is(missing.body.data.code, 'unknown_die');
  t.is(missing.body.data.details[0].path, 'dice[1].type');
  t.true(missing.body.data.message.includes(id) && missing.body.data.message.includes('d20'), missing.body.data.message);

  const stranger = await ctx.server.newUser();
  const notMine = await stranger.api.post('/roll', { dice: [{ type: 'df', theme: id }] });
  t.is(notMine.status, 422, 'a theme outside the dice box cannot be rolled');
  t.is(notMine.body.data.code, 'unknown_theme');
  t.is(notMine.body.data.details[0].path, 'dice[0].theme');
  t.true(notMine.body.data.message.includes(id));
});

test('unknown themes and dice are 422s naming them', async (t) => {
  const { api } = await ctx.server.newUser();
  const theme = await api.post('/roll', {
    dice: [
      { type: 'd6', theme: 'standard' },
      { type: 'd6', theme: 'no-such-theme' },
      { type: 'd6', theme: 'other-missing' },
    ],
  });
  t.is(theme.status, 422);
  t.is(theme.body.data.code, 'unknown_theme');
  t.deepEqual(
    theme.body.data.details.map((d: { path: string }) => d.path),
    ['dice[1].theme', 'dice[2].theme'],
  );
  const die = await api.post('/roll', { dice: [{ type: 'd1001', theme: 'standard' }] }); // any d2..d1000 is a generic die
  t.is(die.status, 422);
  t.is(die.body.data.code, 'unknown_die');
  t.regex(die.body.data.message, /standard.*d1001/);
  const eq = await api.post('/roll', { equation: '1d6', theme: 'nope' });
  t.is(eq.status, 422);
  t.is(eq.body.data.details[0].path, 'theme');
});

test('bad bodies are 400s listing every bad field; unknown fields are ignored', async (t) => {
  const { api } = await ctx.server.newUser();
  const many = await api.post('/roll', {
    dice: [
      { type: 5, theme: 'standard' },
      { theme: 'standard', is_hidden: 'yes' },
    ],
    label: 7,
    whisper: ['x'],
    direction: 400,
  });
  t.is(many.status, 400);
  t.is(many.body.data.code, 'validation_error');
  const paths = many.body.data.details.map((d: { path: string }) => d.path);
  for (const p of ['dice[0].type', 'dice[1].type', 'dice[1].is_hidden', 'label', 'whisper[0]', 'direction']) t.true(paths.includes(p), `${p} in ${paths}`);

  for (const body of [
    {},
    { dice: [] },
    { dice: Array.from({ length: 101 }, () => ({ type: 'd6', theme: 'standard' })) },
    { dice: [{ type: 'd6' }], equation: '1d6' },
    { equation: '1d6', operator: { k: 'h1' } },
    { dice: 'd6' },
  ]) {
    const res = await api.post('/roll', body);
    t.is(res.status, 400, JSON.stringify(body).slice(0, 80));
    t.is(res.body.type, 'error');
  }
  const meta = await api.post('/roll', { dice: [{ type: 'd6', theme: 'standard', meta: { blob: 'x'.repeat(3000) } }] });
  t.is(meta.status, 400);
  t.is(meta.body.data.details[0].path, 'dice[0].meta');

  const extra = await api.post('/roll', { dice: [{ type: 'd6', theme: 'standard', colour: 'red', meta: { a: 1 } }], client: 'vtt', room: '' });
  t.is(extra.status, 201);
  t.deepEqual((extra.body.data.values[0] as { meta: unknown }).meta, { a: 1 }, 'meta is kept');
  const noTheme = await api.post('/roll', { dice: [{ type: 'd6' }] });
  t.is(noTheme.status, 201, 'a die without a theme uses the built-in theme');
  const notJson = await api.post('/roll', undefined, { raw: 'dice=1', headers: { 'content-type': 'text/plain' } });
  t.is(notJson.status, 415);
});

test('direction and velocity, when given, are kept', async (t) => {
  const { api } = await ctx.server.newUser();
  const roll = (await api.post('/roll', { dice: [{ type: 'd6', theme: 'standard' }], direction: 90, velocity: 2.5 })).body.data as Roll;
  t.is(roll.direction, 90);
  t.is(roll.velocity, 2.5);
});

test('rolling into a room: participants only (403), unknown rooms 404, whispers need that room', async (t) => {
  const { roller, outsider, slug, participantId, whisperee } = await table(ctx.server);
  const d6 = [{ type: 'd6', theme: 'standard' }];
  const notIn = await outsider.api.post('/roll', { dice: d6, room: slug });
  t.is(notIn.status, 403);
  t.is(notIn.body.data.code, 'forbidden');
  const nowhere = await roller.api.post('/roll', { dice: d6, room: 'no-such-room-here' });
  t.is(nowhere.status, 404);
  const noRoom = await roller.api.post('/roll', { dice: d6, whisper: [participantId(whisperee)] });
  t.is(noRoom.status, 400);
  t.is(noRoom.body.data.details[0].path, 'whisper');
  const stranger = await roller.api.post('/roll', { dice: d6, room: slug, whisper: [participantId(whisperee), 999_999] });
  t.is(stranger.status, 422);
  t.is(stranger.body.data.code, 'unknown_participant');
  t.is(stranger.body.data.details[0].path, 'whisper[1]');
  t.true(stranger.body.data.message.includes('999999'));
});

test('external_id is a label: every roll with it is rolled (201, a roll of its own), per user, also when requests race', async (t) => {
  const { api } = await ctx.server.newUser();
  const first = await api.post('/roll', { dice: [{ type: 'd20', theme: 'standard' }], external_id: 'vtt-42' });
  t.is(first.status, 201);
  t.is(first.body.data.external_id, 'vtt-42');
  const second = await api.post('/roll', {
    dice: [
      { type: 'd4', theme: 'standard' },
      { type: 'd4', theme: 'standard' },
    ],
    external_id: 'vtt-42',
  });
  t.is(second.status, 201);
  t.not(second.body.data.uuid, first.body.data.uuid, 'rolled, not answered with the first roll');
  t.is(second.body.data.equation, '2d4');
  t.is(second.body.data.external_id, 'vtt-42');

  const other = await ctx.server.newUser();
  const theirs = await other.api.post('/roll', { dice: [{ type: 'd20', theme: 'standard' }], external_id: 'vtt-42' });
  t.is(theirs.status, 201);
  t.not(theirs.body.data.uuid, first.body.data.uuid);

  const racers = await Promise.all(Array.from({ length: 8 }, () => api.post('/roll', { dice: [{ type: 'd20', theme: 'standard' }], external_id: 'race-1' })));
  t.true(
    racers.every((r) => r.status === 201),
    racers.map((r) => r.status).join(','),
  );
  t.is(new Set(racers.map((r) => r.body.data.uuid)).size, 8, 'eight rolls');
});

test('roll.created is published after commit, with the roll and its room', async (t) => {
  const { roller, slug } = await table(ctx.server);
  const seen: Promise<number>[] = [];
  const mark = events.for(slug).length;
  const { subscribe } = await import('../../src/events/bus');
  const off = subscribe((e) => {
    if (e.type === 'roll.created' && e.slug === slug) seen.push(db().models.Roll.count({ where: { id: e.rollId } }));
  });
  const roll = await rollOk(roller, { dice: [{ type: 'd6', theme: 'standard' }], room: slug });
  off();
  const published = events.since(slug, mark);
  t.is(published.length, 1);
  const e = published[0]!;
  t.is(e.type, 'roll.created');
  if (e.type !== 'roll.created') return;
  t.is(typeof e.rollId, 'number');
  t.is(typeof e.roomId, 'number');
  t.deepEqual(await Promise.all(seen), [1], 'the row was committed when the event went out');
  const stored = await db().models.Roll.findByPk(e.rollId);
  t.is(stored!.uuid, roll.uuid);

  const refused = events.for(slug).length;
  t.is((await roller.api.post('/roll', { dice: [{ type: 'd1001', theme: 'standard' }], room: slug })).status, 422);
  t.is(events.for(slug).length, refused, 'a refused roll announces nothing');
});

test('GET /roll/{uuid}: the roller and the room see it; anyone else gets 404, as for no roll at all', async (t) => {
  const { roller, whisperee, bystander, outsider, slug } = await table(ctx.server);
  const inRoom = await rollOk(roller, { dice: [{ type: 'd6', theme: 'standard' }], room: slug });
  for (const u of [roller, whisperee, bystander]) t.is((await u.api.get(`/roll/${inRoom.uuid}`)).status, 200);
  const hidden = await outsider.api.get(`/roll/${inRoom.uuid}`);
  t.is(hidden.status, 404);
  t.is(hidden.body.data.code, 'not_found');

  const solo = await rollOk(roller, { dice: [{ type: 'd6', theme: 'standard' }] });
  t.is((await roller.api.get(`/roll/${solo.uuid}`)).status, 200);
  t.is((await bystander.api.get(`/roll/${solo.uuid}`)).status, 404, "a roll outside any room is its roller's");
  const none = await roller.api.get('/roll/6f1c1f0e-1111-4222-8333-444455556666');
  t.is(none.status, 404);
  t.is(none.body.data.message, hidden.body.data.message.replace(inRoom.uuid, '6f1c1f0e-1111-4222-8333-444455556666'), 'the same answer as for a private roll');
  t.is((await roller.api.get('/roll/not-a-uuid')).status, 404);
  t.is((await roller.api.get(`/roll/${inRoom.uuid.toUpperCase()}`)).status, 200, 'uuids are case-insensitive');
});

test('values come back in roll order with the label of each die', async (t) => {
  const { api } = await ctx.server.newUser();
  const roll = (
    await api.post('/roll', {
      dice: [
        { type: 'd4', theme: 'standard', label: 'fire' },
        { type: 'd8', theme: 'standard', label: 'cold' },
        { type: 'd12', theme: 'standard' },
      ],
    })
  ).body.data as Roll;
  t.deepEqual(
    roll.values.map((v: Value) => [v.type, v.label]),
    [
      ['d4', 'fire'],
      ['d8', 'cold'],
      ['d12', null],
    ],
  );
  const again = (await api.get(`/roll/${roll.uuid}`)).body.data as Roll;
  t.deepEqual(
    again.values.map((v) => v.uuid),
    roll.values.map((v) => v.uuid),
  );
});

test('odd but well-formed JSON never makes a 500', async (t) => {
  const { api } = await ctx.server.newUser();
  const { slug } = await table(ctx.server);
  const d6 = { type: 'd6', theme: 'standard' };
  const bodies: unknown[] = [
    { dice: [{ ...d6, value: 1e308 }] },
    { dice: [{ ...d6, value: -0 }] },
    { dice: [{ ...d6, value: 2.5 }] },
    { dice: [{ type: 'mod', value: 1e12 }] },
    { dice: [{ type: 'mod', value_to_display: 'abc' }] },
    { dice: [{ type: 'mod' }] },
    { dice: [{ ...d6, value_to_display: { src: 'x.png' } }] },
    { dice: [{ type: 'constructor', theme: 'standard' }] },
    { dice: [{ type: '__proto__', theme: '__proto__' }] },
    { dice: [{ type: 'toString', theme: 'standard' }] },
    { dice: [{ type: ' ', theme: 'standard' }] },
    { dice: [{ ...d6, meta: { deep: [[[[[[[[[[{}]]]]]]]]]] } }] },
    { dice: [d6], operator: { k: { h1: [5] } } },
    { dice: [d6], operator: { k: { h1: [0.5, -1] } } },
    { dice: [d6, d6], operator: { e: '1', rr: '<7' } },
    { dice: [d6], operator: { '*': 'x', '/': 0 } },
    { dice: [d6], operator: { round: 'sideways' } },
    { dice: [d6], operator: { constructor: 'h1' } },
    { equation: ')))(((' },
    { equation: '999999999d6' },
    { equation: '1d6'.repeat(300) },
    { equation: '1d6', theme: '' },
    { dice: [d6], room: slug, whisper: [0] },
    { dice: [d6], room: 'x'.repeat(999) },
    { dice: [d6], room: '../../etc' },
    { dice: [d6], external_id: 'é€😀' },
    { dice: [d6], label: '<script>alert(1)</script>' },
    { dice: [{ ...d6, theme: 'x'.repeat(100) }] },
  ];
  for (const body of bodies) {
    const res = await api.post('/roll', body);
    t.true(res.status < 500, `${res.status} for ${JSON.stringify(body).slice(0, 100)}: ${res.text.slice(0, 200)}`);
    t.not(res.body, null);
  }
  for (const path of ['/roll/%E0%A4%A', '/roll/..%2F..', `/room/${slug}/roll?before=%00`, '/room/%FF/roll']) {
    const res = await api.get(path);
    t.true(res.status < 500, `${res.status} for ${path}`);
  }
  for (const [path, body] of [
    ['/roll/%E0%A4%A', { dice: [] }],
    ['/roll', { rolls: [{ uuid: '6f1c1f0e-1111-4222-8333-444455556666', dice: [{ uuid: '6f1c1f0e-1111-4222-8333-444455556666' }] }] }],
    [`/room/${slug}/roll`, { dice: { is_hidden: 'no' } }],
  ] as const) {
    const res = await api.patch(path, body);
    t.true(res.status < 500, `${res.status} for PATCH ${path}`);
  }
});
