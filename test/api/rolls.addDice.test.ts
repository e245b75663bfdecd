import test from 'ava';
import { closeAll, connectWelcomed, type Client } from '../helpers/sockets';
import { sdkRestClient } from '../helpers/sdkRest';
import { useServer } from '../helpers/server';
import { manifest, postTheme } from '../fixtures/themes';
import { rollOk, table, type Roll } from './rolls.support';

/**
 * PATCH /roll/{uuid} entries with a `type` and no `uuid` add dice to the roll: Pathbuilder 2e's dice tray
 * sends roll.update(lastRoll.uuid, {dice: [{type, theme}], room}) through the stock SDK. The dice are
 * thrown by the rules of POST /roll; the roll's total, equation and RollUpdateEvent follow
 * (docs/api/rolls.md, "Adding dice").
 */

const ctx = useServer(test);
const clients: Client[] = [];
test.after.always(() => closeAll(...clients));

const d = (type: string, extra: Record<string, unknown> = {}) => ({ type, theme: 'standard', ...extra });
const face = (v: { value_to_display: unknown }) => Number(v.value_to_display);

test("Pathbuilder 2e's dice tray through the stock SDK: roll.update adds a d6 to the last roll; its total, equation and RollUpdateEvent follow", async (t) => {
  const { roller, bystander, slug } = await table(ctx.server);
  const watcher = await connectWelcomed(ctx.server.url, slug, { token: bystander.key }, clients);
  const sdk = await sdkRestClient(ctx.server.url, roller.key, slug);
  const made = (await sdk.roll.create([d('d20', { value: 12 }), d('mod', { value: 7 })], { operator: {}, label: 'Strike: To Hit' })).data;
  t.is(made.total_value, 19);

  const answer = (await sdk.roll.update(made.uuid, { dice: [{ type: 'd6', theme: 'standard' }], room: slug })).data as unknown as Roll;
  t.is(answer.uuid, made.uuid);
  t.deepEqual(
    answer.values.map((v) => v.type),
    ['d20', 'mod', 'd6'],
  );
  t.deepEqual(answer.values.slice(0, 2), made.values as unknown as Roll['values'], 'the dice already thrown are unchanged');
  const d6 = answer.values[2]!;
  t.true(d6.value! >= 1 && d6.value! <= 6);
  t.false(d6.is_user_value);
  t.is(answer.total_value, 19 + face(d6));
  t.is(answer.equation, '1d20+1d6+7');
  t.not(answer.updated_at, made.updated_at);

  const heard = await watcher.waitFor('RollUpdateEvent', (p) => p.data.uuid === made.uuid && p.data.values.length === 3);
  const seen = (await bystander.api.get(`/roll/${made.uuid}`)).body.data as Roll;
  t.deepEqual(heard.data, seen, 'the event is the roll as GET /roll shows it to them');
  t.is(seen.total_value, answer.total_value);

  // The dice tray's d100 is a d10x and a d10 (dddice's numbering: the d10x's value is its tens digit,
  // so 5 and 7 make 57); a modifier too.
  const more = (
    await sdk.roll.update(made.uuid, {
      dice: [
        { type: 'd10x', theme: 'standard', value: 5 },
        { type: 'd10', theme: 'standard', value: 7 },
        { type: 'mod', theme: 'standard', value: -2 },
      ],
      room: slug,
    })
  ).data as unknown as Roll;
  t.deepEqual(
    more.values.map((v) => v.type),
    ['d20', 'mod', 'd6', 'd10x', 'd10', 'mod'],
  );
  t.is(more.total_value, 19 + face(d6) + 57 - 2);
  t.is(more.equation, '1d20+1d6+1d100+7-2');
  t.true(more.values.slice(3, 5).every((v) => v.is_user_value));
});

test('added dice follow the rules of POST /roll: themes, predetermined values, hidden dice, limits; a refusal changes nothing', async (t) => {
  const { roller, bystander, outsider, slug } = await table(ctx.server);
  const m = manifest({ available_dice: ['d8'], values: { d8: ['one', 2, 3, 4, 5, 6, 7, 8] } });
  t.is((await postTheme(roller.api, m)).status, 201);
  const roll = await rollOk(roller, { dice: [d('d20', { value: 10 })], room: slug });
  const patch = (user: typeof roller, body: unknown) => user.api.patch(`/roll/${roll.uuid}`, body);
  const unchanged = async () => {
    const now = (await roller.api.get(`/roll/${roll.uuid}`)).body.data as Roll;
    t.is(now.values.length, 1);
    t.is(now.total_value, 10);
  };

  const theme = await patch(roller, {
    dice: [
      { uuid: roll.values[0]!.uuid, is_visible: false },
      { type: 'd6', theme: 'nobody-has-this' },
    ],
  });
  t.is(theme.status, 422);
  t.is(theme.body.data.code, 'unknown_theme');
  t.is(theme.body.data.details[0].path, 'dice[1].theme');
  const die = await patch(roller, { dice: [{ type: 'd6' }, { type: 'd12', theme: m.id }] });
  t.is(die.status, 422);
  t.is(die.body.data.code, 'unknown_die');
  t.is(die.body.data.details[0].path, 'dice[1].type');
  const preset = await patch(roller, { dice: [{ type: 'd6', value: 7 }] });
  t.is(preset.status, 400);
  t.is(preset.body.data.code, 'invalid_dice');
  t.is(preset.body.data.details[0].path, 'dice[0].value');
  const malformed = await patch(roller, { dice: [{ type: 'd6', value: 'six' }, {}] });
  t.is(malformed.status, 400);
  t.deepEqual(
    malformed.body.data.details.map((x: { path: string }) => x.path),
    ['dice[0].value', 'dice[1].type'],
  );
  const tooMany = await patch(roller, { dice: Array.from({ length: 100 }, () => ({ type: 'd6' })) });
  t.is(tooMany.status, 400);
  t.is(tooMany.body.data.code, 'too_many_dice', '100 dice in the whole roll');
  const heavy = await patch(roller, { dice: Array.from({ length: 9 }, () => ({ type: 'd6', meta: { note: 'x'.repeat(2000) } })) });
  t.is(heavy.status, 400);
  t.is(heavy.body.data.code, 'validation_error');
  const theirs = await patch(bystander, { dice: [{ type: 'd6' }] });
  t.is(theirs.status, 403, 'only the roller');
  const unseen = await patch(outsider, { dice: [{ type: 'd6' }] });
  t.is(unseen.status, 404);
  await unchanged();

  // A die of the roller's own theme with a predetermined face, a hidden one, a modifier with a label.
  const added = await patch(roller, {
    dice: [
      { type: 'd8', theme: m.id, value: 1 },
      { type: 'd6', value: 4, is_hidden: true },
      { type: 'mod', value: 3, label: 'bonus' },
    ],
  });
  t.is(added.status, 200, added.text);
  const mine = added.body.data as Roll;
  t.deepEqual(
    mine.values.map((v) => [v.type, v.value, v.is_user_value]),
    [
      ['d20', 10, true],
      ['d8', 1, true],
      ['d6', 4, true],
      ['mod', 3, false],
    ],
  );
  t.is(mine.values[1]!.value_to_display, 'one');
  t.is(mine.values[3]!.label, 'bonus');
  t.is(mine.total_value, 10 + 4 + 3, 'a word face counts nothing');
  const theirView = (await bystander.api.get(`/roll/${roll.uuid}`)).body.data as Roll;
  t.is(theirView.values[2]!.value, null, 'a hidden added die is hidden from others');
  t.is(theirView.total_value, 13, 'and left out of their total');
});

test('a roll scaled by * / round takes dice into its sum; one whose operator chose its dice takes none (422)', async (t) => {
  const { api } = await ctx.server.newUser();
  const scaled = (await api.post('/roll', { dice: [d('d6', { value: 3 }), d('mod', { value: 1 })], operator: { '*': 2 } })).body.data as Roll;
  t.is(scaled.total_value, 8);
  const res = await api.patch(`/roll/${scaled.uuid}`, { dice: [d('d6', { value: 5 })] });
  t.is(res.status, 200, res.text);
  t.is(res.body.data.total_value, (3 + 5 + 1) * 2);
  t.is(res.body.data.equation, '(2d6+1)*2');

  const kept = (await api.post('/roll', { dice: [d('d20'), d('d20')], operator: { k: 'h1' } })).body.data as Roll;
  const refused = await api.patch(`/roll/${kept.uuid}`, { dice: [d('d6')] });
  t.is(refused.status, 422);
  t.is(refused.body.data.code, 'dice_not_addable');
  t.is((await api.get(`/roll/${kept.uuid}`)).body.data.values.length, 2);

  // A d10 right after a lone d10x makes them a d100, as the same dice in one POST /roll would.
  const tens = (await api.post('/roll', { dice: [d('d10x', { value: 3 })] })).body.data as Roll;
  const paired = await api.patch(`/roll/${tens.uuid}`, { dice: [d('d10', { value: 7 })] });
  t.is(paired.status, 200);
  t.is(paired.body.data.equation, '1d100');
  t.is(paired.body.data.total_value, tens.total_value + 7);
  t.deepEqual(paired.body.data.values[0], tens.values[0]);
});

test('dice added to one roll by concurrent requests are all kept, each once, and the total counts them all', async (t) => {
  const { api } = await ctx.server.newUser();
  const roll = (await api.post('/roll', { dice: [d('d4', { value: 1 })] })).body.data as Roll;
  const answers = await Promise.all([2, 3, 4, 5, 6].map((v) => api.patch(`/roll/${roll.uuid}`, { dice: [d('d6', { value: v })] })));
  t.true(
    answers.every((a) => a.status === 200),
    answers.map((a) => a.status).join(','),
  );
  const final = (await api.get(`/roll/${roll.uuid}`)).body.data as Roll;
  t.is(final.values.length, 6);
  t.deepEqual(
    final.values
      .slice(1)
      .map((v) => v.value)
      .sort(),
    [2, 3, 4, 5, 6],
  );
  t.is(final.total_value, 1 + 2 + 3 + 4 + 5 + 6);
  t.is(final.equation, '1d4+5d6');
});
