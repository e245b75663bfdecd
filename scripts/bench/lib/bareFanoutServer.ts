/**
 * The baseline of bench:fanout: a bare Socket.IO server with the Redis adapter, every socket in one
 * room, and an emit to that room on request (IPC `{cmd: 'emit', payload}`): what fan-out through
 * Redis costs with nothing else (no auth, no database, no per-viewer presentation).
 * Env: REDIS_URL (without it: the in-process adapter, as bench:sockets uses it).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdapter } from '@socket.io/redis-adapter';
import { Redis } from 'ioredis';
import { Server } from 'socket.io';
import { answerMemory, answerPauses, answerProfiling } from './child';

const pub = process.env.REDIS_URL ? new Redis(process.env.REDIS_URL, { lazyConnect: true }) : null;
const sub = pub?.duplicate() ?? null;
// Connected before the adapter exists, as src/server.ts does: a room namespace created by the first
// client while `sub` is between its TCP connect and its ready check sends PSUBSCRIBE in that window,
// and ioredis 5 then fails the ready check ("Connection in subscriber mode") and the process dies.
// Under load that window is wide enough to hit: it killed the baseline of bench:fanout at 100 clients.
if (pub && sub) await Promise.all([pub.connect(), sub.connect()]);
const server = http.createServer();
const io = new Server(server, pub && sub ? { adapter: createAdapter(pub, sub, { key: 'bench-bare' }) } : {});
const room = io.of(/^\/room\/[\w-]+$/);
room.on('connection', (socket) => void socket.join('everyone'));

answerMemory(() => ({ sockets: io.engine.clientsCount }));
answerProfiling(); // FANOUT_CPU_PROF: the same profile as the service's instance A, to diff them
await answerPauses(); // the collections of each block, printed beside the instances'
process.on('message', (m: { id?: number; cmd?: string; namespace?: string; payload?: unknown }) => {
  if (m.cmd !== 'emit') return;
  // The same shape as the service's events: {data: ...}, stamped when it leaves.
  io.of(m.namespace!).to('everyone').emit('RollCreateEvent', { data: m.payload, sentAt: Date.now() });
  if (typeof m.id === 'number') process.send?.({ id: m.id });
});

server.listen(0, '127.0.0.1', () => {
  process.send?.({ type: 'ready', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, pid: process.pid });
});
const stop = () => {
  // Not awaited: the process exits right after, which closes everything.
  void io.close();
  pub?.disconnect();
  sub?.disconnect();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('disconnect', stop);
