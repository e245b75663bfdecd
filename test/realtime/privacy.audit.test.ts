import { randomUUID } from 'node:crypto';
import test from 'ava';
import { useServer } from '../helpers/server';
import { closeAll, connectUser, connectWelcomed, refusal, startConnectRoom, type Client } from '../helpers/sockets';
import { png } from '../fixtures/assets';
import { manifest, postTheme } from '../fixtures/themes';
import type { NewUser, Roll } from '../api/rolls.support';
import { seatCast, type Cast } from '../helpers/cast';

/**
 * Adversarial privacy audit of Socket.IO (one instance): what each kind of user receives in a room
 * namespace and in /user, checked against what REST answers that user, with the positive case (the
 * roller does see its values) next to every refusal. "Nothing received" is shown with a marker: events
 * of a room reach a socket in order, so once a later event has arrived an earlier one would have too.
 */

const ctx = useServer(test);
const d = (type: string, extra: Record<string, unknown> = {}) => ({ type, theme: 'standard', ...extra });

const clients: Client[] = [];
test.after.always(() => closeAll(...clients));

const connect = (slug: string, auth: Record<string, unknown>): Promise<Client> => connectWelcomed(ctx.server.url, slug, auth, clients);

async function roll(user: NewUser, body: Record<string, unknown>): Promise<Roll> {
  const res = await user.api.post('/roll', body);
  if (res.status !== 201) throw new Error(`roll failed: ${res.status} ${res.text}`);
  return res.body.data as Roll;
}

/** A private room of `owner` (who does not roll) with the roller, a whisperee and a bystander; a stranger outside. */
function cast(isPublic = false, body: Record<string, unknown> = {}): Promise<Cast> {
  return seatCast(ctx.server, { isPublic, roomBody: body });
}

async function seated(isPublic = false) {
  const c = await cast(isPublic);
  const [owner, roller, whisperee, bystander] = await Promise.all([c.owner, c.roller, c.whisperee, c.bystander].map((u) => connect(c.slug, { token: u.key })));
  return { ...c, s: { owner: owner!, roller: roller!, whisperee: whisperee!, bystander: bystander! } };
}

const values = (r: Roll) => r.values.map((v) => [v.type, v.value, v.value_to_display, v.is_hidden]);
const uuidsOf = (c: Client, event: string) => c.of(event).map((p) => p.data.uuid as string);

// ---------------------------------------------------------------------------------------------

test('RollCreateEvent: hidden dice and modifiers reach others redacted exactly as REST redacts them, whispers only their audience; the roller gets all', async (t) => {
  const c = await seated();
  const strangerUser = await connectUser(ctx.server.url, c.stranger.key);
  const bystanderUser = await connectUser(ctx.server.url, c.bystander.key);
  clients.push(strangerUser, bystanderUser);

  const open = await roll(c.roller, {
    dice: [d('d20', { value: 17, is_hidden: true }), d('d6', { value: 4 }), { type: 'mod', value: 37, is_hidden: true }, { type: 'mod', value: 2 }],
    room: c.slug,
  });
  const secret = await roll(c.roller, { dice: [d('d20', { value: 11, is_hidden: true }), d('d8', { value: 5 })], room: c.slug, whisper: [c.pid(c.whisperee)] });
  const marker = await roll(c.owner, { dice: [d('d4')], room: c.slug });
  for (const sock of Object.values(c.s)) await sock.waitFor('RollCreateEvent', (p) => p.data.uuid === marker.uuid);

  t.deepEqual(uuidsOf(c.s.roller, 'RollCreateEvent'), [open.uuid, secret.uuid, marker.uuid]);
  t.deepEqual(uuidsOf(c.s.whisperee, 'RollCreateEvent'), [open.uuid, secret.uuid, marker.uuid]);
  t.deepEqual(uuidsOf(c.s.bystander, 'RollCreateEvent'), [open.uuid, marker.uuid]);
  t.deepEqual(uuidsOf(c.s.owner, 'RollCreateEvent'), [open.uuid, marker.uuid], 'the owner is not whispered to either');
  for (const sock of [c.s.bystander, c.s.owner]) t.false(JSON.stringify(sock.events).includes(secret.uuid), 'the whisper is nowhere in their events');

  // The roller: everything.
  const mine = c.s.roller.of('RollCreateEvent');
  t.deepEqual(values(mine[0].data), [
    ['d20', 17, '17', true],
    ['d6', 4, '4', false],
    ['mod', 37, '37', true],
    ['mod', 2, '2', false],
  ]);
  t.is(mine[0].data.total_value, 60);
  t.is(mine[0].data.equation, '1d20+1d6+37+2');
  t.deepEqual(values(mine[1].data), [
    ['d20', 11, '11', true],
    ['d8', 5, '5', false],
  ]);

  // The others: exactly the redacted fields, and exactly what REST answers each of them.
  for (const [name, sock, user] of [
    ['whisperee', c.s.whisperee, c.whisperee],
    ['bystander', c.s.bystander, c.bystander],
    ['owner', c.s.owner, c.owner],
  ] as const) {
    const got = sock.of('RollCreateEvent')[0].data as Roll;
    t.deepEqual(
      values(got),
      [
        ['d20', null, null, true],
        ['d6', 4, '4', false],
        ['mod', null, null, true],
        ['mod', 2, '2', false],
      ],
      name,
    );
    t.is(got.total_value, 6, name);
    t.is(got.equation, '1d20+1d6+2', name);
    for (const p of sock.of('RollCreateEvent'))
      t.deepEqual(p, { data: (await user.api.get(`/roll/${p.data.uuid}`)).body.data, seq: p.seq }, `${name}: as REST`);
  }
  const whispered = c.s.whisperee.of('RollCreateEvent')[1].data as Roll;
  t.deepEqual(
    values(whispered),
    [
      ['d20', null, null, true],
      ['d8', 5, '5', false],
    ],
    'a hidden die in a whisper stays hidden from its recipient',
  );
  t.is(whispered.total_value, 5);

  // The /user namespace carries no room events, to anyone.
  await roll(c.stranger, { dice: [d('d6')] });
  t.deepEqual(strangerUser.events, []);
  t.deepEqual(bystanderUser.events, []);
});

test('RollUpdateEvent: others see a value exactly while it is not hidden; updates of a whisper reach its audience only', async (t) => {
  const c = await seated();
  const r = await roll(c.roller, { dice: [d('d20', { value: 8 }), d('d6', { value: 6 })], room: c.slug });
  const secret = await roll(c.roller, { dice: [d('d12', { value: 9 })], room: c.slug, whisper: [c.pid(c.whisperee)] });
  await c.s.bystander.waitFor('RollCreateEvent', (p) => p.data.uuid === r.uuid);

  t.is((await c.roller.api.patch(`/roll/${r.uuid}`, { dice: [{ uuid: r.values[0]!.uuid, is_hidden: true }] })).status, 200);
  const hidden = await c.s.bystander.waitFor('RollUpdateEvent', (p) => p.data.uuid === r.uuid);
  t.deepEqual(values(hidden.data), [
    ['d20', null, null, true],
    ['d6', 6, '6', false],
  ]);
  t.is(hidden.data.total_value, 6);
  const rollers = await c.s.roller.waitFor('RollUpdateEvent', (p) => p.data.uuid === r.uuid);
  t.deepEqual(values(rollers.data), [
    ['d20', 8, '8', true],
    ['d6', 6, '6', false],
  ]);
  t.is(rollers.data.total_value, 14);

  // The whisper's die is hidden, then the open roll shown again: the bystander hears the second only.
  t.is((await c.roller.api.patch(`/roll/${secret.uuid}`, { dice: [{ uuid: secret.values[0]!.uuid, is_hidden: true }] })).status, 200);
  t.is((await c.roller.api.patch(`/room/${c.slug}/roll`, { dice: { is_hidden: false } })).status, 200);
  const shown = await c.s.bystander.waitFor('RollUpdateEvent', (p) => p.data.uuid === r.uuid && p.data.values[0].value !== null);
  t.deepEqual(values(shown.data), [
    ['d20', 8, '8', false],
    ['d6', 6, '6', false],
  ]);
  t.is(shown.data.total_value, 14);
  t.deepEqual(uuidsOf(c.s.bystander, 'RollUpdateEvent'), [r.uuid, r.uuid]);
  t.false(JSON.stringify(c.s.bystander.events).includes(secret.uuid));
  // The whisperee got the whisper's updates, redacted while hidden.
  const forWhisperee = await c.s.whisperee.waitFor('RollUpdateEvent', (p) => p.data.uuid === secret.uuid && p.data.values[0].is_hidden);
  t.deepEqual(values(forWhisperee.data), [['d12', null, null, true]]);
});

test('replay (auth.since): only rolls the user may see, as it may see them; a since naming a whisper for someone else, a roll of another room or no roll replays nothing', async (t) => {
  const c = await cast();
  const first = await roll(c.roller, { dice: [d('d6')], room: c.slug });
  const secret = await roll(c.roller, { dice: [d('d20', { value: 3 })], room: c.slug, whisper: [c.pid(c.whisperee)] });
  const later = await roll(c.roller, { dice: [d('d20', { value: 15, is_hidden: true }), d('d4', { value: 2 })], room: c.slug });
  const otherRoom = (await c.bystander.api.post('/room', { name: 'Elsewhere' })).body.data.slug as string;
  const elsewhere = await roll(c.bystander, { dice: [d('d6')], room: otherRoom });

  const missed = await connect(c.slug, { token: c.bystander.key, since: first.uuid });
  const byWhisper = await connect(c.slug, { token: c.bystander.key, since: secret.uuid });
  const byOtherRoom = await connect(c.slug, { token: c.bystander.key, since: elsewhere.uuid });
  const byNothing = await connect(c.slug, { token: c.bystander.key, since: randomUUID() });
  const recipient = await connect(c.slug, { token: c.whisperee.key, since: first.uuid });
  const roller = await connect(c.slug, { token: c.roller.key, since: first.uuid });
  const live = await roll(c.owner, { dice: [d('d4')], room: c.slug });
  for (const sock of [missed, byWhisper, byOtherRoom, byNothing, recipient, roller]) await sock.waitFor('RollCreateEvent', (p) => p.data.uuid === live.uuid);

  t.deepEqual(uuidsOf(missed, 'RollCreateEvent'), [later.uuid, live.uuid], 'the whisper for another is not replayed');
  const replayed = missed.of('RollCreateEvent')[0].data as Roll;
  t.deepEqual(values(replayed), [
    ['d20', null, null, true],
    ['d4', 2, '2', false],
  ]);
  t.is(replayed.total_value, 2);
  t.deepEqual(missed.of('RollCreateEvent')[0].data, (await c.bystander.api.get(`/roll/${later.uuid}`)).body.data);
  for (const [name, sock] of [
    ['a whisper for another', byWhisper],
    ['a roll of another room', byOtherRoom],
    ['no roll', byNothing],
  ] as const) {
    t.deepEqual(uuidsOf(sock, 'RollCreateEvent'), [live.uuid], `since = ${name}`);
  }
  t.deepEqual(uuidsOf(recipient, 'RollCreateEvent'), [secret.uuid, later.uuid, live.uuid]);
  t.is(recipient.of('RollCreateEvent')[1].data.values[0].value, null);
  t.deepEqual(uuidsOf(roller, 'RollCreateEvent'), [secret.uuid, later.uuid, live.uuid]);
  t.is(roller.of('RollCreateEvent')[1].data.values[0].value, 15, 'the roller gets its hidden value back');
});

test('a passcode change: the removed participant is dropped and never sent the new passcode; the owner is; the removed one cannot come back in', async (t) => {
  const c = await seated();
  t.is((await c.owner.api.patch(`/room/${c.slug}`, { passcode: 'fresh-secret-9' })).status, 200);
  const reasons = await Promise.all(
    [c.s.roller, c.s.whisperee, c.s.bystander].map((s) => (s.socket.connected ? s.waitForDisconnect() : Promise.resolve('already'))),
  );
  t.true(
    reasons.every((r) => r === 'io server disconnect' || r === 'already'),
    reasons.join(),
  );
  const ownerSees = await c.s.owner.waitFor('RoomUpdateEvent', (p) => p.data.passcode === 'fresh-secret-9');
  t.deepEqual(
    ownerSees.data.participants.map((p: { user: { uuid: string } }) => p.user.uuid),
    [c.owner.user.uuid],
  );
  // A later event for the owner: anything meant for the others would have been sent by now.
  await roll(c.owner, { dice: [d('d6')], room: c.slug });
  await c.s.owner.waitFor('RollCreateEvent');
  for (const s of [c.s.roller, c.s.whisperee, c.s.bystander]) {
    t.false(JSON.stringify(s.events).includes('fresh-secret-9'));
    t.deepEqual(s.of('RollCreateEvent'), []);
  }
  for (const auth of [{ token: c.bystander.key }, { token: c.bystander.key, passcode: c.passcode }, { token: c.bystander.key, passcode: 'fresh-secret-9' }]) {
    const refused = await refusal(ctx.server.url, `/room/${c.slug}`, auth);
    t.is(refused.code, 'forbidden');
    t.deepEqual(Object.keys(refused.data).sort(), ['code', 'message']);
    t.false(JSON.stringify(refused.data).includes('fresh-secret-9'));
  }
});

test("a public room's kept passcode reaches its owner's sockets only, not its participants'", async (t) => {
  const c = await cast(true, { passcode: 'kept-for-later' });
  const [owner, bystander] = await Promise.all([connect(c.slug, { token: c.owner.key }), connect(c.slug, { token: c.bystander.key })]);
  t.is(owner.of('RoomUpdateEvent')[0].data.passcode, 'kept-for-later');
  t.is(bystander.of('RoomUpdateEvent')[0].data.passcode, null);
  t.is((await c.owner.api.patch(`/room/${c.slug}`, { name: 'Renamed' })).status, 200);
  const [o, b] = await Promise.all([
    owner.waitFor('RoomUpdateEvent', (p) => p.data.name === 'Renamed'),
    bystander.waitFor('RoomUpdateEvent', (p) => p.data.name === 'Renamed'),
  ]);
  t.is(o.data.passcode, 'kept-for-later');
  t.is(b.data.passcode, null);
  t.deepEqual(b.data, (await c.bystander.api.get(`/room/${c.slug}`)).body.data);
  // Its roll embeds the room the same way.
  const r = await roll(c.bystander, { dice: [d('d6')], room: c.slug });
  const [ro, rb] = await Promise.all([
    owner.waitFor('RollCreateEvent', (p) => p.data.uuid === r.uuid),
    bystander.waitFor('RollCreateEvent', (p) => p.data.uuid === r.uuid),
  ]);
  t.is(ro.data.room.passcode, 'kept-for-later');
  t.is(rb.data.room.passcode, null);
  t.false(JSON.stringify(bystander.events).includes('kept-for-later'));
});

test('handshakes: strangers, removed participants and keyless clients are refused without a word about the room', async (t) => {
  const c = await cast(false, { name: 'Very secret name' });
  const leaving = await c.bystander.api.delete(`/room/${c.slug}/participant/${c.pid(c.bystander)}`);
  t.is(leaving.status, 204);
  const bg = new FormData();
  bg.append('bg_file_path', new Blob([new Uint8Array(png())], { type: 'image/png' }), 'bg.png');
  t.is((await c.owner.api.post(`/room/${c.slug}`, undefined, { raw: bg })).status, 200);
  const attempts: Array<[string, Record<string, unknown>, string]> = [
    ['no key', {}, 'unauthorized'],
    ['a bad key', { token: 'dk_' + 'x'.repeat(43) }, 'unauthorized'],
    ['a stranger', { token: c.stranger.key }, 'forbidden'],
    ['a stranger with the passcode', { token: c.stranger.key, passcode: c.passcode }, 'forbidden'],
    ['a participant who left', { token: c.bystander.key }, 'forbidden'],
    ['a participant who left, with the passcode', { token: c.bystander.key, passcode: c.passcode }, 'forbidden'],
  ];
  for (const [name, auth, code] of attempts) {
    const refused = await refusal(ctx.server.url, `/room/${c.slug}`, auth);
    t.is(refused.code, code, name);
    const text = JSON.stringify(refused.data);
    for (const secret of [c.passcode!, 'Very secret name', c.owner.user.uuid, '/background/']) t.false(text.includes(secret), `${name}: ${text}`);
  }
  t.is((await refusal(ctx.server.url, '/room/zzzzzzzzzzzzzzzz', { token: c.stranger.key })).code, 'not_found');
  // Positive: a participant gets in and is shown the room with its passcode.
  const inside = await connect(c.slug, { token: c.roller.key });
  t.is(inside.of('RoomUpdateEvent')[0].data.passcode, c.passcode);
  t.regex(inside.of('RoomUpdateEvent')[0].data.bg_file_path, /\/background\//);
});

test("ParticipantConnectEvent and moves carry a participant or a mover, nothing more; a hidden die's rotation goes to its roller only, and only the roller moves its dice", async (t) => {
  const c = await seated();
  const late = await connect(c.slug, { token: c.roller.key });
  for (const p of late.of('ParticipantConnectEvent')) {
    t.deepEqual(Object.keys(p.data).sort(), ['color', 'created_at', 'dice_tray', 'id', 'position', 'updated_at', 'user', 'username']);
    t.deepEqual(Object.keys(p.data.user).sort(), [
      'created_at',
      'is_merchant',
      'is_registered',
      'name',
      'subscription',
      'subscription_level',
      'updated_at',
      'username',
      'uuid',
    ]);
  }
  t.true(late.of('ParticipantConnectEvent').length >= 3);

  const r = await roll(c.roller, { dice: [d('d20', { value: 20, is_hidden: true }), d('d6')], room: c.slug });
  const secret = await roll(c.roller, { dice: [d('d8', { is_hidden: true })], room: c.slug, whisper: [c.pid(c.whisperee)] });
  await c.s.bystander.waitFor('RollCreateEvent', (p) => p.data.uuid === r.uuid);
  const position = { x: 1, y: 2, z: 3 };
  const rotation = { x: 0.1, y: 0.2, z: 0.3, w: 0.9 };
  // The roller drags its hidden die: its other socket gets the rotation (which shows the face), the others only where it is.
  c.s.roller.emit('RollValueMoveStartEvent', { uuid: r.values[0]!.uuid, position, rotation });
  const toRoller = await late.waitFor('RollValueMoveStartEvent');
  t.deepEqual(toRoller.data.rotation, rotation);
  t.deepEqual(toRoller.data.user, { uuid: c.roller.user.uuid, username: c.roller.user.username });
  for (const other of [c.s.whisperee, c.s.bystander]) {
    const toOther = await other.waitFor('RollValueMoveStartEvent');
    t.false('rotation' in toOther.data);
    t.deepEqual(toOther.data.position, position);
    t.deepEqual(Object.keys(toOther.data).sort(), ['position', 'roll_uuid', 'user', 'uuid']);
  }

  // The roller drags a die of the whisper; the whisperee and the bystander drag dice that are not theirs
  // (dropped: a rotation would turn any face up on every board); then a marker on the open roll.
  c.s.roller.emit('RollValueMoveStartEvent', { uuid: secret.values[0]!.uuid, position, rotation });
  c.s.whisperee.emit('RollValueMoveStartEvent', { uuid: secret.values[0]!.uuid, position, rotation });
  c.s.bystander.emit('RollValueMoveStartEvent', { uuid: secret.values[0]!.uuid, position, rotation });
  c.s.bystander.emit('RollValueMoveStartEvent', { uuid: r.values[1]!.uuid, position, rotation });
  c.s.roller.emit('RollValueMoveStartEvent', { uuid: r.values[1]!.uuid, position });
  await c.s.bystander.waitFor('RollValueMoveStartEvent', (p) => p.data.uuid === r.values[1]!.uuid);
  await c.s.whisperee.waitFor('RollValueMoveStartEvent', (p) => p.data.uuid === r.values[1]!.uuid);
  await late.waitFor('RollValueMoveStartEvent', (p) => p.data.uuid === r.values[1]!.uuid);
  t.deepEqual(
    c.s.bystander.of('RollValueMoveStartEvent').map((p) => p.data.uuid),
    [r.values[0]!.uuid, r.values[1]!.uuid],
    'nothing of the whisper',
  );
  t.false(JSON.stringify(c.s.bystander.events).includes(secret.uuid));
  const whispered = c.s.whisperee.of('RollValueMoveStartEvent').filter((p) => p.data.uuid === secret.values[0]!.uuid);
  t.is(whispered.length, 1, "the roller's drag of its whisper reaches its recipient, without the hidden die's rotation");
  t.false('rotation' in whispered[0].data);
  const lateGot = late.of('RollValueMoveStartEvent').filter((p) => p.data.uuid === secret.values[0]!.uuid);
  t.is(lateGot.length, 1, "only the roller's own drag of the whisper, not the whisperee's");
  t.deepEqual(lateGot[0].data.user.uuid, c.roller.user.uuid);
  t.deepEqual(lateGot[0].data.rotation, rotation);
  t.is(late.of('RollValueMoveStartEvent').filter((p) => p.data.user.uuid !== c.roller.user.uuid).length, 0, 'no drag of another user reached the roller');
  t.deepEqual(
    c.s.owner
      .of('RollValueMoveStartEvent')
      .map((p) => p.data.uuid)
      .filter((u) => u === secret.values[0]!.uuid),
    [],
  );
});

test("the /user namespace: a user's dice box events reach that user's sockets only, and carry no key or internal id", async (t) => {
  const [a, b] = await Promise.all([ctx.server.newUser(), ctx.server.newUser()]);
  const [aSock, bSock] = await Promise.all([connectUser(ctx.server.url, a.key), connectUser(ctx.server.url, b.key)]);
  clients.push(aSock, bSock);
  const mA = manifest();
  t.is((await postTheme(a.api, mA)).status, 201);
  const got = await aSock.waitFor('DiceBoxCreateEvent');
  t.is(got.data.id, mA.id);
  t.is(typeof got.data.id, 'string');
  t.false(JSON.stringify(got).includes(a.key));
  t.false('user_id' in got.data || 'id' in got.data.user);
  const mB = manifest();
  t.is((await postTheme(b.api, mB)).status, 201);
  await bSock.waitFor('DiceBoxCreateEvent');
  t.deepEqual(
    bSock.of('DiceBoxCreateEvent').map((p) => p.data.id),
    [mB.id],
  );
  t.false(JSON.stringify(bSock.events).includes(mA.id as string));
  // The /user namespace takes no room: a room's slug there is ignored, never a way in.
  const share = await a.api.post('/share-request', { theme: mA.id });
  t.is(share.status, 201);
  t.is((await b.api.post(`/share-request/code/${share.body.data.code}/accept`)).status, 200);
  const accepted = await bSock.waitFor('DiceBoxCreateEvent', (p) => p.data.id === mA.id);
  t.is(accepted.data.user.uuid, a.user.uuid);
  t.deepEqual(
    aSock.of('DiceBoxCreateEvent').map((p) => p.data.id),
    [mA.id],
    "b's acceptance is b's event",
  );
});

test('a participant removed right as its socket connects is dropped, whether the removal lands before or after its welcome', async (t) => {
  const c = await cast(true);
  const outcomes: string[] = [];
  for (let i = 0; i < 15; i++) {
    const u = await ctx.server.newUser();
    const joined = await u.api.post(`/room/${c.slug}/participant`);
    const me = joined.body.data.participants.find((p: { user: { uuid: string } }) => p.user.uuid === u.user.uuid).id as number;
    const pending = startConnectRoom(ctx.server.url, c.slug, { token: u.key });
    await pending.opened;
    const removed = c.owner.api.delete(`/room/${c.slug}/participant/${me}`);
    let sock: Client | null = null;
    try {
      sock = await pending.connected;
      clients.push(sock);
    } catch (err) {
      outcomes.push((err as { code: string }).code);
    }
    t.is((await removed).status, 204);
    if (sock) {
      // Connected: it must be dropped, whether the removal came before or after its welcome.
      await sock.waitForDisconnect(10_000).then(
        (reason) => outcomes.push(`dropped:${reason}`),
        () => outcomes.push('STAYED'),
      );
      const shown = sock.of('RoomUpdateEvent');
      for (const p of shown) t.is(p.data.passcode, null);
    }
  }
  t.false(outcomes.includes('STAYED'), outcomes.join(' '));
  t.log(outcomes.reduce<Record<string, number>>((m, o) => ({ ...m, [o]: (m[o] ?? 0) + 1 }), {}));
});
