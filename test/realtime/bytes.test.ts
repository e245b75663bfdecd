import test from 'ava';
import { io } from 'socket.io-client';
import { useServer } from '../helpers/server';
import { withDeadline } from '../helpers/deadline';
import { closeAll, connectWelcomed, type Client } from '../helpers/sockets';
import { rollOk, table } from '../api/rolls.support';

// The default largest packet (16 KiB), and a byte budget small enough to reach: 16 KiB/s, bursts of 32 KiB
// (two of the largest packets).
const ctx = useServer(test, { SOCKET_BYTES_PER_SECOND: '16384' });
const MOVE = 'RollValueMoveEvent';
const position = { x: 1, y: 0, z: 2 };

const clients: Client[] = [];
test.after.always(() => closeAll(...clients));

async function seated() {
  const { mover, watcher, uuid } = await seatedWithKeys();
  return { mover, watcher, uuid };
}

async function seatedWithKeys() {
  const t = await table(ctx.server);
  const connect = (key: string) => connectWelcomed(ctx.server.url, t.slug, { token: key }, clients);
  const [mover, watcher] = await Promise.all([connect(t.roller.key), connect(t.bystander.key)]);
  const roll = await rollOk(t.roller, { dice: [{ type: 'd20', theme: 'standard' }], room: t.slug });
  await watcher.waitFor('RollCreateEvent', (p) => p.data.uuid === roll.uuid);
  return { mover, watcher, uuid: roll.values[0]!.uuid as string, slug: t.slug, key: t.roller.key };
}

function disconnected(c: Client, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    if (!c.socket.connected) return resolve('already');
    const timer = setTimeout(() => reject(new Error(`still connected after ${timeoutMs} ms`)), timeoutMs);
    c.socket.once('disconnect', (reason: string) => {
      clearTimeout(timer);
      resolve(reason);
    });
  });
}

test('a packet over SOCKET_MAX_PACKET_BYTES closes its connection and is never relayed', async (t) => {
  const { mover, watcher, uuid } = await seated();
  // Under the limit: junk fields are stripped and the move is relayed.
  mover.emit(MOVE, { uuid, position, padding: 'x'.repeat(15_000) });
  await watcher.waitFor(MOVE);
  t.true(mover.socket.connected);
  mover.emit(MOVE, { uuid, position: { x: 99, y: 0, z: 0 }, padding: 'x'.repeat(17_000) });
  const reason = await disconnected(mover);
  t.regex(reason, /^transport (close|error)$/, `disconnected: ${reason}`);
  t.is(watcher.of(MOVE).length, 1, 'the oversized move was never relayed');
  t.true(watcher.socket.connected, 'the others stay connected');
});

test('a connection sending more bytes than its budget is closed; a real drag is not', async (t) => {
  const { mover, watcher, uuid } = await seated();
  // A real drag: 60 moves a second for 1.5 s, about 100 bytes each (6 KB/s).
  for (let i = 0; i < 90; i++) {
    mover.emit(MOVE, { uuid, position: { x: i, y: 0, z: 0 }, rotation: { x: 0, y: 0.7071, z: 0, w: 0.7071 } });
    await new Promise((r) => setTimeout(r, 1000 / 60));
  }
  await watcher.waitFor(MOVE, (p) => p.data.position.x === 89);
  t.true(mover.socket.connected, 'a drag at 60 frames a second is well within the budget');

  // 10 KB moves as fast as the socket takes them: 32 KiB of burst are spent after 4 of them.
  const flooder = mover;
  const closed = disconnected(flooder);
  for (let i = 0; i < 40 && flooder.socket.connected; i++) flooder.emit(MOVE, { uuid, position, padding: 'y'.repeat(10_000) });
  t.regex(await closed, /^transport (close|error)$/);
  t.true(watcher.socket.connected);
});

test('a long-polling client that batches many moves in one request stays under the packet cap', async (t) => {
  const { watcher, uuid, slug, key } = await seatedWithKeys();
  // Long-polling only: the client sends what queued up in one POST, split at the server's maxPayload.
  const poller = io(`${ctx.server.url}/room/${slug}`, { auth: { token: key }, transports: ['polling'], forceNew: true, reconnection: false });
  t.teardown(() => poller.disconnect());
  await withDeadline(
    new Promise<void>((resolve, reject) => (poller.once('connect', () => resolve()), poller.once('connect_error', reject))),
    15_000,
    'the long-polling client to connect',
  );
  // 100 events of about 260 bytes at once (26 KB: more than one 16 KiB packet would hold, within the
  // event bucket's burst of 120), then the end of the drag. Moves are volatile (a busy receiver skips
  // some); starts and ends are relayed reliably, so those are what is counted.
  const extra = { rotation: { x: 0, y: 0.7071, z: 0, w: 0.7071 }, note: 'n'.repeat(100) };
  for (let i = 0; i < 60; i++) poller.emit(MOVE, { uuid, position: { x: i, y: 0, z: 0 }, ...extra });
  for (let i = 0; i < 40; i++) poller.emit('RollValueMoveStartEvent', { uuid, position: { x: i, y: 0, z: 0 }, ...extra });
  poller.emit('RollValueMoveEndEvent', { uuid, position: { x: -1, y: 0, z: 0 } });
  await watcher.waitFor('RollValueMoveEndEvent', (p) => p.data.position.x === -1);
  t.true(poller.connected, 'not closed for a large batch');
  t.is(watcher.of('RollValueMoveStartEvent').length, 40, 'every reliable event of the batch arrived');
});
