import test from 'ava';
import { useServer } from '../helpers/server';
import { recordEvents } from '../fixtures/events';
import { rollOk, table, type Roll } from './rolls.support';

/**
 * `meta.position` in PATCH /roll (the stock dddice renderer's drag end, docs/api/rolls.md
 * "Changing dice"), beyond the single-roll case of rolls.update.test.ts: the bulk route, all or nothing,
 * a die named twice, flags beside a position, the limits, dice rolled with a meta that is not an object,
 * and who may move. The Socket.IO RollUpdateEvent is in test/realtime/rolls.test.ts.
 */
const ctx = useServer(test);
const events = recordEvents();

const d = (type: string, extra: Record<string, unknown> = {}) => ({ type, theme: 'standard', ...extra });
const metaOf = (roll: Roll, i: number) => (roll.values[i] as unknown as { meta: unknown }).meta;
const place = (uuid: string, x: number, z: number, extra: Record<string, unknown> = {}) => ({ uuid, meta: { position: { x, z } }, ...extra });

test('PATCH /roll: positions in bulk, one roll.updated for the room; a die named twice takes the last place; a flag beside a position; an unmoved die keeps its stamp', async (t) => {
  const { roller, slug } = await table(ctx.server);
  const a = await rollOk(roller, { dice: [d('d6'), d('d8'), d('d10')], room: slug });
  const b = await rollOk(roller, { dice: [d('d4')], room: slug });
  const mark = events.for(slug).length;

  const res = await roller.api.patch('/roll', {
    rolls: [
      { uuid: a.uuid, room: slug, dice: [place(a.values[0]!.uuid, 1, 2), place(a.values[1]!.uuid, 3, 4, { is_hidden: true }), place(a.values[0]!.uuid, 5, 6)] },
      { uuid: b.uuid, room: slug, dice: [place(b.values[0]!.uuid, 70.5, 20.25)] },
    ],
  });
  t.is(res.status, 200, res.text);
  const [ra, rb] = res.body.data as Roll[];
  t.deepEqual(metaOf(ra!, 0), { position: { x: 5, z: 6 } }, 'named twice: the last place wins');
  t.deepEqual(metaOf(ra!, 1), { position: { x: 3, z: 4 } });
  t.true(ra!.values[1]!.is_hidden, 'a flag and a position in one change');
  t.is(metaOf(ra!, 2), null, 'a die not named is not moved');
  t.is(ra!.values[2]!.updated_at, a.values[2]!.updated_at, '...and keeps its updated_at');
  t.true(ra!.values[0]!.updated_at > a.values[0]!.updated_at);
  t.deepEqual(metaOf(rb!, 0), { position: { x: 70.5, z: 20.25 } });
  t.deepEqual(
    events.since(slug, mark).map((e) => e.type),
    ['roll.updated'],
    'one announcement for the room',
  );

  const stored = (await roller.api.get(`/roll/${a.uuid}`)).body.data as Roll;
  t.deepEqual(
    [0, 1, 2].map((i) => metaOf(stored, i)),
    [{ position: { x: 5, z: 6 } }, { position: { x: 3, z: 4 } }, null],
    'read back as answered',
  );

  const bad = await roller.api.patch('/roll', { rolls: [{ uuid: a.uuid, dice: [place(a.values[2]!.uuid, 1000.5, 1)] }] });
  t.is(bad.status, 400);
  t.deepEqual(
    bad.body.data.details.map((x: { path: string }) => x.path),
    ['rolls[0].dice[0].meta.position.x'],
  );
});

test("a move is all or nothing with the rest of the request: an unknown die or another player's roll and nothing moves", async (t) => {
  const { roller, bystander, slug } = await table(ctx.server);
  const mine = await rollOk(roller, { dice: [d('d6')], room: slug });
  const theirs = await rollOk(bystander, { dice: [d('d6')], room: slug });
  const mark = events.for(slug).length;

  const unknown = await roller.api.patch(`/roll/${mine.uuid}`, { dice: [place(mine.values[0]!.uuid, 10, 10), place(theirs.values[0]!.uuid, 20, 20)] });
  t.is(unknown.status, 400);
  t.is(unknown.body.data.code, 'unknown_roll_value');
  t.deepEqual(
    unknown.body.data.details.map((x: { path: string }) => x.path),
    ['dice[1].uuid'],
    'a die of another roll is not a die of this one',
  );

  const notMine = await roller.api.patch('/roll', {
    rolls: [
      { uuid: mine.uuid, dice: [place(mine.values[0]!.uuid, 10, 10)] },
      { uuid: theirs.uuid, dice: [place(theirs.values[0]!.uuid, 20, 20)] },
    ],
  });
  t.is(notMine.status, 403);
  t.is(metaOf((await roller.api.get(`/roll/${mine.uuid}`)).body.data, 0), null, 'the valid move was not applied');
  t.is(metaOf((await bystander.api.get(`/roll/${theirs.uuid}`)).body.data, 0), null);
  t.is(events.for(slug).length, mark, 'nothing announced');
});

test('who may move a die follows PATCH: the roller; 403 to others who see the roll, 404 to those who do not (whispers too)', async (t) => {
  const { roller, whisperee, bystander, outsider, slug, participantId } = await table(ctx.server);
  const open = await rollOk(roller, { dice: [d('d6')], room: slug });
  const whisper = await rollOk(roller, { dice: [d('d6')], room: slug, whisper: [participantId(whisperee)] });
  const move = (r: Roll) => ({ dice: [place(r.values[0]!.uuid, 50, 50)], room: slug });

  const refused = await bystander.api.patch(`/roll/${open.uuid}`, move(open));
  t.is(refused.status, 403);
  t.is(refused.body.data.code, 'forbidden');
  t.is((await outsider.api.patch(`/roll/${open.uuid}`, move(open))).status, 404);
  t.is((await whisperee.api.patch(`/roll/${whisper.uuid}`, move(whisper))).status, 403);
  t.is((await bystander.api.patch(`/roll/${whisper.uuid}`, move(whisper))).status, 404);
  t.is(metaOf((await roller.api.get(`/roll/${open.uuid}`)).body.data, 0), null, 'nothing moved');
  t.is(metaOf((await roller.api.get(`/roll/${whisper.uuid}`)).body.data, 0), null);

  const own = await roller.api.patch(`/roll/${whisper.uuid}`, move(whisper));
  t.is(own.status, 200, own.text);
  const seen = (await whisperee.api.get(`/roll/${whisper.uuid}`)).body.data as Roll;
  t.deepEqual(metaOf(seen, 0), { position: { x: 50, z: 50 } }, 'the whispered-to player sees where it lies');
});

test('limits: -1000 to 1000, y optional, two decimals kept; numbers only; a meta that was not an object gives way to the position (as documented)', async (t) => {
  const { roller, slug } = await table(ctx.server);
  const roll = await rollOk(roller, {
    dice: [d('d6'), d('d6', { meta: 'plain text' }), d('d6', { meta: [1, 2] }), d('d6', { meta: { note: 'sword', position: 'theirs' } })],
    room: slug,
  });
  const [plain, text, list, noted] = roll.values.map((v) => v.uuid) as [string, string, string, string];
  const patch = (dice: unknown[]) => roller.api.patch(`/roll/${roll.uuid}`, { dice });

  const edges = await patch([{ uuid: plain, meta: { position: { x: -1000, z: 1000, y: 1.23456 } } }]);
  t.is(edges.status, 200, edges.text);
  t.deepEqual(metaOf(edges.body.data, 0), { position: { x: -1000, z: 1000, y: 1.23 } });

  for (const [position, paths] of [
    [{ x: -1000.01, z: 0 }, ['dice[0].meta.position.x']],
    [{ x: 0, z: '5' }, ['dice[0].meta.position.z']],
    [{ x: null, z: true }, ['dice[0].meta.position.x', 'dice[0].meta.position.z']],
    [[10, 10], ['dice[0].meta.position']],
  ] as const) {
    const bad = await patch([{ uuid: plain, meta: { position } }]);
    t.is(bad.status, 400, JSON.stringify(position));
    t.is(bad.body.data.code, 'validation_error');
    t.deepEqual(bad.body.data.details.map((x: { path: string }) => x.path).sort(), [...paths], JSON.stringify(position));
  }
  t.is((await patch([{ uuid: plain, meta: 'position' }])).status, 400, 'meta of a change is an object');
  t.deepEqual(metaOf((await roller.api.get(`/roll/${roll.uuid}`)).body.data, 0), { position: { x: -1000, z: 1000, y: 1.23 } }, 'no refused move was applied');

  const moved = await patch([place(text, 10, 11), place(list, 12, 13), place(noted, 14, 15)]);
  t.is(moved.status, 200, moved.text);
  t.deepEqual(metaOf(moved.body.data, 1), { position: { x: 10, z: 11 } }, 'a string meta is replaced');
  t.deepEqual(metaOf(moved.body.data, 2), { position: { x: 12, z: 13 } }, 'an array meta is replaced');
  t.deepEqual(
    metaOf(moved.body.data, 3),
    { note: 'sword', position: { x: 14, z: 15 } },
    "an object meta keeps its keys; the roll request's own position gives way",
  );
});
