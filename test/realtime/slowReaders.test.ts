import test from 'ava';
import type net from 'node:net';
import { useServer } from '../helpers/server';
import { closeAllPusher, connectPusher } from '../helpers/pusher';
import { RawPusher } from '../helpers/pusherRaw';
import { closeAll, connectWelcomed, type Client } from '../helpers/sockets';
import { waitUntil } from '../helpers/waiting';

// Clients that stop reading: what the server owes them piles up in its memory unless bounded. Past
// SOCKET_MAX_BUFFERED_BYTES a slow connection is closed (both protocols), and the others still get
// every roll. The kernel takes about 4 MB of a paused loopback socket before anything stays in the
// server's memory, so the smallest bound (256 KiB) and rolls at the size limits (100 dice whose labels
// together fill the 16 KiB a roll may carry: about 60 KB as presented) keep this short.
const BOUND = 256 * 1024;
const ctx = useServer(test, { SOCKET_MAX_BUFFERED_BYTES: String(BOUND) });
const sockets: Client[] = [];
const raws: RawPusher[] = [];
test.after.always(() => {
  closeAllPusher();
  closeAll(...sockets);
  for (const raw of raws) raw.close();
});

const ROLL = 'App\\Events\\RollCreateEvent';
const MAX_ROLLS = Number(process.env.SLOW_READER_MAX_ROLLS || 300);

function bigRoll(slug: string, n: number) {
  const die = (i: number) => ({ type: 'd6', theme: 'standard', label: `${n}.${i}`.padEnd(160, 'l') });
  return { dice: Array.from({ length: 100 }, (_, i) => die(i)), room: slug, label: 'L'.repeat(255) };
}

/** The TCP socket under a socket.io-client connection (websocket transport). */
function tcpOf(client: Client): net.Socket {
  return (client.socket.io.engine.transport as unknown as { ws: { _socket: net.Socket } }).ws._socket;
}

test('a subscriber that stops reading is closed past the bound (Pusher and Socket.IO); every other subscriber gets every roll', async (t) => {
  const [owner, b] = await Promise.all([ctx.server.newUser(), ctx.server.newUser()]);
  const slug = (await owner.api.post('/room', {})).body.data.slug as string;
  t.is((await b.api.post(`/room/${slug}/participant`)).status, 200);
  const channel = `presence-room.${slug}`;

  // Readers: a pusher-js client and a Socket.IO client.
  const reader = await connectPusher(ctx.server.url, { key: b.key });
  await reader.subscribe(channel);
  const socketReader = await connectWelcomed(ctx.server.url, slug, { token: b.key }, sockets);
  // Slow ones: a raw Pusher client and a Socket.IO client whose TCP sockets stop being read.
  const slowPusher = await RawPusher.connect(ctx.server.url);
  raws.push(slowPusher);
  t.is((await slowPusher.subscribe(b.key, channel)).event, 'pusher_internal:subscription_succeeded');
  const slowSocket = await connectWelcomed(ctx.server.url, slug, { token: b.key }, sockets);
  const slowSocketId = slowSocket.socket.id!;
  const gateway = ctx.server.realtime.pusher!;
  const pusherBefore = gateway.size;
  slowPusher.tcp.pause();
  tcpOf(slowSocket).pause();

  const nsp = ctx.server.io.of(`/room/${slug}`);
  const slowOnesGone = () => gateway.size === pusherBefore - 1 && !nsp.sockets.has(slowSocketId);
  let posted = 0;
  while (posted < MAX_ROLLS && !slowOnesGone()) {
    const made = await owner.api.post('/roll', bigRoll(slug, posted));
    t.is(made.status, 201);
    posted++;
  }
  t.log(`${posted} rolls of about ${Math.round(JSON.stringify(bigRoll(slug, 0)).length / 1024)} KiB requested`);
  t.true(slowOnesGone(), `after ${posted} rolls the slow connections are still open`);

  // The readers got every roll, in full.
  await reader.waitForCount(ROLL, posted, channel, 30_000);
  await socketReader.waitForCount('RollCreateEvent', posted, 30_000);
  t.is(reader.of(ROLL).length, posted);
  t.is(socketReader.of('RollCreateEvent').length, posted);
  t.is(reader.pusher.connection.state, 'connected');
  t.true(socketReader.socket.connected);

  // The slow ones, reading again, find their connections closed (4100 when the close frame gets through).
  slowPusher.tcp.resume();
  tcpOf(slowSocket).resume();
  const closed = await slowPusher.waitForClose(40_000);
  t.true(closed.code === 4100 || closed.code === 1006, `closed with ${closed.code}`);
  await waitUntil(
    (wake) => {
      slowSocket.socket.once('disconnect', wake);
      return () => slowSocket.socket.off('disconnect', wake);
    },
    () => !slowSocket.socket.connected,
    'the slow Socket.IO client to be disconnected',
    () => '',
    40_000,
  );
  reader.close();
});
