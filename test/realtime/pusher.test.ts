import test from 'ava';
import WebSocket from 'ws';
import { withDeadline } from '../helpers/deadline';
import { useServer, type TestServer } from '../helpers/server';
import { closeAllPusher, connectPusher, SDK_KEY, type PusherClient } from '../helpers/pusher';
import { connectRoom } from '../helpers/sockets';
import { manifest, postTheme } from '../fixtures/themes';

// The Pusher gateway against one instance (the embedded shape on SQLite, or PostgreSQL), with real
// pusher-js 8 clients: what the stock dddice SDK's realtime needs (docs/sdk.md).
const ctx = useServer(test, { PUSHER_APP_KEYS: 'self-hosted-key' });
test.after.always(closeAllPusher);

type User = Awaited<ReturnType<TestServer['newUser']>>;

/** A room of `owner` with `b` and `c` seated; `outsider` never joins. */
async function table(server: TestServer) {
  const [owner, b, c, outsider] = await Promise.all([server.newUser(), server.newUser(), server.newUser(), server.newUser()]);
  const created = await owner.api.post('/room', {});
  const slug = created.body.data.slug as string;
  for (const u of [b, c]) if ((await u.api.post(`/room/${slug}/participant`)).status !== 200) throw new Error('join failed');
  const room = (await owner.api.get(`/room/${slug}`)).body.data;
  const participantId = (u: User) => room.participants.find((p: any) => p.user.uuid === u.user.uuid).id as number;
  return { owner, b, c, outsider, slug, participantId };
}

/** A pusher-js client subscribed to the room's presence channel (and, like the SDK with a user uuid, its two private ones). */
async function inRoom(server: TestServer, user: User, slug: string, all = true): Promise<PusherClient> {
  const client = await connectPusher(server.url, { key: user.key });
  await client.subscribe(`presence-room.${slug}`);
  if (all) {
    await client.subscribe(`private-room.${slug}.${user.user.uuid}`);
    await client.subscribe(`private-user.${user.user.uuid}`);
  }
  return client;
}

const ROLL = 'App\\Events\\RollCreateEvent';
const d = (type: string, extra: Record<string, unknown> = {}) => ({ type, theme: 'standard', ...extra });
const settle = () => new Promise((r) => setTimeout(r, 300));
/** The next frame `ws` receives, decoded; rejects naming `what` when none comes within 10 s. */
const nextFrame = (ws: WebSocket, what: string) =>
  withDeadline(new Promise<any>((resolve) => ws.once('message', (m) => resolve(JSON.parse(String(m))))), 10_000, what);

test('connects: connection_established with a Pusher socket id and an activity timeout; a ping is answered', async (t) => {
  const ws = new WebSocket(`${ctx.server.url.replace('http', 'ws')}/app/${SDK_KEY}?protocol=7&client=js&version=8.4.0&flash=false`);
  const first = await nextFrame(ws, 'pusher:connection_established');
  t.is(first.event, 'pusher:connection_established');
  const data = JSON.parse(first.data);
  t.regex(data.socket_id, /^\d+\.\d+$/);
  t.is(data.activity_timeout, 30);
  ws.send(JSON.stringify({ event: 'pusher:ping', data: {} }));
  const pong = await nextFrame(ws, 'the answer to pusher:ping');
  t.is(pong.event, 'pusher:pong');
  ws.close();
});

test('a configured app key is accepted; an unknown one is closed with 4001 (pusher-js then stops for good); no protocol is 4008', async (t) => {
  const base = ctx.server.url.replace('http', 'ws');
  const configured = await connectPusher(ctx.server.url, { appKey: 'self-hosted-key' });
  t.is(configured.pusher.connection.state, 'connected', 'the configured key is accepted');
  t.truthy(configured.pusher.connection.socket_id, 'and given a socket id');
  configured.close();
  const closeOf = (url: string) =>
    withDeadline(
      new Promise<{ code: number; error: any }>((resolve) => {
        const ws = new WebSocket(url);
        let error: any = null;
        ws.on('message', (m) => (error = JSON.parse(String(m))));
        ws.on('close', (code) => resolve({ code, error }));
      }),
      10_000,
      `the server to close ${url}`,
    );
  const unknown = await closeOf(`${base}/app/not-a-key?protocol=7`);
  t.is(unknown.code, 4001);
  t.is(unknown.error.event, 'pusher:error');
  t.is(unknown.error.data.code, 4001);
  t.is((await closeOf(`${base}/app/${SDK_KEY}`)).code, 4008);
  t.is((await closeOf(`${base}/app/${SDK_KEY}?protocol=3`)).code, 4007);
  // Socket.IO still has its own upgrades on the same port.
  const { owner, slug } = await table(ctx.server);
  const socket = await connectRoom(ctx.server.url, slug, { token: owner.key });
  socket.close();
});

test('presence: the hash lists who is here with user_info as GET /room shows the participant; member_added and member_removed go to the others, once per user', async (t) => {
  const { owner, b, slug } = await table(ctx.server);
  const a = await inRoom(ctx.server, owner, slug);
  const succeeded = a.of('pusher_internal:subscription_succeeded', `presence-room.${slug}`)[0]!;
  const presence = succeeded.data.presence;
  t.deepEqual(Object.keys(presence.hash), [owner.user.uuid]);
  t.is(presence.count, 1);

  const bClient = await inRoom(ctx.server, b, slug);
  const added = await a.waitFor('pusher_internal:member_added');
  const room = (await b.api.get(`/room/${slug}`)).body.data;
  const bParticipant = room.participants.find((p: any) => p.user.uuid === b.user.uuid);
  t.deepEqual(added.data, { user_id: b.user.uuid, user_info: bParticipant });
  const bHash = bClient.pusher.channel(`presence-room.${slug}`) as any;
  t.deepEqual(Object.keys(bHash.members.members).sort(), [owner.user.uuid, b.user.uuid].sort());
  t.deepEqual(bHash.members.members[b.user.uuid], bParticipant);
  t.is(bClient.of('pusher_internal:member_added').length, 0, 'nobody is told of their own arrival');

  // A second connection of b (another tab): no second member_added; its leaving is no member_removed.
  const bTab = await inRoom(ctx.server, b, slug, false);
  bTab.close();
  await settle();
  t.is(a.of('pusher_internal:member_added').length, 1);
  t.is(a.of('pusher_internal:member_removed').length, 0);

  bClient.pusher.unsubscribe(`presence-room.${slug}`);
  const removed = await a.waitFor('pusher_internal:member_removed');
  t.deepEqual(removed.data, { user_id: b.user.uuid });
  a.close();
  bClient.close();
});

test('Socket.IO and Pusher share one presence per user: each side hears the other arrive and leave', async (t) => {
  const { owner, b, slug } = await table(ctx.server);
  const socket = await connectRoom(ctx.server.url, slug, { token: owner.key });
  const bClient = await inRoom(ctx.server, b, slug, false);
  const joined = await socket.waitFor('ParticipantConnectEvent', (p) => p.data.user.uuid === b.user.uuid);
  t.is(joined.data.user.uuid, b.user.uuid);
  const hash = (bClient.pusher.channel(`presence-room.${slug}`) as any).members.members;
  t.truthy(hash[owner.user.uuid], 'the Socket.IO user is in the Pusher hash');
  socket.close();
  await bClient.waitFor('pusher_internal:member_removed', (m) => m.data.user_id === owner.user.uuid);
  bClient.close();
});

test('a roll is heard once per client although the SDK binds it on three channels, with the payload {data: roll} as GET /roll shows it', async (t) => {
  const { owner, b, slug } = await table(ctx.server);
  const bClient = await inRoom(ctx.server, b, slug);
  const made = await owner.api.post('/roll', { dice: [d('d20')], room: slug });
  t.is(made.status, 201);
  const [heard] = await bClient.waitForCount(ROLL, 1);
  await settle();
  t.is(bClient.of(ROLL).length, 1);
  t.is(heard!.channel, `presence-room.${slug}`);
  t.deepEqual(heard!.data, { data: (await b.api.get(`/roll/${made.body.data.uuid}`)).body.data });
  bClient.close();
});

test('hidden dice and whispers per viewer: each subscriber gets its own presentation, or nothing', async (t) => {
  const { owner, b, c, slug, participantId } = await table(ctx.server);
  const [ownerClient, bClient, cClient] = await Promise.all([inRoom(ctx.server, owner, slug), inRoom(ctx.server, b, slug), inRoom(ctx.server, c, slug)]);
  const hidden = (await b.api.post('/roll', { dice: [d('d20', { value: 17, is_hidden: true }), d('d6', { value: 4 })], room: slug })).body.data;
  const forOwner = (await ownerClient.waitFor(ROLL, (m) => m.data.data.uuid === hidden.uuid)).data.data;
  const forRoller = (await bClient.waitFor(ROLL, (m) => m.data.data.uuid === hidden.uuid)).data.data;
  t.is(forRoller.values[0].value, 17, 'the roller sees its hidden die');
  t.is(forOwner.values[0].value, null, 'the owner does not');
  t.false(
    forOwner.values.some((v: any) => v.value === 17 || v.value_to_display === 17 || v.value_to_display === '17'),
    'no trace of the hidden value',
  );
  t.deepEqual(forOwner, (await owner.api.get(`/roll/${hidden.uuid}`)).body.data, 'the same as REST shows the owner');

  const whisper = (await b.api.post('/roll', { dice: [d('d12')], room: slug, whisper: [participantId(c)] })).body.data;
  await cClient.waitFor(ROLL, (m) => m.data.data.uuid === whisper.uuid);
  await bClient.waitFor(ROLL, (m) => m.data.data.uuid === whisper.uuid);
  const marker = (await owner.api.post('/roll', { dice: [d('d4')], room: slug })).body.data;
  await ownerClient.waitFor(ROLL, (m) => m.data.data.uuid === marker.uuid);
  t.false(
    ownerClient.of(ROLL).some((m) => m.data.data.uuid === whisper.uuid),
    'the whisper never reached the owner',
  );
  for (const client of [ownerClient, bClient, cClient]) client.close();
});

test('a room update reaches every member presented for them (the passcode to the owner only); dice box events on private-user', async (t) => {
  const { owner, b } = await table(ctx.server);
  const slug = (await owner.api.post('/room', { is_public: false, passcode: 'open-sesame' })).body.data.slug;
  t.is((await b.api.post(`/room/${slug}/participant`, { passcode: 'open-sesame' })).status, 200);
  const [ownerClient, bClient] = await Promise.all([inRoom(ctx.server, owner, slug), inRoom(ctx.server, b, slug)]);
  t.is((await owner.api.patch(`/room/${slug}`, { name: 'Renamed' })).status, 200);
  const forOwner = await ownerClient.waitFor('App\\Events\\RoomUpdateEvent', (m) => m.data.data.name === 'Renamed');
  const forB = await bClient.waitFor('App\\Events\\RoomUpdateEvent', (m) => m.data.data.name === 'Renamed');
  t.is(forOwner.channel, `presence-room.${slug}`);
  t.deepEqual(forOwner.data.data, (await owner.api.get(`/room/${slug}`)).body.data);
  t.deepEqual(forB.data.data, (await b.api.get(`/room/${slug}`)).body.data);
  t.is(forOwner.data.data.passcode, 'open-sesame');
  t.is(forB.data.data.passcode, 'open-sesame', "a private room's participants see its passcode, as over REST");
  t.false(JSON.stringify(bClient.of('App\\Events\\RoomUpdateEvent')).includes('"passcode":null'));

  const theme = manifest();
  t.is((await postTheme(owner.api, theme)).status, 201);
  const box = await ownerClient.waitFor('App\\Events\\DiceBoxCreateEvent');
  t.is(box.channel, `private-user.${owner.user.uuid}`, 'dice box events travel on the user channel only');
  t.is(box.data.data.id, theme.id);
  await settle();
  t.is(ownerClient.of('App\\Events\\DiceBoxCreateEvent').length, 1);
  t.is(bClient.of('App\\Events\\DiceBoxCreateEvent').length, 0);
  for (const client of [ownerClient, bClient]) client.close();
});

test("refusals: a non-participant, other users' private channels, unknown channels (403); a bad or replayed signature (401)", async (t) => {
  const { owner, b, outsider, slug } = await table(ctx.server);
  const auth = (key: string | null, body: unknown) =>
    fetch(`${ctx.server.url}/broadcasting/auth`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify(body),
    });
  t.is((await auth(null, { socket_id: '1.2', channel_name: `presence-room.${slug}` })).status, 401);
  t.is((await auth(outsider.key, { socket_id: '1.2', channel_name: `presence-room.${slug}` })).status, 403);
  t.is((await auth(outsider.key, { socket_id: '1.2', channel_name: `presence-room.no-such-room` })).status, 403);
  t.is((await auth(b.key, { socket_id: '1.2', channel_name: `private-user.${owner.user.uuid}` })).status, 403);
  t.is((await auth(b.key, { socket_id: '1.2', channel_name: `private-room.${slug}.${owner.user.uuid}` })).status, 403);
  t.is((await auth(outsider.key, { socket_id: '1.2', channel_name: `private-room.${slug}.${outsider.user.uuid}` })).status, 403);
  t.is((await auth(b.key, { socket_id: '1.2', channel_name: 'public-channel' })).status, 403);
  const bad = await auth(b.key, { socket_id: 'nope', channel_name: `presence-room.${slug}` });
  t.is(bad.status, 400);
  t.is(((await bad.json()) as any).data.details[0].path, 'socket_id');

  const outsiderClient = await connectPusher(ctx.server.url, { key: outsider.key });
  const refused = await t.throwsAsync(outsiderClient.subscribe(`presence-room.${slug}`));
  t.regex(refused!.message, /403/);
  outsiderClient.close();

  // A grant signed for another connection is refused by the gateway.
  const bClient = await connectPusher(ctx.server.url, { key: b.key });
  const grant = (await (await auth(b.key, { socket_id: '123.456', channel_name: `presence-room.${slug}` })).json()) as any;
  const ws = new WebSocket(`${ctx.server.url.replace('http', 'ws')}/app/${SDK_KEY}?protocol=7`);
  await nextFrame(ws, 'pusher:connection_established');
  ws.send(JSON.stringify({ event: 'pusher:subscribe', data: { channel: `presence-room.${slug}`, auth: grant.auth, channel_data: grant.channel_data } }));
  const answer = await nextFrame(ws, 'the answer to pusher:subscribe');
  t.is(answer.event, 'pusher:subscription_error');
  t.is(JSON.parse(answer.data).status, 401);
  // The right socket, with channel_data changed after signing: refused too.
  ws.close();
  bClient.close();
});

test("pusher-js's own form-encoded authoriser works as well as the SDK's JSON one", async (t) => {
  const { b, slug } = await table(ctx.server);
  const client = await connectPusher(ctx.server.url, { key: b.key, formAuth: true });
  const presence = await client.subscribe(`presence-room.${slug}`);
  const personal = await client.subscribe(`private-user.${b.user.uuid}`);
  t.true(presence.subscribed, 'the presence channel is granted');
  t.true(personal.subscribed, 'the private channel is granted');
  client.close();
});

test('losing access ends the subscription: a removed participant gets subscription_error, the others member_removed; a revoked key likewise', async (t) => {
  const { owner, b, c, slug, participantId } = await table(ctx.server);
  const [ownerClient, bClient, cClient] = await Promise.all([
    inRoom(ctx.server, owner, slug, false),
    inRoom(ctx.server, b, slug, false),
    inRoom(ctx.server, c, slug, false),
  ]);
  t.is((await owner.api.delete(`/room/${slug}/participant/${participantId(b)}`)).status, 204);
  const error = await bClient.waitFor('pusher:subscription_error');
  t.is(error.channel, `presence-room.${slug}`);
  await ownerClient.waitFor('pusher_internal:member_removed', (m) => m.data.user_id === b.user.uuid);
  await owner.api.post('/roll', { dice: [d('d6')], room: slug });
  await ownerClient.waitForCount(ROLL, 1);
  await settle();
  t.is(bClient.of(ROLL).length, 0, 'the removed participant hears no more rolls');

  // c revokes (with another key) the key its subscription was authorised with.
  const other = (await c.api.post('/user/key', {})).body.data;
  const keys = (await c.api.get('/user/key')).body.data;
  t.is(keys.length, 2);
  const first = keys.find((k: any) => k.prefix !== other.prefix);
  t.is((await c.api.as(other.key).delete(`/user/key/${first.prefix}`)).status, 204);
  const revoked = await cClient.waitFor('pusher:subscription_error');
  t.is(revoked.data.status, 401);
  for (const client of [ownerClient, bClient, cClient]) client.close();
});

test('client events: relayed to the other subscribers, never echoed, filtered per recipient (whispers dropped, hidden values stripped, foreign dice dropped), rate-limited', async (t) => {
  const { owner, b, c, slug, participantId } = await table(ctx.server);
  const [ownerClient, bClient, cClient] = await Promise.all([inRoom(ctx.server, owner, slug), inRoom(ctx.server, b, slug), inRoom(ctx.server, c, slug)]);
  const open = (await owner.api.post('/roll', { dice: [d('d6', { value: 5 })], room: slug })).body.data;
  const hidden = (await owner.api.post('/roll', { dice: [d('d20', { value: 13, is_hidden: true })], room: slug })).body.data;
  const whisper = (await owner.api.post('/roll', { dice: [d('d8', { value: 7 })], room: slug, whisper: [participantId(b)] })).body.data;
  const elsewhere = (await owner.api.post('/roll', { dice: [d('d4')] })).body.data;
  const presence = ownerClient.pusher.channel(`presence-room.${slug}`)!;
  const die = (roll: any, value?: number) => ({ uuid: roll.values[0].uuid, meta: { position: { x: 12.5, z: 40 } }, ...(value === undefined ? {} : { value }) });
  presence.trigger('client-RollValueMoveEvent', { dice: [die(open, 5), die(hidden, 13), die(whisper, 7), die(elsewhere)], room: slug, junk: 'x'.repeat(10) });

  const forB = (await bClient.waitFor('client-RollValueMoveEvent')).data;
  const forC = (await cClient.waitFor('client-RollValueMoveEvent')).data;
  t.deepEqual(forB, { dice: [die(open), die(hidden), die(whisper)], room: slug }, 'b sees the whisper to b; no value travels');
  t.deepEqual(forC, { dice: [die(open), die(hidden)], room: slug }, 'c gets nothing of the whisper');
  t.is((await cClient.waitFor('client-RollValueMoveEvent')).user_id, owner.user.uuid, 'presence relays carry the sender');
  t.false(JSON.stringify(cClient.messages).includes(whisper.uuid));
  t.false(JSON.stringify(cClient.messages).includes(whisper.values[0].uuid));
  await settle();
  t.is(ownerClient.of('client-RollValueMoveEvent').length, 0, 'never echoed to the sender');

  // Only dice of rolls nobody may see: nothing is relayed at all.
  presence.trigger('client-RollValueMoveEvent', { dice: [die(elsewhere)], room: slug });
  // Something else than a move on the room's presence channel is refused with a message.
  presence.trigger('client-Chat', { text: 'hi' });
  const refused = await ownerClient.waitFor('pusher:error');
  t.is(refused.data.code, 4300);
  // Over ten a second: pusher:error 4301, and the connection stays.
  for (let i = 0; i < 15; i++) presence.trigger('client-RollValueMoveEvent', { dice: [die(open)], room: slug });
  const limited = await ownerClient.waitFor('pusher:error', (m) => m.data.code === 4301);
  t.truthy(limited);
  await settle();
  t.true(bClient.of('client-RollValueMoveEvent').length <= 11, 'what went over the limit was not relayed');
  t.is(ownerClient.pusher.connection.state, 'connected');
  for (const client of [ownerClient, bClient, cClient]) client.close();
});

test('a grant is bound to its channel_data: changed after signing, the subscription is refused (401)', async (t) => {
  const { b, slug } = await table(ctx.server);
  const ws = new WebSocket(`${ctx.server.url.replace('http', 'ws')}/app/${SDK_KEY}?protocol=7`);
  const hello = await nextFrame(ws, 'pusher:connection_established');
  const socketId = JSON.parse(hello.data).socket_id;
  const grant = (await (
    await fetch(`${ctx.server.url}/broadcasting/auth`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${b.key}` },
      body: JSON.stringify({ socket_id: socketId, channel_name: `presence-room.${slug}` }),
    })
  ).json()) as any;
  const forged = JSON.stringify({ ...JSON.parse(grant.channel_data), user_id: '00000000-0000-4000-8000-000000000000' });
  const answer = (data: unknown) => {
    const answered = nextFrame(ws, 'the answer to pusher:subscribe');
    ws.send(JSON.stringify({ event: 'pusher:subscribe', data }));
    return answered;
  };
  const refused = await answer({ channel: `presence-room.${slug}`, auth: grant.auth, channel_data: forged });
  t.is(refused.event, 'pusher:subscription_error');
  t.is(JSON.parse(refused.data).status, 401);
  const accepted = await answer({ channel: `presence-room.${slug}`, auth: grant.auth, channel_data: grant.channel_data });
  t.is(accepted.event, 'pusher_internal:subscription_succeeded');
  t.deepEqual(Object.keys(JSON.parse(accepted.data).presence.hash), [b.user.uuid]);
  ws.close();
});

test("a die put down through PATCH /roll (the renderer's drag end) reaches the others in RollUpdateEvent with meta.position", async (t) => {
  const { owner, b, slug } = await table(ctx.server);
  const bClient = await inRoom(ctx.server, b, slug);
  const made = (await owner.api.post('/roll', { dice: [d('d6')], room: slug })).body.data;
  t.is(
    (await owner.api.patch(`/roll/${made.uuid}`, { dice: [{ uuid: made.values[0].uuid, meta: { position: { x: 33.3, z: 66.6 } } }], room: slug })).status,
    200,
  );
  const update = await bClient.waitFor('App\\Events\\RollUpdateEvent', (m) => m.data.data.uuid === made.uuid);
  t.deepEqual(update.data.data.values[0].meta.position, { x: 33.3, z: 66.6 });
  bClient.close();
});
