import { randomBytes } from 'node:crypto';
import test from 'ava';
import { encode as msgpack } from 'notepack.io';
import { masterOf } from '../../src/lib/redis';
import { redisClient, startCluster, type Cluster } from '../helpers/cluster';
import { closeAllPusher, connectPusher, type PusherClient } from '../helpers/pusher';
import { closeAll, connectWelcomed, type Client } from '../helpers/sockets';

// Malformed messages on every pub/sub channel an instance listens to (the control channel, the
// Socket.IO adapter's channels, classic and sharded): whoever can PUBLISH on the deployment's Redis
// sends them. Each is dropped with a log line; the instance, its sockets and its Pusher
// subscriptions go on, and a roll made afterwards still reaches them. Each deployment has a prefix of
// its own, so that no other test's instances hear this garbage.
const deployments: Array<{ mode: 'sharded' | 'classic'; cluster: Cluster; prefix: string }> = [];
const clients: Client[] = [];
const redis = redisClient();

test.before(async () => {
  const started = await Promise.all(
    (['sharded', 'classic'] as const).map(async (mode) => {
      const prefix = `garbage-${mode}-${randomBytes(4).toString('hex')}:`;
      return { mode, prefix, cluster: await startCluster(1, { REDIS_PREFIX: prefix, REDIS_PUBSUB: mode }) };
    }),
  );
  deployments.push(...started);
});
test.after.always(async () => {
  closeAll(...clients);
  closeAllPusher();
  redis.disconnect();
  await Promise.all(deployments.map((d) => d.cluster.stop()));
});

/**
 * What a stranger might PUBLISH, for a room `slug`: bytes, JSON and msgpack of every wrong shape.
 * `socketSafe`: only packets whose data is an event and its arguments, for a room with Socket.IO
 * sockets: the adapter hands a decoded packet to its sockets as it is, and socket.io-client throws on
 * an event that is not an array (a client's problem, not the server's: the other room gets those).
 */
function garbage(slug: string, socketSafe: boolean): Buffer[] {
  const nsp = `/room/${slug}`;
  const evil = { toString: 1, valueOf: 1, __proto__: { x: 1 } };
  const malformed = [undefined, 5, { nsp, type: 2 }, { nsp, type: 2, data: 'x' }, { nsp, type: 2, data: [5] }];
  const packets = [
    ...(socketSafe ? [] : malformed),
    { nsp, type: 2, data: ['PusherClientEvent'] },
    { nsp, type: 2, data: ['PusherClientEvent', 5] },
    { nsp, type: 2, data: ['PusherClientEvent', { data: { event: evil, channel: `presence-room.${slug}`, userUuid: 5 } }] },
    { nsp, type: 2, data: ['PusherClientEvent', { data: { event: 'client-x', channel: `presence-room.${slug}`, userUuid: 'u', payload: evil } }] },
    { nsp, type: 2, data: ['ParticipantConnectEvent', { data: { user: { uuid: evil } } }] },
    { nsp, type: 2, data: ['ParticipantDisconnectEvent', 'x'] },
    { nsp, type: 2, data: ['RollCreateEvent', { data: evil, seq: 'x' }] },
  ];
  const opts = [undefined, 5, { rooms: 5 }, { rooms: [], except: [] }, { rooms: ['members'], except: 7 }, { rooms: [], flags: 'x' }];
  const messages: unknown[] = [];
  for (const packet of packets) {
    for (const opt of opts) {
      // The classic adapter's [uid, packet, opts] and the sharded adapter's {uid, nsp, type, data}.
      messages.push(['emitter', packet, opt]);
      messages.push({ uid: 'emitter', nsp, type: 3, data: { packet, opts: opt } });
    }
  }
  messages.push(
    { uid: 'emitter', nsp, type: 3 },
    { uid: 'emitter', nsp, type: 6, data: 5 },
    { uid: 'emitter', nsp, type: 99, data: {} },
    { uid: 'x', nsp, type: 3, data: null },
    [],
    null,
    'x',
    5,
  );
  return [
    ...messages.map((m) => msgpack(m) as Buffer),
    ...messages.map((m) => Buffer.from(JSON.stringify(m) ?? 'null')),
    ...[
      '',
      '{',
      'null',
      '[]',
      '{"type":"resync","namespaces":5}',
      '{"type":"resync","namespaces":[{"toString":1}],"before":1}',
      '{"type":"revoke_keys","keyIds":"1"}',
      '{"type":"invalidate","rooms":[{"valueOf":1}]}',
    ].map((s) => Buffer.from(s)),
    ...Array.from({ length: 20 }, (_, i) => randomBytes(1 + i * 7)),
  ];
}

for (const mode of ['sharded', 'classic'] as const) {
  test(`${mode}: malformed messages on every channel an instance hears are dropped; the instance, its sockets and Pusher channels go on`, async (t) => {
    const { cluster, prefix } = deployments.find((d) => d.mode === mode)!;
    const instance = cluster.instances[0]!;
    const key = prefix.replace(/:$/, '');
    const owner = await cluster.newUser();
    // Room `slug`: a Socket.IO socket and a Pusher channel; room `other`: a Pusher channel only.
    const [slug, other] = await Promise.all([0, 1].map(async () => (await owner.api.post('/room', { name: 'Garbage' })).body.data.slug as string));
    const socket = await connectWelcomed(instance.url, slug!, { token: owner.key }, clients);
    const pusher: PusherClient = await connectPusher(instance.url, { key: owner.key });
    await pusher.subscribe(`presence-room.${slug}`);
    await pusher.subscribe(`presence-room.${other}`);

    let sent = 0;
    const publishAll = async (room: string, socketSafe: boolean) => {
      const nsp = `/room/${room}`;
      const plain = [
        `${prefix}realtime:control`,
        `${key}#${nsp}#`,
        `${key}#${nsp}#members#`,
        `${key}#/#`,
        `${key}#/user#`,
        `${key}-request#${nsp}#`,
        `${key}-request#/#`,
        `${key}-response#${nsp}#`,
      ];
      const sharded = [`${key}#${nsp}#`, `${key}#/#`, `${key}#/user#`];
      for (const message of garbage(room, socketSafe)) {
        for (const channel of plain) {
          await masterOf(redis, channel).publish(channel, message);
          sent++;
        }
        if (mode === 'sharded') {
          for (const channel of sharded) {
            await masterOf(redis, channel).spublish(channel, message);
            sent++;
          }
        }
      }
    };
    await publishAll(slug!, true);
    await publishAll(other!, false);

    const health = await fetch(`${instance.url}/healthz`);
    t.is(health.status, 200);
    t.is(instance.child.exitCode, null, 'the instance is still running');
    t.true(socket.socket.connected);
    const made = (await owner.api.post('/roll', { dice: [{ type: 'd6', theme: 'standard' }], room: slug })).body.data;
    await socket.waitFor('RollCreateEvent', (p) => p?.data?.uuid === made.uuid);
    await pusher.waitFor('App\\Events\\RollCreateEvent', (m) => m.data?.data?.uuid === made.uuid);
    const elsewhere = (await owner.api.post('/roll', { dice: [{ type: 'd6', theme: 'standard' }], room: other })).body.data;
    await pusher.waitFor('App\\Events\\RollCreateEvent', (m) => m.channel === `presence-room.${other}` && m.data?.data?.uuid === elsewhere.uuid);
    const dropped = instance
      .output()
      .split('\n')
      .filter((l) => l.includes('could not be handled')).length;
    t.log(`${mode}: ${sent} malformed messages published; ${dropped} of them failed in a listener and were dropped`);
  });
}
