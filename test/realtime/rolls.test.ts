import test from 'ava';
import { useServer } from '../helpers/server';
import { closeAll, connectWelcomed, type Client } from '../helpers/sockets';
import { rollOk, table, type Roll } from '../api/rolls.support';

const ctx = useServer(test);
const d = (type: string, extra: Record<string, unknown> = {}) => ({ type, theme: 'standard', ...extra });

const clients: Client[] = [];
const connect = (slug: string, auth: Record<string, unknown>) => connectWelcomed(ctx.server.url, slug, auth, clients);
test.after.always(() => closeAll(...clients));

async function seated() {
  const t = await table(ctx.server);
  const [roller, whisperee, bystander] = await Promise.all([
    connect(t.slug, { token: t.roller.key }),
    connect(t.slug, { token: t.whisperee.key }),
    connect(t.slug, { token: t.bystander.key }),
  ]);
  return { ...t, sockets: { roller, whisperee, bystander } };
}

test('a roll reaches every socket of the room, presented for each viewer as REST presents it', async (t) => {
  const s = await seated();
  const roll = await rollOk(s.roller, { dice: [d('d20', { value: 17, is_hidden: true }), d('d6', { value: 3 })], room: s.slug });
  for (const [name, user, socket] of [
    ['roller', s.roller, s.sockets.roller],
    ['whisperee', s.whisperee, s.sockets.whisperee],
    ['bystander', s.bystander, s.sockets.bystander],
  ] as const) {
    const got = await socket.waitFor('RollCreateEvent', (p) => p.data.uuid === roll.uuid);
    const rest = await user.api.get(`/roll/${roll.uuid}`);
    t.deepEqual(got, { data: rest.body.data, seq: got.seq }, name);
    t.true(Number.isSafeInteger(got.seq), `${name}: a seq`);
  }
  const seen = s.sockets.bystander.of('RollCreateEvent')[0].data as Roll;
  t.is(seen.values[0]!.value, null, 'a hidden die has no value for the others');
  t.is(seen.values[0]!.value_to_display, null);
  t.is(seen.total_value, 3);
  t.is(s.sockets.roller.of('RollCreateEvent')[0].data.values[0].value, 17);
});

test('a whispered roll reaches only its roller and its recipient', async (t) => {
  const s = await seated();
  const secret = await rollOk(s.roller, { dice: [d('d20')], room: s.slug, whisper: [s.participantId(s.whisperee)] });
  const open = await rollOk(s.roller, { dice: [d('d4')], room: s.slug });
  // Rolls of a room arrive in order: once the open roll is here, the whisper would have been too.
  for (const socket of Object.values(s.sockets)) await socket.waitFor('RollCreateEvent', (p) => p.data.uuid === open.uuid);
  t.deepEqual(
    s.sockets.roller.of('RollCreateEvent').map((p) => p.data.uuid),
    [secret.uuid, open.uuid],
  );
  t.deepEqual(
    s.sockets.whisperee.of('RollCreateEvent').map((p) => p.data.uuid),
    [secret.uuid, open.uuid],
  );
  t.deepEqual(
    s.sockets.bystander.of('RollCreateEvent').map((p) => p.data.uuid),
    [open.uuid],
  );
  t.false(JSON.stringify(s.sockets.bystander.events).includes(secret.uuid));
});

test('updates reach the room as RollUpdateEvent: unhiding shows the value to everyone', async (t) => {
  const s = await seated();
  const roll = await rollOk(s.roller, { dice: [d('d20', { value: 9, is_hidden: true })], room: s.slug });
  await s.sockets.bystander.waitFor('RollCreateEvent', (p) => p.data.uuid === roll.uuid);
  const res = await s.roller.api.patch(`/roll/${roll.uuid}`, { dice: [{ uuid: roll.values[0]!.uuid, is_hidden: false }] });
  t.is(res.status, 200);
  const update = await s.sockets.bystander.waitFor('RollUpdateEvent', (p) => p.data.uuid === roll.uuid);
  t.is(update.data.values[0].value, 9);
  t.deepEqual(update.data, (await s.bystander.api.get(`/roll/${roll.uuid}`)).body.data);
});

test("a die put down through PATCH /roll reaches the room in RollUpdateEvent with values[].meta.position, a hidden die's too, as REST presents it to each", async (t) => {
  const s = await seated();
  const roll = await rollOk(s.roller, { dice: [d('d20', { value: 15, is_hidden: true }), d('d6', { meta: { note: 'kept' } })], room: s.slug });
  await s.sockets.bystander.waitFor('RollCreateEvent', (p) => p.data.uuid === roll.uuid);
  // The body the stock dddice renderer sends at the end of a drag (one die at a time; two here).
  const res = await s.roller.api.patch(`/roll/${roll.uuid}`, {
    dice: [
      { uuid: roll.values[0]!.uuid, meta: { position: { x: 41.5, z: 73.25 } } },
      { uuid: roll.values[1]!.uuid, meta: { position: { x: 8, z: 9 } } },
    ],
    room: s.slug,
  });
  t.is(res.status, 200, res.text);
  for (const [name, user, socket] of [
    ['roller', s.roller, s.sockets.roller],
    ['whisperee', s.whisperee, s.sockets.whisperee],
    ['bystander', s.bystander, s.sockets.bystander],
  ] as const) {
    const update = await socket.waitFor('RollUpdateEvent', (p) => p.data.uuid === roll.uuid);
    t.deepEqual(
      update.data.values.map((v: { meta: unknown }) => v.meta),
      [{ position: { x: 41.5, z: 73.25 } }, { note: 'kept', position: { x: 8, z: 9 } }],
      name,
    );
    t.deepEqual(update, { data: (await user.api.get(`/roll/${roll.uuid}`)).body.data, seq: update.seq }, name);
  }
  t.is(s.sockets.bystander.of('RollUpdateEvent').find((p) => p.data.uuid === roll.uuid).data.values[0].value, null, 'the place, not the value');
  t.is(s.sockets.roller.of('RollUpdateEvent').find((p) => p.data.uuid === roll.uuid).data.values[0].value, 15);
});

test('a socket that reconnects with since gets exactly the rolls it missed, in order, as it may see them', async (t) => {
  const s = await seated();
  const first = await rollOk(s.roller, { dice: [d('d6')], room: s.slug });
  await s.sockets.bystander.waitFor('RollCreateEvent', (p) => p.data.uuid === first.uuid);
  s.sockets.bystander.close();
  const missed: string[] = [];
  for (let i = 0; i < 4; i++) missed.push((await rollOk(s.roller, { dice: [d('d8', { value: i + 1, is_hidden: i === 1 })], room: s.slug })).uuid);
  const whisper = await rollOk(s.roller, { dice: [d('d20')], room: s.slug, whisper: [s.participantId(s.whisperee)] });
  const back = await connect(s.slug, { token: s.bystander.key, since: first.uuid });
  await back.waitForCount('RollCreateEvent', 4);
  // A live roll after the replay comes after it.
  const live = await rollOk(s.roller, { dice: [d('d4')], room: s.slug });
  await back.waitFor('RollCreateEvent', (p) => p.data.uuid === live.uuid);
  t.deepEqual(
    back.of('RollCreateEvent').map((p) => p.data.uuid),
    [...missed, live.uuid],
  );
  t.false(back.of('RollCreateEvent').some((p) => p.data.uuid === whisper.uuid));
  t.is(back.of('RollCreateEvent')[1].data.values[0].value, null, 'replayed as this viewer may see it');
  const expected = (await s.bystander.api.get(`/roll/${missed[0]}`)).body.data;
  t.deepEqual(back.of('RollCreateEvent')[0].data, expected);
});

test('a since naming the newest roll replays nothing; an unknown since replays nothing', async (t) => {
  const s = await seated();
  const last = await rollOk(s.roller, { dice: [d('d6')], room: s.slug });
  const a = await connect(s.slug, { token: s.bystander.key, since: last.uuid });
  const b = await connect(s.slug, { token: s.bystander.key, since: '00000000-0000-4000-8000-000000000000' });
  const live = await rollOk(s.roller, { dice: [d('d4')], room: s.slug });
  for (const c of [a, b]) {
    await c.waitFor('RollCreateEvent', (p) => p.data.uuid === live.uuid);
    t.deepEqual(
      c.of('RollCreateEvent').map((p) => p.data.uuid),
      [live.uuid],
    );
  }
});

test('a roll outside any room, or in another room, does not reach this room', async (t) => {
  const s = await seated();
  const other = await s.roller.api.post('/room', { name: 'Elsewhere' });
  await rollOk(s.roller, { dice: [d('d6')] });
  await rollOk(s.roller, { dice: [d('d6')], room: other.body.data.slug });
  const here = await rollOk(s.roller, { dice: [d('d6')], room: s.slug });
  await s.sockets.roller.waitFor('RollCreateEvent', (p) => p.data.uuid === here.uuid);
  t.deepEqual(
    s.sockets.roller.of('RollCreateEvent').map((p) => p.data.uuid),
    [here.uuid],
  );
});

test("clearing the table sends RollDeleteEvent for each roll, a whispered roll's to its audience only", async (t) => {
  const s = await seated();
  const a = await rollOk(s.roller, { dice: [d('d6')], room: s.slug });
  const b = await rollOk(s.roller, { dice: [d('d6')], room: s.slug });
  const seat = (await s.whisperee.api.get(`/room/${s.slug}`)).body.data.participants.find(
    (p: { user: { uuid: string } }) => p.user.uuid === s.whisperee.user.uuid,
  );
  const secret = await rollOk(s.roller, { dice: [d('d6')], room: s.slug, whisper: [seat.id] });
  await s.sockets.bystander.waitFor('RollCreateEvent', (p) => p.data.uuid === b.uuid);
  await s.sockets.whisperee.waitFor('RollCreateEvent', (p) => p.data.uuid === secret.uuid);
  const res = await s.roller.api.delete(`/roll?room=${s.slug}`);
  t.true(res.status === 200 || res.status === 204, String(res.status));
  for (const who of [s.sockets.roller, s.sockets.whisperee]) {
    const deleted = await who.waitForCount('RollDeleteEvent', 3);
    t.deepEqual(deleted.map((p) => p.data.uuid).sort(), [a.uuid, b.uuid, secret.uuid].sort());
  }
  // A roll made after the clear reaches the bystander after every delete it was sent (one order per socket).
  const after = await rollOk(s.roller, { dice: [d('d6')], room: s.slug });
  await s.sockets.bystander.waitFor('RollCreateEvent', (p) => p.data.uuid === after.uuid);
  t.deepEqual(
    s.sockets.bystander
      .of('RollDeleteEvent')
      .map((p) => p.data.uuid)
      .sort(),
    [a.uuid, b.uuid].sort(),
    "the whisper's uuid is not news for the bystander",
  );
});

test('a socket reconnecting with since while rolls keep coming hears every roll after since once, oldest first: the replay before anything live', async (t) => {
  const s = await seated();
  const first = await rollOk(s.roller, { dice: [d('d6')], room: s.slug });
  const history = [];
  for (let i = 0; i < 5; i++) history.push(await rollOk(s.roller, { dice: [d('d6')], room: s.slug }));
  // Rolls go on, one after the other (so their order is known), while the bystander reconnects.
  const live: Roll[] = [];
  let stop = false;
  const loop = (async () => {
    while (!stop && live.length < 40) live.push(await rollOk(s.roller, { dice: [d('d6')], room: s.slug }));
  })();
  const again = await connect(s.slug, { token: s.bystander.key, since: first.uuid });
  const marker = live.length + 3;
  // Bounded: a roll loop that stopped (a failed roll ends it) must fail the test, not hold it.
  const deadline = Date.now() + 15_000;
  while (live.length < marker && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  stop = true;
  if (live.length < marker) {
    await loop;
    throw new Error(`timed out after 15000 ms waiting for ${marker} rolls during the reconnection; ${live.length} made`);
  }
  await loop;
  const last = live[live.length - 1]!;
  await again.waitFor('RollCreateEvent', (p) => p.data.uuid === last.uuid);
  const heard = again.of('RollCreateEvent').map((p) => p.data.uuid as string);
  const expected = [...history, ...live].map((r) => r.uuid);
  t.is(new Set(heard).size, heard.length, 'nothing twice');
  t.deepEqual(heard, expected.slice(expected.indexOf(heard[0]!)), 'in order, nothing missing from the first heard on');
  t.is(heard[0], history[0]!.uuid, 'the replay starts right after since');
  t.is(again.events[0]!.event, 'RoomUpdateEvent', 'the welcome comes first');
});
