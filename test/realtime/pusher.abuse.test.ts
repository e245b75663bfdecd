import test from 'ava';
import { useServer, type TestServer } from '../helpers/server';
import { closeAllPusher, connectPusher, type PusherClient } from '../helpers/pusher';
import { RawPusher } from '../helpers/pusherRaw';

// What one Pusher client may make the gateway do (docs/reliability.md, "Realtime resource limits"):
// client events only on a room's presence channel and only about the sender's own dice, never a value
// taken from it; a byte budget per connection; subscribe/unsubscribe loops limited; no internal ids.
const ctx = useServer(test);
const raws: RawPusher[] = [];
test.after.always(() => {
  closeAllPusher();
  for (const raw of raws) raw.close();
});

type User = Awaited<ReturnType<TestServer['newUser']>>;
const d = (type: string, extra: Record<string, unknown> = {}) => ({ type, theme: 'standard', ...extra });
const settle = () => new Promise((r) => setTimeout(r, 300));

async function table(server: TestServer) {
  const [owner, b, c] = await Promise.all([server.newUser(), server.newUser(), server.newUser()]);
  const slug = (await owner.api.post('/room', {})).body.data.slug as string;
  for (const u of [b, c]) if ((await u.api.post(`/room/${slug}/participant`)).status !== 200) throw new Error('join failed');
  return { owner, b, c, slug };
}

async function inRoom(user: User, slug: string): Promise<PusherClient> {
  const client = await connectPusher(ctx.server.url, { key: user.key });
  await client.subscribe(`presence-room.${slug}`);
  await client.subscribe(`private-room.${slug}.${user.user.uuid}`);
  await client.subscribe(`private-user.${user.user.uuid}`);
  return client;
}

async function raw(): Promise<RawPusher> {
  const client = await RawPusher.connect(ctx.server.url);
  raws.push(client);
  return client;
}

test("drags: only the sender's own dice are relayed, with their position (and rotation), never a value the sender chose", async (t) => {
  const { owner, b, c, slug } = await table(ctx.server);
  const [ownerClient, bClient, cClient] = await Promise.all([inRoom(owner, slug), inRoom(b, slug), inRoom(c, slug)]);
  const mine = (await owner.api.post('/roll', { dice: [d('d6', { value: 5 })], room: slug })).body.data;
  const theirs = (await b.api.post('/roll', { dice: [d('d6', { value: 2 })], room: slug })).body.data;
  const position = { x: 12.5, z: 40 };
  const rotation = { x: 0, y: 0.7071, z: 0, w: 0.7071 };
  // The stock renderer turns `value` face up on every board (shiftUpsideValue): a spoofed 1 on my die, a 6 on b's.
  ownerClient.pusher.channel(`presence-room.${slug}`)!.trigger('client-RollValueMoveEvent', {
    dice: [
      { uuid: mine.values[0].uuid, meta: { position, rotation }, value: 1 },
      { uuid: theirs.values[0].uuid, meta: { position }, value: 6 },
    ],
    room: slug,
  });
  for (const client of [bClient, cClient]) {
    const heard = await client.waitFor('client-RollValueMoveEvent');
    t.deepEqual(
      heard.data,
      { dice: [{ uuid: mine.values[0].uuid, meta: { position, rotation } }], room: slug },
      "b's die is not the owner's to move; no value travels",
    );
  }
  // The SDK's own frames (start and end carry only uuids) still pass.
  ownerClient.pusher.channel(`presence-room.${slug}`)!.trigger('client-RollValueMoveEndEvent', { dice: [{ uuid: mine.values[0].uuid }] });
  t.deepEqual((await cClient.waitFor('client-RollValueMoveEndEvent')).data, { dice: [{ uuid: mine.values[0].uuid }], room: slug });
  // Only someone else's dice: nothing is relayed at all.
  ownerClient.pusher.channel(`presence-room.${slug}`)!.trigger('client-RollValueMoveStartEvent', { dice: [{ uuid: theirs.values[0].uuid, value: 6 }] });
  await settle();
  t.is(cClient.of('client-RollValueMoveStartEvent').length, 0);
  const relayed = [...bClient.messages, ...cClient.messages].filter((m) => m.event.startsWith('client-'));
  t.is(relayed.length, 4, 'one move and one end each');
  t.false(JSON.stringify(relayed).includes('"value"'));
  for (const client of [ownerClient, bClient, cClient]) client.close();
});

test('client events on private channels are refused with pusher:error and copied to nobody, however many connections the user holds', async (t) => {
  const { owner, slug } = await table(ctx.server);
  const channel = `private-user.${owner.user.uuid}`;
  const roomChannel = `private-room.${slug}.${owner.user.uuid}`;
  const connections = await Promise.all(
    Array.from({ length: 40 }, async () => {
      const client = await raw();
      t.is((await client.subscribe(owner.key, channel)).event, 'pusher_internal:subscription_succeeded');
      t.is((await client.subscribe(owner.key, roomChannel)).event, 'pusher_internal:subscription_succeeded');
      return client;
    }),
  );
  const [sender, ...others] = connections;
  const payload = { pad: 'x'.repeat(8000) };
  sender!.send('client-Anything', payload, channel);
  sender!.send('client-RollValueMoveEvent', payload, roomChannel);
  const refusals = await sender!.until(() => (sender!.of('pusher:error').length >= 2 ? sender!.of('pusher:error') : null), 'two refusals');
  t.deepEqual(
    refusals.map((f) => f.data.code),
    [4300, 4300],
  );
  t.regex(refusals[0]!.data.message, /presence/);
  await settle();
  for (const other of others) t.is(other.frames.filter((f) => f.event.startsWith('client-')).length, 0);
});

test('a connection over its byte budget (SOCKET_BYTES_PER_SECOND) is closed with 4100, whatever it sends', async (t) => {
  const client = await raw();
  // Ten 15 KB frames at once: far under 50 messages a second, far over 64 KiB/s.
  for (let i = 0; i < 10; i++) client.send('pusher:ping', { pad: 'x'.repeat(15_000) });
  const closed = await client.waitForClose(5000);
  t.is(closed.code, 4100);
  t.regex(closed.reason, /bytes/);
});

test('subscribe/unsubscribe loops are limited: the connection is closed with 4100 long before the loop ends', async (t) => {
  const { owner, b, slug } = await table(ctx.server);
  const watcher = await inRoom(b, slug);
  const churner = await raw();
  const channel = `presence-room.${slug}`;
  const grant = await churner.grant(owner.key, channel);
  let succeeded = 0;
  for (let i = 0; i < 60 && !churner.closed; i++) {
    const answer = await Promise.race([churner.subscribe(owner.key, channel, grant), churner.waitForClose().then(() => null)]);
    if (answer?.event === 'pusher_internal:subscription_succeeded') succeeded++;
    churner.send('pusher:unsubscribe', { channel });
  }
  const closed = await churner.waitForClose(5000);
  t.is(closed.code, 4100);
  t.regex(closed.reason, /subscri/);
  t.true(succeeded < 60, `${succeeded} subscriptions went through`);
  t.true(watcher.of('pusher_internal:member_added').length <= succeeded);
  watcher.close();
});

test('channel_data names the API key by an opaque reference, never its sequential id; member info carries neither', async (t) => {
  const { owner, b, slug } = await table(ctx.server);
  const { findKeyByHash } = await import('../../src/users/store');
  const { createHash } = await import('node:crypto');
  const keyId = (await findKeyByHash(createHash('sha256').update(owner.key).digest('hex')))!.keyId;
  const client = await raw();
  const grants = await Promise.all(
    [`presence-room.${slug}`, `private-room.${slug}.${owner.user.uuid}`, `private-user.${owner.user.uuid}`].map((c) => client.grant(owner.key, c)),
  );
  for (const grant of grants) {
    const data = JSON.parse(grant.channel_data!);
    t.false('key_id' in data);
    const { user_info: _info, ...rest } = data;
    t.deepEqual(Object.keys(rest).sort(), ['key', 'user_id']);
    t.regex(rest.key, /^[0-9a-f]{32}$/);
    t.not(rest.key, String(keyId));
  }
  // A second key of the same user: another reference; the first one's subscription still works.
  const second = (await owner.api.post('/user/key', {})).body.data;
  const other = JSON.parse((await client.grant(second.key, `private-user.${owner.user.uuid}`)).channel_data!);
  t.not(other.key, JSON.parse(grants[2]!.channel_data!).key);
  t.is((await client.subscribe(owner.key, `presence-room.${slug}`, grants[0])).event, 'pusher_internal:subscription_succeeded');
  const watcher = await inRoom(b, slug);
  const hash = (watcher.pusher.channel(`presence-room.${slug}`) as any).members.members;
  t.false(JSON.stringify(hash).includes('key_id'));
  watcher.close();
});
