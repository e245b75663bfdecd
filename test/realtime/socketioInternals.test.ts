import test from 'ava';
import { io as connect, type Socket as ClientSocket } from 'socket.io-client';
import type { Namespace, Socket } from 'socket.io';
import {
  adapterInternals,
  connectionWriter,
  createChildNamespace,
  engineWebSocket,
  forgetChildNamespace,
  handshakesUnderWay,
  namespacesOf,
  outgoingNotifier,
  redisAdapterChannels,
  writePreEncoded,
} from '../../src/realtime/socketioInternals';
import { TEST_REDIS_URL } from '../helpers/env';
import { useServer } from '../helpers/server';
import { withDeadline } from '../helpers/deadline';

/**
 * Each assumption src/realtime/socketioInternals.ts makes about Socket.IO's private parts, exercised on a
 * live server: after an upgrade of socket.io, socket.io-adapter, engine.io or @socket.io/redis-adapter,
 * a failure here names the function of that module whose assumption broke. Namespaces of its own
 * (`/probe-*`, no middleware) keep it apart from the service's.
 */

const ctx = useServer(test, TEST_REDIS_URL ? { REDIS_URL: TEST_REDIS_URL, PUSHER_APP_SECRET: 'test-pusher-secret-0123456789' } : {});
const MODULE = 'src/realtime/socketioInternals.ts';
const broke = (fn: string, what: string) => `${MODULE} ${fn}(): ${what} — Socket.IO's internals changed; read the module's notes before upgrading`;

// ava runs `before` hooks at once: the parent is made on first use, once the server is up.
let parentNamespace: Namespace | undefined;
const probeParent = () => (parentNamespace ??= ctx.server.io.of(/^\/probe-[a-z0-9]+$/));

const clients: ClientSocket[] = [];
test.after.always(() => {
  for (const c of clients) c.disconnect();
});

/** A client connected to probe namespace `name` (over websocket unless told), and its socket on the server. */
async function probeSocket(name: string, transports: Array<'websocket' | 'polling'> = ['websocket']): Promise<{ client: ClientSocket; socket: Socket }> {
  probeParent();
  const client = connect(`${ctx.server.url}${name}`, { transports, forceNew: true, reconnection: false });
  clients.push(client);
  await withDeadline(
    new Promise<void>((resolve, reject) => {
      client.once('connect', () => resolve());
      client.once('connect_error', reject);
    }),
    10_000,
    `a connection to ${name}`,
  );
  const socket = namespacesOf(ctx.server.io).get(name)?.sockets.get(client.id!);
  if (!socket) throw new Error(broke('namespacesOf', `no server socket ${client.id} in ${name}`));
  return { client, socket };
}

test.serial("namespacesOf: the server's live namespaces, by name, without creating any", async (t) => {
  const all = namespacesOf(ctx.server.io);
  t.true(all instanceof Map, broke('namespacesOf', 'Server._nsps is not a Map'));
  t.true(all.has('/user'), broke('namespacesOf', 'the /user namespace is not listed'));
  await probeSocket('/probe-a');
  t.true(namespacesOf(ctx.server.io).has('/probe-a'), broke('namespacesOf', 'a child namespace made by a connection is not listed'));
  t.false(namespacesOf(ctx.server.io).has('/probe-never'), 'looking does not create');
});

test.serial("createChildNamespace and forgetChildNamespace: a parent's child made and forgotten as Socket.IO does", (t) => {
  const child = createChildNamespace(probeParent(), '/probe-b');
  t.is(namespacesOf(ctx.server.io).get('/probe-b'), child, broke('createChildNamespace', 'the child is not registered in Server._nsps'));
  const children = (probeParent() as unknown as { children?: Set<Namespace> }).children;
  t.true(children instanceof Set && children.has(child), broke('forgetChildNamespace', 'ParentNamespace.children is not a Set holding its children'));
  t.true(forgetChildNamespace(ctx.server.io, probeParent(), child));
  t.false(namespacesOf(ctx.server.io).has('/probe-b'), broke('forgetChildNamespace', 'the child stayed in Server._nsps'));
  t.false(children!.has(child), broke('forgetChildNamespace', "the child stayed in the parent's children"));
  t.false(forgetChildNamespace(ctx.server.io, probeParent(), child), 'a namespace already forgotten is left alone');
});

test.serial('handshakesUnderWay: counts a socket whose middleware has not finished', async (t) => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const gated = ctx.server.io.of('/probe-gated');
  gated.use((_socket, next) => void held.then(() => next()));
  const pending = (gated as unknown as { _preConnectSockets?: unknown })._preConnectSockets;
  t.true(pending instanceof Map, broke('handshakesUnderWay', 'Namespace._preConnectSockets is not a Map'));
  const client = connect(`${ctx.server.url}/probe-gated`, { transports: ['websocket'], forceNew: true, reconnection: false });
  clients.push(client);
  await waitFor(() => handshakesUnderWay(gated) === 1, broke('handshakesUnderWay', 'a socket in its middleware is not counted'));
  release();
  await withDeadline(new Promise<void>((resolve) => client.once('connect', () => resolve())), 10_000, 'the gated connection');
  t.is(handshakesUnderWay(gated), 0, broke('handshakesUnderWay', 'a connected socket is still counted as a handshake'));
});

test.serial('writePreEncoded: a packet encoded once reaches the client as an event', async (t) => {
  const { client, socket } = await probeSocket('/probe-c');
  const heard = new Promise<unknown>((resolve) => client.once('probe', resolve));
  const encoded = socket.nsp.server.encoder.encode({ type: 2, nsp: socket.nsp.name, data: ['probe', { n: 1 }] });
  writePreEncoded(socket, encoded);
  t.deepEqual(await withDeadline(heard, 10_000, 'the pre-encoded event'), { n: 1 }, broke('writePreEncoded', 'Client._packet with preEncoded did not deliver'));
});

test.serial('connectionWriter and outgoingNotifier: every write goes through writeToEngine, broadcasts after notifyOutgoingListeners', async (t) => {
  const { client, socket } = await probeSocket('/probe-d');
  const writer = connectionWriter(socket);
  const notifier = outgoingNotifier(socket);
  t.is(typeof writer.writeToEngine, 'function', broke('connectionWriter', 'Client.writeToEngine is not a function'));
  t.is(typeof notifier.notifyOutgoingListeners, 'function', broke('outgoingNotifier', 'Socket.notifyOutgoingListeners is not a function'));
  const seen: string[] = [];
  const write = writer.writeToEngine;
  const notify = notifier.notifyOutgoingListeners;
  writer.writeToEngine = function (packets, opts) {
    seen.push('write');
    write.call(this, packets, opts);
  };
  notifier.notifyOutgoingListeners = function (packet) {
    seen.push(`notify:${String(packet.data?.[0])}`);
    notify.call(this, packet);
  };
  try {
    const direct = new Promise((resolve) => client.once('direct', resolve));
    socket.emit('direct', 1);
    await withDeadline(direct, 10_000, 'the direct emit');
    t.deepEqual(
      seen,
      ['notify:direct', 'write'],
      broke('connectionWriter', 'an emit is not announced with its decoded packet, then written through writeToEngine'),
    );
    seen.length = 0;
    await socket.join('probe-room');
    const broadcast = new Promise((resolve) => client.once('broadcast', resolve));
    socket.nsp.to('probe-room').emit('broadcast', 2);
    await withDeadline(broadcast, 10_000, 'the broadcast');
    t.deepEqual(seen, ['notify:broadcast', 'write'], broke('outgoingNotifier', 'a broadcast is not announced with its decoded packet right before its write'));
  } finally {
    writer.writeToEngine = write;
    notifier.notifyOutgoingListeners = notify;
  }
});

test.serial('adapterInternals: apply hands each matching socket to the broadcast; addAll and delAll change rooms', async (t) => {
  const { client, socket } = await probeSocket('/probe-e');
  const adapter = adapterInternals(socket.nsp);
  for (const fn of ['apply', 'addAll', 'delAll'] as const) t.is(typeof adapter[fn], 'function', broke('adapterInternals', `Adapter.${fn} is not a function`));
  adapter.addAll('probe-member', new Set(['probe-room-e']));
  t.true(socket.nsp.adapter.rooms.get('probe-room-e')?.has('probe-member'), broke('adapterInternals', 'addAll did not add the sid to the room'));
  const handed: unknown[] = [];
  const apply = adapter.apply; // eslint-disable-line @typescript-eslint/unbound-method -- called with the adapter as `this`, then put back
  adapter.apply = (opts, callback) => {
    apply.call(adapter, opts, (s: unknown) => {
      handed.push(s);
      callback(s);
    });
  };
  try {
    await socket.join('probe-room-e');
    // The Redis adapters broadcast after their publish: wait for the client to have the event.
    const heard = new Promise((resolve) => client.once('ping', resolve));
    socket.nsp.to('probe-room-e').emit('ping', 1);
    await withDeadline(heard, 10_000, 'the broadcast');
    t.true(handed.includes(socket), broke('adapterInternals', 'a broadcast did not pass its sockets through apply'));
  } finally {
    adapter.apply = apply;
    adapter.delAll('probe-member');
  }
  t.false(socket.nsp.adapter.rooms.get('probe-room-e')?.has('probe-member') ?? false, broke('adapterInternals', 'delAll did not remove the sid'));
});

test.serial('engineWebSocket: the websocket under a connection made over one, with what its client has not taken; none under long-polling', async (t) => {
  const { socket } = await probeSocket('/probe-g');
  const ws = engineWebSocket(socket.conn);
  t.truthy(ws, broke('engineWebSocket', "no websocket under a connection made over websocket (the transport's `socket`)"));
  t.is(typeof ws?.bufferedAmount, 'number', broke('engineWebSocket', 'the websocket has no numeric bufferedAmount'));
  const polling = await probeSocket('/probe-h', ['polling']);
  t.is(engineWebSocket(polling.socket.conn), null, broke('engineWebSocket', 'a long-polling connection answered a websocket'));
});

(TEST_REDIS_URL ? test.serial : test.serial.skip)(
  `redisAdapterChannels: the Redis adapter's channels of a namespace${TEST_REDIS_URL ? '' : ' (skipped: no TEST_REDIS_URL)'}`,
  async (t) => {
    const { socket } = await probeSocket('/probe-f');
    const channels = redisAdapterChannels(socket.nsp);
    t.is(typeof channels.channel, 'string', broke('redisAdapterChannels', 'the Redis adapter has no `channel`'));
    t.true(channels.channel!.includes('/probe-f'), broke('redisAdapterChannels', `\`channel\` does not name the namespace: ${channels.channel}`));
    t.is(typeof channels.responseChannel, 'string', broke('redisAdapterChannels', 'the Redis adapter has no `responseChannel`'));
  },
);

/** Resolves once `check()` holds; rejects with `message` after 10 s. */
async function waitFor(check: () => boolean, message: string) {
  const until = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > until) throw new Error(message);
    await new Promise((r) => setTimeout(r, 10));
  }
}
