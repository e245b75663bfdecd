import test from 'ava';
import { useServer } from '../helpers/server';
import { closeAll, connectWelcomed, type Client } from '../helpers/sockets';
import { rollOk, table } from '../api/rolls.support';
import { parseMove } from '../../src/realtime/fanout/draggedDice';

const ctx = useServer(test);
const d = (type: string, extra: Record<string, unknown> = {}) => ({ type, theme: 'standard', ...extra });
const MOVE = 'RollValueMoveEvent';
const START = 'RollValueMoveStartEvent';
const END = 'RollValueMoveEndEvent';
const position = { x: 1.5, y: 0, z: -2 };
const rotation = { x: 0, y: 0.7071, z: 0, w: 0.7071 };

const clients: Client[] = [];
const connect = (slug: string, token: string) => connectWelcomed(ctx.server.url, slug, { token }, clients);
test.after.always(() => closeAll(...clients));

async function seated() {
  const t = await table(ctx.server);
  const [roller, rollerTab2, whisperee, bystander] = await Promise.all([
    connect(t.slug, t.roller.key),
    connect(t.slug, t.roller.key),
    connect(t.slug, t.whisperee.key),
    connect(t.slug, t.bystander.key),
  ]);
  return { ...t, sockets: { roller, rollerTab2, whisperee, bystander } };
}

test('the move schema: well-formed moves pass (roll_value_uuid for uuid), junk does not', (t) => {
  const uuid = '6f1c1d2e-3a4b-4c5d-8e9f-0a1b2c3d4e5f';
  t.deepEqual(parseMove(MOVE, { uuid, position, rotation, extra: 'dropped' }), { uuid, position, rotation });
  t.deepEqual(parseMove(MOVE, { roll_value_uuid: uuid, position }), { uuid, position });
  t.deepEqual(parseMove(START, { uuid }), { uuid });
  const extras = Object.fromEntries(Array.from({ length: 13 }, (_, i) => [`extra${i}`, i]));
  t.deepEqual(parseMove(MOVE, { uuid, position, rotation, ...extras }), { uuid, position, rotation }, 'a few extras are stripped');
  t.is(parseMove(MOVE, { uuid, position, rotation, ...extras, one: 'too many' }), null, 'more than 16 fields is junk, not validated');
  for (const junk of [
    null,
    'x',
    42,
    [],
    {},
    { uuid },
    { uuid: 'nope', position },
    { uuid, position: { x: 1, y: 2 } },
    { uuid, position: { x: '1', y: 2, z: 3 } },
    { uuid, position: { x: 1e9, y: 0, z: 0 } },
    { uuid, position, rotation: { x: 0 } },
    { uuid, position: { ...position, evil: 1 } },
  ]) {
    t.is(parseMove(MOVE, junk), null, JSON.stringify(junk));
  }
});

test('a dragged die is relayed to the others in the room, not back to the sender, stamped with who moved it', async (t) => {
  const s = await seated();
  const roll = await rollOk(s.roller, { dice: [d('d20')], room: s.slug });
  await s.sockets.bystander.waitFor('RollCreateEvent', (p) => p.data.uuid === roll.uuid);
  const uuid = roll.values[0]!.uuid;
  const receivers = [s.sockets.rollerTab2, s.sockets.whisperee, s.sockets.bystander];
  // Moves are volatile: one at a time, so that none is skipped for a busy connection.
  s.sockets.roller.emit(START, { uuid, position });
  for (const c of receivers) await c.waitFor(START);
  s.sockets.roller.emit(MOVE, { uuid, position, rotation, junk: 'stripped' });
  for (const c of receivers) await c.waitFor(MOVE);
  s.sockets.roller.emit(END, { uuid, position });
  for (const c of receivers) {
    await c.waitFor(END);
    const move = c.of(MOVE)[0];
    t.deepEqual(move, { data: { uuid, roll_uuid: roll.uuid, position, rotation, user: { uuid: s.roller.user.uuid, username: s.roller.user.username } } });
    t.deepEqual(
      c.events.filter((e) => e.event.startsWith('RollValueMove')).map((e) => e.event),
      [START, MOVE, END],
    );
  }
  // The sender's own later event proves nothing of its moves came back to it.
  await rollOk(s.roller, { dice: [d('d4')], room: s.slug });
  await s.sockets.roller.waitForCount('RollCreateEvent', 2);
  t.is(s.sockets.roller.of(MOVE).length, 0);
});

test("only the roller moves a roll's dice: a drag of someone else's die (whose rotation would turn any face up on every board) is relayed to no one", async (t) => {
  const s = await seated();
  const roll = await rollOk(s.roller, { dice: [d('d20')], room: s.slug });
  const mine = await rollOk(s.bystander, { dice: [d('d6')], room: s.slug });
  await s.sockets.bystander.waitFor('RollCreateEvent', (p) => p.data.uuid === mine.uuid);
  // Picking up and putting down are relayed reliably: what is not received was not sent.
  s.sockets.bystander.emit(START, { uuid: roll.values[0]!.uuid, position, rotation });
  s.sockets.bystander.emit(END, { uuid: roll.values[0]!.uuid, position, rotation });
  s.sockets.bystander.emit(START, { uuid: mine.values[0]!.uuid, position });
  await s.sockets.roller.waitFor(START, (p) => p.data.uuid === mine.values[0]!.uuid);
  t.deepEqual(
    s.sockets.roller.of(START).map((p) => p.data.uuid),
    [mine.values[0]!.uuid],
  );
  t.is(s.sockets.roller.of(END).length, 0);
});

test('junk and dice of other rooms are dropped, never relayed', async (t) => {
  const s = await seated();
  const roll = await rollOk(s.roller, { dice: [d('d20')], room: s.slug });
  const elsewhere = await s.roller.api.post('/room', { name: 'Other' });
  const foreign = await rollOk(s.roller, { dice: [d('d6')], room: elsewhere.body.data.slug });
  const sender = s.sockets.roller;
  for (const junk of [null, 'hello', 12, [position], { uuid: 'x', position }, { uuid: roll.values[0]!.uuid, position: { x: 'a', y: 0, z: 0 } }])
    sender.emit(MOVE, junk);
  sender.emit(MOVE, { uuid: '00000000-0000-4000-8000-000000000000', position });
  sender.emit(MOVE, { uuid: foreign.values[0]!.uuid, position });
  sender.emit(MOVE, { uuid: roll.uuid, position }); // a roll's uuid is not a die's
  sender.emit('SomethingElse', { uuid: roll.values[0]!.uuid, position });
  sender.emit(MOVE, { uuid: roll.values[0]!.uuid, position, rotation });
  const got = await s.sockets.bystander.waitFor(MOVE);
  t.is(got.data.uuid, roll.values[0]!.uuid);
  t.is(s.sockets.bystander.of(MOVE).length, 1);
  t.is(s.sockets.bystander.of('SomethingElse').length, 0);
});

test("a whispered roll's dice move only for its audience", async (t) => {
  const s = await seated();
  // Pick-ups are relayed reliably (moves are volatile): what is not received was not sent.
  const secret = await rollOk(s.roller, { dice: [d('d20')], room: s.slug, whisper: [s.participantId(s.whisperee)] });
  const open = await rollOk(s.roller, { dice: [d('d6')], room: s.slug });
  s.sockets.roller.emit(START, { uuid: secret.values[0]!.uuid, position, rotation });
  s.sockets.roller.emit(START, { uuid: open.values[0]!.uuid, position, rotation });
  await s.sockets.whisperee.waitFor(START, (p) => p.data.uuid === open.values[0]!.uuid);
  await s.sockets.bystander.waitFor(START, (p) => p.data.uuid === open.values[0]!.uuid);
  t.deepEqual(
    s.sockets.whisperee.of(START).map((p) => p.data.uuid),
    [secret.values[0]!.uuid, open.values[0]!.uuid],
  );
  t.deepEqual(
    s.sockets.bystander.of(START).map((p) => p.data.uuid),
    [open.values[0]!.uuid],
  );
  // And someone it was whispered to may see it but not move it: only its roller does.
  const own = await rollOk(s.whisperee, { dice: [d('d4')], room: s.slug });
  s.sockets.whisperee.emit(START, { uuid: secret.values[0]!.uuid, position });
  s.sockets.whisperee.emit(START, { uuid: own.values[0]!.uuid, position });
  await s.sockets.roller.waitFor(START, (p) => p.data.user.uuid === s.whisperee.user.uuid);
  t.deepEqual(
    s.sockets.roller.of(START).map((p) => p.data.uuid),
    [own.values[0]!.uuid],
  );
});

test("a hidden die's rotation (which shows its face) reaches only its roller; the others get its position", async (t) => {
  const s = await seated();
  const roll = await rollOk(s.roller, { dice: [d('d20', { is_hidden: true })], room: s.slug });
  const uuid = roll.values[0]!.uuid;
  s.sockets.roller.emit(MOVE, { uuid, position, rotation });
  for (const c of [s.sockets.whisperee, s.sockets.bystander]) {
    const got = await c.waitFor(MOVE);
    t.deepEqual(got.data.position, position);
    t.false('rotation' in got.data);
  }
  t.deepEqual((await s.sockets.rollerTab2.waitFor(MOVE)).data.rotation, rotation);
});

test('a socket flooding moves is cut to its rate limit', async (t) => {
  const s = await seated();
  const roll = await rollOk(s.roller, { dice: [d('d20')], room: s.slug });
  const uuid = roll.values[0]!.uuid;
  // Unlimited, the relay would drop nothing but what a busy transport skips (volatile).
  for (let i = 0; i < 400; i++) s.sockets.roller.emit(MOVE, { uuid, position: { x: i, y: 0, z: 0 } });
  // The bucket refills at 60/s: this one, a second later, gets through.
  await new Promise((r) => setTimeout(r, 1100));
  s.sockets.roller.emit(MOVE, { uuid, position: { x: -1, y: 0, z: 0 } });
  await s.sockets.bystander.waitFor(MOVE, (p) => p.data.position.x === -1);
  const relayed = s.sockets.bystander.of(MOVE).length - 1;
  t.true(relayed <= 130, `relayed ${relayed} of 400`);
  t.true(relayed > 0);
});
