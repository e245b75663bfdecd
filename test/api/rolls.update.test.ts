import test from 'ava';
import { useServer } from '../helpers/server';
import { recordEvents } from '../fixtures/events';
import { rollOk, table, type Roll } from './rolls.support';

const ctx = useServer(test);
const events = recordEvents();

const d = (type: string, extra: Record<string, unknown> = {}) => ({ type, theme: 'standard', ...extra });

test('PATCH /roll/{uuid}: the roller hides and unhides a die, and the room sees the change', async (t) => {
  const { roller, bystander, slug } = await table(ctx.server);
  const roll = await rollOk(roller, { dice: [d('d20', { value: 12 }), d('d6', { value: 2 })], room: slug });
  const [die] = roll.values;
  const mark = events.for(slug).length;

  const hidden = await roller.api.patch(`/roll/${roll.uuid}`, { dice: [{ uuid: die!.uuid, is_hidden: true }], room: slug });
  t.is(hidden.status, 200, hidden.text);
  t.is(hidden.body.type, 'roll');
  t.true(hidden.body.data.values[0].is_hidden);
  t.is(hidden.body.data.values[0].value, 12, 'the roller still sees it');
  t.true(hidden.body.data.values[0].updated_at >= roll.values[0]!.updated_at);
  t.true(hidden.body.data.updated_at >= roll.updated_at);
  const seen = (await bystander.api.get(`/roll/${roll.uuid}`)).body.data as Roll;
  t.is(seen.values[0]!.value, null);
  t.is(seen.total_value, 2);

  const shown = await roller.api.patch(`/roll/${roll.uuid}`, { dice: [{ uuid: die!.uuid, is_hidden: false }] });
  t.false(shown.body.data.values[0].is_hidden);
  t.is(((await bystander.api.get(`/roll/${roll.uuid}`)).body.data as Roll).values[0]!.value, 12, 'unhidden: everyone sees it');

  const updates = events.since(slug, mark);
  t.deepEqual(
    updates.map((e) => e.type),
    ['roll.updated', 'roll.updated'],
  );
  const e = updates[0]!;
  if (e.type === 'roll.updated') t.is(e.rollIds.length, 1);

  const quiet = events.for(slug).length;
  const same = await roller.api.patch(`/roll/${roll.uuid}`, { dice: [{ uuid: die!.uuid, is_hidden: false }] });
  t.is(same.status, 200);
  t.is(events.for(slug).length, quiet, 'a change that changes nothing announces nothing');
});

test('PATCH /roll/{uuid}: is_visible and is_cleared take a die off the board', async (t) => {
  const { roller, slug } = await table(ctx.server);
  const roll = await rollOk(roller, { dice: [d('d6'), d('d6')], room: slug });
  const res = await roller.api.patch(`/roll/${roll.uuid}`, {
    dice: [
      { uuid: roll.values[0]!.uuid, is_visible: false },
      { uuid: roll.values[1]!.uuid, is_cleared: true, is_hidden: true },
    ],
  });
  t.is(res.status, 200);
  const [a, b] = res.body.data.values;
  t.deepEqual([a.is_visible, a.is_cleared, a.is_hidden], [false, false, false]);
  t.deepEqual([b.is_visible, b.is_cleared, b.is_hidden], [true, true, true]);
  const again = (await roller.api.get(`/roll/${roll.uuid}`)).body.data as Roll;
  t.deepEqual(
    again.values.map((v) => [v.is_visible, v.is_cleared, v.is_hidden]),
    [
      [false, false, false],
      [true, true, true],
    ],
    'stored',
  );
});

test('PATCH /roll/{uuid}: others may not change a roll: 403 to those who see it, 404 to those who do not', async (t) => {
  const { roller, whisperee, bystander, outsider, slug, participantId } = await table(ctx.server);
  const open = await rollOk(roller, { dice: [d('d6')], room: slug });
  const whisper = await rollOk(roller, { dice: [d('d6')], room: slug, whisper: [participantId(whisperee)] });
  const change = (r: Roll) => ({ dice: [{ uuid: r.values[0]!.uuid, is_hidden: true }] });

  const bystanderTry = await bystander.api.patch(`/roll/${open.uuid}`, change(open));
  t.is(bystanderTry.status, 403);
  t.is(bystanderTry.body.data.code, 'forbidden');
  t.is((await whisperee.api.patch(`/roll/${whisper.uuid}`, change(whisper))).status, 403);
  t.is((await bystander.api.patch(`/roll/${whisper.uuid}`, change(whisper))).status, 404);
  t.is((await outsider.api.patch(`/roll/${open.uuid}`, change(open))).status, 404);
  t.is((await roller.api.patch('/roll/6f1c1f0e-1111-4222-8333-444455556666', change(open))).status, 404);
  t.false(((await roller.api.get(`/roll/${open.uuid}`)).body.data as Roll).values[0]!.is_hidden, 'nothing changed');
});

test('PATCH /roll/{uuid}: a die uuid not in that roll is a 400 naming it; malformed bodies list their fields', async (t) => {
  const { roller, slug } = await table(ctx.server);
  const roll = await rollOk(roller, { dice: [d('d6'), d('d8')], room: slug });
  const other = await rollOk(roller, { dice: [d('d4')], room: slug });
  const stranger = '6f1c1f0e-1111-4222-8333-444455556666';

  const res = await roller.api.patch(`/roll/${roll.uuid}`, {
    dice: [
      { uuid: roll.values[0]!.uuid, is_hidden: true },
      { uuid: stranger, is_hidden: true },
      { uuid: other.values[0]!.uuid, is_hidden: true },
    ],
  });
  t.is(res.status, 400);
  t.is(res.body.data.code, 'unknown_roll_value');
  t.true(res.body.data.message.includes(stranger));
  t.deepEqual(
    res.body.data.details.map((x: { path: string }) => x.path),
    ['dice[1].uuid', 'dice[2].uuid'],
  );
  t.true(res.body.data.details[1].message.includes(other.values[0]!.uuid), 'a die of another roll is not a die of this one');
  t.false(((await roller.api.get(`/roll/${roll.uuid}`)).body.data as Roll).values[0]!.is_hidden, 'all or nothing');

  const bad = await roller.api.patch(`/roll/${roll.uuid}`, { dice: [{ uuid: 'nope', is_hidden: 'yes' }] });
  t.is(bad.status, 400);
  t.deepEqual(bad.body.data.details.map((x: { path: string }) => x.path).sort(), ['dice[0].is_hidden', 'dice[0].uuid']);
  t.is((await roller.api.patch(`/roll/${roll.uuid}`, {})).status, 400);
  t.is((await roller.api.patch(`/roll/${roll.uuid}`, { dice: [] })).status, 400);
});

test('PATCH /roll: bulk, all or nothing, items carrying the extra room field real clients send', async (t) => {
  const { roller, bystander, slug } = await table(ctx.server);
  const a = await rollOk(roller, { dice: [d('d6'), d('d6')], room: slug });
  const b = await rollOk(roller, { dice: [d('d20')], room: slug });
  const theirs = await rollOk(bystander, { dice: [d('d4')], room: slug });
  const mark = events.for(slug).length;

  const ok = await roller.api.patch('/roll', {
    rolls: [
      { uuid: a.uuid, room: slug, dice: [{ uuid: a.values[1]!.uuid, is_hidden: true }] },
      { uuid: b.uuid, room: slug, dice: [{ uuid: b.values[0]!.uuid, is_cleared: true }] },
    ],
  });
  t.is(ok.status, 200, ok.text);
  t.is(ok.body.type, 'roll[]');
  t.deepEqual(
    ok.body.data.map((r: Roll) => r.uuid),
    [a.uuid, b.uuid],
    'answers the rolls in request order',
  );
  t.true(ok.body.data[0].values[1].is_hidden);
  t.true(ok.body.data[1].values[0].is_cleared);
  const published = events.since(slug, mark);
  t.is(published.length, 1, 'one roll.updated for the room');
  if (published[0]!.type === 'roll.updated') t.deepEqual([...published[0]!.rollIds].sort(), [await idOf(a.uuid), await idOf(b.uuid)].sort());

  const bad = await roller.api.patch('/roll', {
    rolls: [
      { uuid: a.uuid, dice: [{ uuid: a.values[0]!.uuid, is_hidden: true }] },
      { uuid: b.uuid, dice: [{ uuid: a.values[0]!.uuid, is_hidden: true }] },
    ],
  });
  t.is(bad.status, 400);
  t.is(bad.body.data.details[0].path, 'rolls[1].dice[0].uuid');
  t.false(((await roller.api.get(`/roll/${a.uuid}`)).body.data as Roll).values[0]!.is_hidden, 'the valid first item was not applied either');

  const notMine = await roller.api.patch('/roll', {
    rolls: [
      { uuid: a.uuid, dice: [{ uuid: a.values[0]!.uuid, is_hidden: true }] },
      { uuid: theirs.uuid, dice: [{ uuid: theirs.values[0]!.uuid, is_hidden: true }] },
    ],
  });
  t.is(notMine.status, 403);
  t.false(((await roller.api.get(`/roll/${a.uuid}`)).body.data as Roll).values[0]!.is_hidden, 'nothing applied');

  t.is((await roller.api.patch('/roll', { rolls: [] })).status, 400);
  t.is((await roller.api.patch('/roll', { rolls: [{ uuid: a.uuid }] })).status, 400);
});

async function idOf(uuid: string): Promise<number> {
  const { Roll: RollModel } = (await import('../../src/db')).db().models;
  return (await RollModel.findOne({ where: { uuid } }))!.id;
}

test("PATCH /room/{slug}/roll: every die of the player's own rolls in that room; answers the rolls that changed", async (t) => {
  const { roller, bystander, outsider, slug } = await table(ctx.server);
  const elsewhere = await table(ctx.server);
  const mine = [await rollOk(roller, { dice: [d('d6'), d('d6')], room: slug }), await rollOk(roller, { dice: [d('d8')], room: slug })];
  const theirs = await rollOk(bystander, { dice: [d('d4')], room: slug });
  const otherRoom = await rollOk(elsewhere.roller, { dice: [d('d4')], room: elsewhere.slug });
  const solo = await rollOk(roller, { dice: [d('d4')] });
  const mark = events.for(slug).length;

  const res = await roller.api.patch(`/room/${slug}/roll`, { dice: { is_cleared: true } });
  t.is(res.status, 200, res.text);
  t.is(res.body.type, 'roll[]');
  t.deepEqual(res.body.data.map((r: Roll) => r.uuid).sort(), mine.map((r) => r.uuid).sort());
  t.true(res.body.data.every((r: Roll) => r.values.every((v) => v.is_cleared)));
  t.false(((await bystander.api.get(`/roll/${theirs.uuid}`)).body.data as Roll).values[0]!.is_cleared, "other players' rolls are untouched");
  t.false(((await roller.api.get(`/roll/${solo.uuid}`)).body.data as Roll).values[0]!.is_cleared, 'rolls outside the room are untouched');
  t.false(((await elsewhere.roller.api.get(`/roll/${otherRoom.uuid}`)).body.data as Roll).values[0]!.is_cleared);
  t.deepEqual(
    events.since(slug, mark).map((e) => e.type),
    ['roll.updated'],
  );

  const again = await roller.api.patch(`/room/${slug}/roll`, { dice: { is_cleared: true } });
  t.deepEqual(again.body.data, [], 'nothing left to change');
  const fresh = await rollOk(roller, { dice: [d('d6')], room: slug });
  const hide = await roller.api.patch(`/room/${slug}/roll`, { dice: { is_hidden: true, is_cleared: true } });
  t.deepEqual(hide.body.data.map((r: Roll) => r.uuid).sort(), [...mine.map((r) => r.uuid), fresh.uuid].sort(), 'a roll changes when any one flag differs');
  t.true(((await roller.api.get(`/roll/${fresh.uuid}`)).body.data as Roll).values.every((v) => v.is_hidden && v.is_cleared));

  t.is((await outsider.api.patch(`/room/${slug}/roll`, { dice: { is_cleared: true } })).status, 403);
  t.is((await roller.api.patch('/room/no-such-room-y/roll', { dice: { is_cleared: true } })).status, 404);
  const empty = await roller.api.patch(`/room/${slug}/roll`, { dice: {} });
  t.is(empty.status, 400);
  t.is(empty.body.data.details[0].path, 'dice');
  t.is((await roller.api.patch(`/room/${slug}/roll`, { dice: [{ is_cleared: true }] })).status, 400, 'dice is an object here');
});

test('DELETE /roll?room=: the owner clears the table; the rolls are gone and roll.deleted names them', async (t) => {
  const { roller: owner, bystander, slug } = await table(ctx.server);
  const rolls = [await rollOk(owner, { dice: [d('d6')], room: slug }), await rollOk(bystander, { dice: [d('d6')], room: slug })];
  const kept = await rollOk(owner, { dice: [d('d6')] });

  const refused = await bystander.api.delete(`/roll?room=${slug}`);
  t.is(refused.status, 403);
  t.is((await owner.api.delete('/roll?room=no-such-room-z')).status, 404);
  const missing = await owner.api.delete('/roll');
  t.is(missing.status, 400);
  t.is(missing.body.data.details[0].path, 'query.room');

  const mark = events.for(slug).length;
  const res = await owner.api.delete(`/roll?room=${slug}`);
  t.is(res.status, 204);
  t.is(res.text, '');
  for (const r of rolls) t.is((await owner.api.get(`/roll/${r.uuid}`)).status, 404);
  t.deepEqual((await owner.api.get(`/room/${slug}/roll`)).body.data, []);
  t.is((await owner.api.get(`/roll/${kept.uuid}`)).status, 200, 'rolls outside the room stay');
  const published = events.since(slug, mark);
  t.deepEqual(
    published.map((e) => e.type),
    ['roll.deleted'],
  );
  if (published[0]!.type === 'roll.deleted') {
    t.deepEqual(published[0]!.rolls.map((r) => r.uuid).sort(), rolls.map((r) => r.uuid).sort());
    t.true(
      published[0]!.rolls.every((r) => r.audience === null),
      'rolls for the whole room go to the whole room',
    );
  }

  const emptyAgain = await owner.api.delete(`/roll?room=${slug}`);
  t.is(emptyAgain.status, 204);
  t.is(events.since(slug, mark).length, 1, 'clearing an empty table announces nothing');
  t.is((await owner.api.post('/roll', { dice: [d('d6')], room: slug })).status, 201, 'the room goes on');
});

test("PATCH /roll/{uuid} keeps where a die was put down (meta.position, the dddice renderer's drag end): every view shows it", async (t) => {
  const { roller, bystander, slug } = await table(ctx.server);
  const roll = await rollOk(roller, { dice: [d('d20', { meta: { note: 'kept' } }), d('d6', { is_hidden: true })], room: slug });
  const [first, second] = roll.values;
  const mark = events.for(slug).length;
  const moved = await roller.api.patch(`/roll/${roll.uuid}`, {
    dice: [
      { uuid: first!.uuid, meta: { position: { x: 12.345, z: 40 }, other: 'ignored' } },
      { uuid: second!.uuid, meta: { position: { x: 99.999, z: -3.2 } } },
    ],
    room: slug,
  });
  t.is(moved.status, 200, moved.text);
  t.deepEqual(moved.body.data.values[0].meta, { note: 'kept', position: { x: 12.35, z: 40 } }, 'merged into the meta the roll gave the die, two decimals');
  t.deepEqual(moved.body.data.values[1].meta, { position: { x: 100, z: -3.2 } });
  const seen = (await bystander.api.get(`/roll/${roll.uuid}`)).body.data as Roll;
  t.deepEqual(
    seen.values.map((v: any) => v.meta?.position),
    [
      { x: 12.35, z: 40 },
      { x: 100, z: -3.2 },
    ],
    "a hidden die's place is not secret, its value is",
  );
  t.is(seen.values[1]!.value, null);
  const history = (await bystander.api.get(`/room/${slug}/roll`)).body.data as Roll[];
  t.deepEqual((history.find((r) => r.uuid === roll.uuid)!.values[0] as any).meta.position, { x: 12.35, z: 40 });
  t.deepEqual(
    events.since(slug, mark).map((e) => e.type),
    ['roll.updated'],
    'announced (test/realtime/pusher.test.ts sees it in the RollUpdateEvent)',
  );

  const same = await roller.api.patch(`/roll/${roll.uuid}`, { dice: [{ uuid: first!.uuid, meta: { position: { x: 12.35, z: 40 } } }] });
  t.is(same.body.data.updated_at, moved.body.data.updated_at, 'the same place again changes nothing');

  for (const [position, path] of [
    [{ x: 'a', z: 1 }, 'dice[0].meta.position.x'],
    [{ x: 1 }, 'dice[0].meta.position.z'],
    [{ x: 1, z: 1e9 }, 'dice[0].meta.position.z'],
    [{ x: 1, z: 1, w: 2 }, 'dice[0].meta.position.w'],
  ] as const) {
    const bad = await roller.api.patch(`/roll/${roll.uuid}`, { dice: [{ uuid: first!.uuid, meta: { position } }] });
    t.is(bad.status, 400, JSON.stringify(position));
    t.is(bad.body.data.details[0].path, path);
  }
  t.is(
    (await bystander.api.patch(`/roll/${roll.uuid}`, { dice: [{ uuid: first!.uuid, meta: { position: { x: 1, z: 1 } } }] })).status,
    403,
    "another player's roll, as for every PATCH",
  );
});
