import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { Server, type Socket } from 'socket.io';
import { io as connectClient, type Socket as ClientSocket } from 'socket.io-client';
import { holdLiveEvents } from '../../src/realtime/connection/holdLiveEvents';
import { withDeadline } from '../helpers/deadline';

/**
 * The welcome hold's hooks on a connection (src/realtime/connection/holdLiveEvents.ts), on a real Socket.IO server
 * and client: broadcasts are held while a welcome is on, left out by the `late` rule while its window
 * lasts, and the connection gets its own methods back once nothing needs the hooks.
 */

interface Served {
  io: Server;
  url: string;
  /** The server side of the next connection. */
  next(): Promise<Socket>;
}

async function serve(): Promise<Served> {
  const server = http.createServer();
  const io = new Server(server);
  const waiting: Array<(s: Socket) => void> = [];
  io.on('connection', (socket) => {
    void socket.join('everyone');
    waiting.shift()?.(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { io, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, next: () => new Promise((resolve) => waiting.push(resolve)) };
}

async function connect(served: Served): Promise<{ client: ClientSocket; socket: Socket; heard: number[] }> {
  const socket = served.next();
  const client = connectClient(served.url, { transports: ['websocket'], forceNew: true });
  const heard: number[] = [];
  client.on('n', (n: number) => heard.push(n));
  await withDeadline(new Promise<void>((resolve) => client.once('connect', () => resolve())), 10_000, 'the client to connect');
  return { client, socket: await withDeadline(socket, 10_000, 'the server to see the connection'), heard };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Broadcast `n` to the room (through the adapter, as the service's live events), then wait for it to land. */
async function broadcast(served: Served, ...ns: number[]) {
  for (const n of ns) served.io.to('everyone').emit('n', n);
  await sleep(100);
}

type Internals = {
  client: { writeToEngine: unknown; constructor: { prototype: { writeToEngine: unknown } } };
  notifyOutgoingListeners: unknown;
  constructor: { prototype: { notifyOutgoingListeners: unknown } };
};
/** Whether the connection and the socket run their own methods (no hold's hook in the way). */
function unhooked(socket: Socket): boolean {
  const s = socket as unknown as Internals;
  return (
    s.client.writeToEngine === s.client.constructor.prototype.writeToEngine && s.notifyOutgoingListeners === s.constructor.prototype.notifyOutgoingListeners
  );
}

test('broadcasts wait for the release, the late rule holds for its window, then the connection gets its own methods back', async (t) => {
  const served = await serve();
  t.teardown(() => served.io.close());
  const { client, socket, heard } = await connect(served);
  t.teardown(() => client.close());
  t.true(unhooked(socket));

  const hold = holdLiveEvents(socket, 400);
  t.false(unhooked(socket));
  await broadcast(served, 1, 2);
  t.deepEqual(heard, [], 'held while the welcome is on');
  hold.direct(() => socket.emit('n', 0));
  await sleep(100);
  t.deepEqual(heard, [0], "the welcome's own emit goes out at once");

  const odd = (_event: string, payload: unknown) => (payload as number) % 2 === 1;
  hold.release(odd, odd);
  await broadcast(served, 3, 4);
  t.deepEqual(heard, [0, 2, 4], 'held ones in order without what skip names; during the window, late leaves out 3');
  t.false(unhooked(socket), 'still hooked while the late window is open');

  await sleep(500);
  t.true(unhooked(socket), 'own methods back once the window is over');
  await broadcast(served, 5, 6);
  t.deepEqual(heard, [0, 2, 4, 5, 6]);

  // A later welcome on the same connection hooks it again.
  const again = holdLiveEvents(socket, 400);
  await broadcast(served, 7);
  t.deepEqual(heard, [0, 2, 4, 5, 6], 'held again');
  again.release();
  await sleep(100);
  t.deepEqual(heard, [0, 2, 4, 5, 6, 7]);
  t.true(unhooked(socket), 'no late rule: own methods back at the release');
});

test('a connection with two welcomes on is given back only after both are released and their windows end', async (t) => {
  const served = await serve();
  t.teardown(() => served.io.close());
  const nsp = served.io.of('/other');
  const { client, socket, heard } = await connect(served);
  t.teardown(() => client.close());
  // A second namespace on the same connection (the Manager multiplexes them; it connects on its own).
  const other = new Promise<Socket>((resolve) => nsp.once('connection', resolve));
  const otherClient = client.io.socket('/other');
  const otherHeard: number[] = [];
  otherClient.on('n', (n: number) => otherHeard.push(n));
  const otherSocket = await withDeadline(other, 10_000, 'the server to see the /other namespace connect');
  t.is(otherSocket.client, socket.client, 'one connection');

  t.teardown(() => otherClient.close());
  const first = holdLiveEvents(socket, 1000);
  const second = holdLiveEvents(otherSocket, 1000);
  first.release(undefined, () => false);
  await broadcast(served, 1);
  nsp.emit('n', 10);
  await sleep(100);
  t.deepEqual([heard, otherHeard], [[], []], 'the connection is held while either welcome is on');
  second.release();
  await sleep(100);
  t.deepEqual([heard, otherHeard], [[1], [10]]);
  t.false(unhooked(socket) || unhooked(otherSocket), "the first namespace's window is open");
  await sleep(1000);
  t.true(unhooked(socket) && unhooked(otherSocket));
  await broadcast(served, 2);
  t.deepEqual(heard, [1, 2]);
});
