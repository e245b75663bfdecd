/**
 * A flood as one guest would send it (big socket packets, big keyless REST bodies): run as a process of its own
 * (`node --import=tsx test/hostile/flood.ts`, or as `npm test` builds it) so that its own CPU is not counted in the service's
 * latency. Configuration in FLOOD (JSON): {url, key, slug, uuid, ms}.
 *
 * - Sockets: 3 connections to the room, each sending RollValueMoveEvent packets of ~950 KB (the size
 *   that fit Socket.IO's default 1 MB buffer) and reconnecting whenever the server closes it; one
 *   more sending 15 KB moves (under the packet cap) as fast as its transport takes them.
 * - REST: keyless POST bodies of 949 KB, 8 at a time.
 * Prints one JSON line of counts when `ms` is over.
 */
import http from 'node:http';
import { io, type Socket } from 'socket.io-client';

const { url, key, slug, uuid, ms } = JSON.parse(process.env.FLOOD!) as { url: string; key: string; slug: string; uuid: string; ms: number };
let until = 0; // set once the packets are built
const stats = { bigPackets: 0, mediumPackets: 0, connects: 0, closedByServer: 0, refused: {} as Record<string, number>, rest: {} as Record<string, number> };

const position = { x: 1, y: 0, z: 2 };
// Socket.IO EVENT packets of this namespace, encoded once: the flood costs this process little CPU per
// packet (as a real attacker's would), so what it measures is the service, not the flood's own encoding.
// The payload is what costs most to decode and validate for its size: a move with thousands of junk
// fields (one long string would be parsed almost for free). ~950 KB took ~65 ms each before the packet cap.
function packet(bytes: number): string {
  const move: Record<string, unknown> = { uuid, position };
  let size = JSON.stringify(move).length;
  for (let j = 0; size < bytes; j++) {
    move[`k${j}`] = j;
    size += `"k${j}":${j},`.length;
  }
  return `2/room/${slug},${JSON.stringify(['RollValueMoveEvent', move])}`;
}
const bigMove = packet(950_000);
const mediumMove = packet(15_000);

/** The part of engine.io-client's socket used to send a packet already encoded. */
type Engine = { send(data: string): void; writeBuffer: unknown[] };

function openSocket(): Promise<Socket | null> {
  return new Promise((resolve) => {
    const socket = io(`${url}/room/${slug}`, { auth: { token: key }, transports: ['websocket'], forceNew: true, reconnection: false, timeout: 5000 });
    socket.once('connect', () => {
      stats.connects++;
      resolve(socket);
    });
    socket.once('connect_error', (err: Error) => {
      stats.refused[err.message] = (stats.refused[err.message] ?? 0) + 1;
      socket.disconnect();
      resolve(null);
    });
  });
}

async function socketFlood(move: string, counter: 'bigPackets' | 'mediumPackets') {
  while (Date.now() < until) {
    const socket = await openSocket();
    if (!socket) {
      await new Promise((r) => setTimeout(r, 50));
      continue;
    }
    await new Promise<void>((resolve) => {
      socket.once('disconnect', (reason: string) => {
        if (reason !== 'io client disconnect') stats.closedByServer++;
        resolve();
      });
      const send = () => {
        if (!socket.connected) return;
        if (Date.now() >= until) return socket.disconnect();
        const engine = (socket.io as unknown as { engine: Engine }).engine;
        // As fast as the transport drains: a few packets queued at most, not megabytes in memory.
        if (engine.writeBuffer.length < 4) {
          engine.send(move);
          stats[counter]++;
        }
        setImmediate(send);
      };
      send();
    });
  }
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
const body = Buffer.from(`{"name":"${'z'.repeat(949_000)}"}`);
function post(): Promise<void> {
  return new Promise((resolve) => {
    const req = http.request(
      `${url}/api/1.0/room`,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': body.length } },
      (res) => {
        stats.rest[res.statusCode!] = (stats.rest[res.statusCode!] ?? 0) + 1;
        res.resume();
        res.on('end', () => resolve());
      },
    );
    req.on('error', (err: Error & { code?: string }) => {
      stats.rest[err.code ?? 'error'] = (stats.rest[err.code ?? 'error'] ?? 0) + 1;
      resolve();
    });
    req.end(body);
  });
}
async function restFlood() {
  while (Date.now() < until) await post();
}

until = Date.now() + ms;
console.log('flooding');
await Promise.all([
  socketFlood(bigMove, 'bigPackets'),
  socketFlood(bigMove, 'bigPackets'),
  socketFlood(bigMove, 'bigPackets'),
  socketFlood(mediumMove, 'mediumPackets'),
  ...Array.from({ length: 8 }, restFlood),
]);
console.log(JSON.stringify(stats));
agent.destroy();
process.exit(0);
