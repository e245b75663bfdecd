import test from 'ava';
import { useServer } from '../helpers/server';
import { db } from '../../src/db';
import { loadRollByUuid } from '../../src/rolls/store/load';
import { manifest, postTheme } from '../fixtures/themes';
import { rollOk } from './rolls.support';

/**
 * The rolls store (src/rolls/store/) writes and reads rolls with plain SQL (src/db/sql.ts), while the
 * Sequelize models of the same tables are still declared (src/db/models/Roll.ts, RollValue.ts, RollWhisper.ts): both must read each
 * other's rows alike, on both databases (dates, JSON values that are strings, numbers or objects,
 * booleans, nulls). And both PATCH paths set die flags the one way (setDieFlags).
 */

const ctx = useServer(test);

test('a roll written with plain SQL reads back alike through the models, and through REST', async (t) => {
  const me = await ctx.server.newUser();
  const { api } = me;
  const m = manifest({ available_dice: ['d8'], values: { d8: ['one', 2, 3, 4, 5, 6, 7, 8] } });
  t.is((await postTheme(api, m)).status, 201);
  const roll = await rollOk(me, {
    dice: [
      { type: 'd6', theme: 'standard', value: 3, is_hidden: true, label: 'secret', meta: { note: 'ünïcode', n: [1, 2] } },
      { type: 'mod', value: -1.5 },
      { type: 'd8', theme: m.id, value: 1 },
    ],
    operator: { '*': 2 },
    label: 'Records',
    external_id: 'records-1',
  });

  const model = await db().models.Roll.findOne({ where: { uuid: roll.uuid } });
  t.truthy(model);
  t.is(model!.createdAt.toISOString(), roll.created_at.replace('000Z', 'Z'), 'the models read the stored date');
  t.deepEqual(model!.operator, { '*': 2 });
  t.is(model!.externalId, 'records-1');
  t.false(Boolean(model!.isWhispered));
  const values = await db().models.RollValue.findAll({ where: { rollId: model!.id }, order: [['position', 'ASC']] });
  t.deepEqual(
    values.map((v) => v.meta),
    [{ note: 'ünïcode', n: [1, 2] }, null, null],
  );
  t.deepEqual(
    values.map((v) => Boolean(v.isHidden)),
    [true, false, false],
  );
  t.is(values[1]!.numericValue, -1.5);
  t.is(values[2]!.valueToDisplay, 'one', 'a JSON string stays a string');
  t.is(values[0]!.valueToDisplay, 3, 'a JSON number stays a number');

  // Read back by the plain loader: the same record the command built.
  const loaded = await loadRollByUuid(roll.uuid);
  t.truthy(loaded);
  t.is(loaded!.createdAt.getTime(), model!.createdAt.getTime());
  t.deepEqual(
    loaded!.values!.map((v) => v.valueToDisplay),
    values.map((v) => v.valueToDisplay),
  );
  t.deepEqual(
    loaded!.values!.map((v) => v.meta),
    values.map((v) => v.meta),
  );
  t.deepEqual(loaded!.operator, model!.operator);

  // And REST answers what POST answered (the command's records and the loader's agree).
  const again = await api.get(`/roll/${roll.uuid}`);
  t.deepEqual(again.body.data, roll);
});

test("a die flag set with PATCH /room/{slug}/roll (the store's setDieFlags) reads back through the loader", async (t) => {
  const me = await ctx.server.newUser();
  const { api } = me;
  const slug = (await api.post('/room', { name: 'records' })).body.data.slug as string;
  const roll = await rollOk(me, { dice: [{ type: 'd6', theme: 'standard' }], room: slug });
  const changed = await api.patch(`/room/${slug}/roll`, { dice: { is_hidden: true } });
  t.is(changed.status, 200);
  const loaded = await loadRollByUuid(roll.uuid);
  t.true(loaded!.values![0]!.isHidden);
  t.true(loaded!.updatedAt.getTime() >= loaded!.createdAt.getTime());
  t.is((await api.get(`/roll/${roll.uuid}`)).body.data.values[0].is_hidden, true);
});

test("a roll of 100 dice reads back whole and in order (the roll is read on each of its values' rows)", async (t) => {
  const me = await ctx.server.newUser();
  const dice = Array.from({ length: 100 }, (_, i) => ({ type: i % 2 ? 'd6' : 'd20', theme: 'standard', value: (i % 6) + 1 }));
  const roll = await rollOk(me, { dice });
  const loaded = await loadRollByUuid(roll.uuid);
  t.is(loaded!.values!.length, 100);
  t.deepEqual(
    loaded!.values!.map((v) => v.position),
    Array.from({ length: 100 }, (_, i) => i),
  );
  t.deepEqual((await me.api.get(`/roll/${roll.uuid}`)).body.data, roll);
});

test('PATCH /roll and PATCH /room/{slug}/roll write die flags alike: only the dice that change, and their rolls, are stamped', async (t) => {
  const me = await ctx.server.newUser();
  const { api } = me;
  const slug = (await api.post('/room', { name: 'flags' })).body.data.slug as string;
  const roll = await rollOk(me, {
    dice: [
      { type: 'd6', theme: 'standard' },
      { type: 'd6', theme: 'standard' },
    ],
    room: slug,
  });
  const other = await rollOk(me, { dice: [{ type: 'd4', theme: 'standard' }], room: slug });
  const [first, second] = roll.values;
  const pause = () => new Promise((resolve) => setTimeout(resolve, 5)); // the stamps below differ by more than a millisecond

  await pause();
  const byDie = await api.patch(`/roll/${roll.uuid}`, { dice: [{ uuid: first!.uuid, is_hidden: true }] });
  t.is(byDie.status, 200, byDie.text);
  const [hidden, untouched] = byDie.body.data.values;
  t.not(hidden.updated_at, first!.updated_at, 'PATCH /roll stamps the die it changes');
  t.is(untouched.updated_at, second!.updated_at, 'and no other');
  t.not(byDie.body.data.updated_at, roll.updated_at, 'and its roll');

  await pause();
  const same = await api.patch(`/roll/${roll.uuid}`, { dice: [{ uuid: first!.uuid, is_hidden: true }] });
  t.is(same.body.data.updated_at, byDie.body.data.updated_at, 'a flag already so changes nothing');
  t.is(same.body.data.values[0].updated_at, hidden.updated_at);

  await pause();
  const byRoom = await api.patch(`/room/${slug}/roll`, { dice: { is_hidden: true } });
  t.is(byRoom.status, 200, byRoom.text);
  const again = byRoom.body.data.find((r: { uuid: string }) => r.uuid === roll.uuid);
  t.is(again.values[0].updated_at, hidden.updated_at, 'PATCH /room/{slug}/roll leaves a die already hidden alone');
  t.not(again.values[1].updated_at, untouched.updated_at, 'and stamps the one it hides');
  t.not(again.updated_at, byDie.body.data.updated_at, 'and its roll');
  t.true(byRoom.body.data.some((r: { uuid: string }) => r.uuid === other.uuid));
  t.deepEqual((await api.patch(`/room/${slug}/roll`, { dice: { is_hidden: true } })).body.data, [], 'nothing left to change');
});
