import test from 'ava';
import { useCluster, type TestUser } from '../helpers/cluster';
import { closeAllPusher, connectPusher, type PusherClient } from '../helpers/pusher';

// The Pusher gateway on two instances sharing PostgreSQL and Redis, no sticky sessions: a grant
// signed by one instance is taken by the other, presence is cluster-wide, room events and client
// events cross instances through Redis, each presented per viewer.
const cluster = useCluster(test, 2);
test.after.always(closeAllPusher);

const ROLL = 'App\\Events\\RollCreateEvent';
const d = (type: string, extra: Record<string, unknown> = {}) => ({ type, theme: 'standard', ...extra });

async function table() {
  const { newUser } = cluster.current;
  const [owner, b, c] = await Promise.all([newUser(0), newUser(1), newUser(0)]);
  const slug = (await owner.api.post('/room', {})).body.data.slug as string;
  for (const u of [b, c]) if ((await u.api.post(`/room/${slug}/participant`)).status !== 200) throw new Error('join failed');
  const room = (await owner.api.get(`/room/${slug}`)).body.data;
  const participantId = (u: TestUser) => room.participants.find((p: any) => p.user.uuid === u.user.uuid).id as number;
  return { owner, b, c, slug, participantId };
}

/** Authorised on instance `authOn`, connected to instance `wsOn`. */
async function inRoom(user: TestUser, slug: string, wsOn: number, authOn: number): Promise<PusherClient> {
  const [ws, auth] = [cluster.current.instances[wsOn]!.url, cluster.current.instances[authOn]!.url];
  const client = await connectPusher(ws, { key: user.key, authBase: auth });
  await client.subscribe(`presence-room.${slug}`);
  await client.subscribe(`private-room.${slug}.${user.user.uuid}`);
  await client.subscribe(`private-user.${user.user.uuid}`);
  return client;
}

test('a grant from one instance works on the other; presence spans instances; member_added and member_removed cross them', async (t) => {
  const { owner, b, slug } = await table();
  const ownerClient = await inRoom(owner, slug, 0, 1);
  const bClient = await inRoom(b, slug, 1, 0);
  const hash = (bClient.pusher.channel(`presence-room.${slug}`) as any).members.members;
  t.deepEqual(Object.keys(hash).sort(), [owner.user.uuid, b.user.uuid].sort(), "b's hash on instance 1 lists the owner connected to instance 0");
  const added = await ownerClient.waitFor('pusher_internal:member_added');
  t.is(added.data.user_id, b.user.uuid);
  bClient.close();
  const removed = await ownerClient.waitFor('pusher_internal:member_removed');
  t.is(removed.data.user_id, b.user.uuid);
  t.is(ownerClient.of('pusher_internal:member_added').length, 1);
  ownerClient.close();
});

test('a roll made through one instance is heard once on both, per viewer: a hidden die and a whisper', async (t) => {
  const { owner, b, c, slug, participantId } = await table();
  const [ownerClient, bClient, cClient] = await Promise.all([inRoom(owner, slug, 0, 0), inRoom(b, slug, 1, 1), inRoom(c, slug, 1, 0)]);
  const made = (await owner.api.post('/roll', { dice: [d('d20', { value: 11, is_hidden: true }), d('d6')], room: slug })).body.data;
  const forB = await bClient.waitFor(ROLL, (m) => m.data.data.uuid === made.uuid);
  const forOwner = await ownerClient.waitFor(ROLL, (m) => m.data.data.uuid === made.uuid);
  t.is(forOwner.data.data.values[0].value, 11);
  t.is(forB.data.data.values[0].value, null);
  t.deepEqual(forB.data.data, (await b.api.get(`/roll/${made.uuid}`)).body.data);

  const whisper = (await b.api.post('/roll', { dice: [d('d8')], room: slug, whisper: [participantId(owner)] })).body.data;
  await ownerClient.waitFor(ROLL, (m) => m.data.data.uuid === whisper.uuid);
  const marker = (await owner.api.post('/roll', { dice: [d('d4')], room: slug })).body.data;
  await cClient.waitFor(ROLL, (m) => m.data.data.uuid === marker.uuid);
  t.false(
    cClient.of(ROLL).some((m) => m.data.data.uuid === whisper.uuid),
    'the whisper never reached c on the other instance',
  );
  for (const client of [ownerClient, bClient, cClient]) t.is(client.of(ROLL).filter((m) => m.data.data.uuid === made.uuid).length, 1, 'once each');
  for (const client of [ownerClient, bClient, cClient]) client.close();
});

test('client events cross instances, filtered per recipient, never echoed', async (t) => {
  const { owner, b, c, slug, participantId } = await table();
  const [ownerClient, bClient, cClient] = await Promise.all([inRoom(owner, slug, 0, 1), inRoom(b, slug, 1, 1), inRoom(c, slug, 0, 0)]);
  const open = (await owner.api.post('/roll', { dice: [d('d6')], room: slug })).body.data;
  const whisper = (await owner.api.post('/roll', { dice: [d('d6')], room: slug, whisper: [participantId(b)] })).body.data;
  const die = (roll: any) => ({ uuid: roll.values[0].uuid, meta: { position: { x: 50, z: 50 } } });
  ownerClient.pusher.channel(`presence-room.${slug}`)!.trigger('client-RollValueMoveEvent', { dice: [die(open), die(whisper)], room: slug });
  t.deepEqual((await bClient.waitFor('client-RollValueMoveEvent')).data.dice, [die(open), die(whisper)]);
  t.deepEqual((await cClient.waitFor('client-RollValueMoveEvent')).data.dice, [die(open)]);
  await new Promise((r) => setTimeout(r, 300));
  t.is(ownerClient.of('client-RollValueMoveEvent').length, 0);
  t.is(bClient.of('client-RollValueMoveEvent').length, 1);
  for (const client of [ownerClient, bClient, cClient]) client.close();
});

test('a participant removed through one instance loses the subscription held on the other', async (t) => {
  const { owner, b, slug, participantId } = await table();
  const ownerClient = await inRoom(owner, slug, 0, 0);
  const bClient = await inRoom(b, slug, 1, 1);
  t.is((await owner.api.delete(`/room/${slug}/participant/${participantId(b)}`)).status, 204);
  const error = await bClient.waitFor('pusher:subscription_error');
  t.is(error.channel, `presence-room.${slug}`);
  await ownerClient.waitFor('pusher_internal:member_removed', (m) => m.data.user_id === b.user.uuid);
  ownerClient.close();
  bClient.close();
});
