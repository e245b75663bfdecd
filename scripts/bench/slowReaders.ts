/**
 * bench:slow-readers: what clients that stop reading cost the server's memory, with the bound on what
 * one connection may be owed (SOCKET_MAX_BUFFERED_BYTES, src/realtime/connection/slowReaders.ts) against the
 * same run without it (the bound at its maximum, 1 GiB) as the baseline.
 *
 *   npx tsx scripts/bench/slowReaders.ts    env: SLOW_READERS (20 per protocol), SLOW_ROLLS (180),
 *                                           SLOW_BOUND (the default, 4194304)
 *
 * Each run: a fresh server (embedded shape, SQLite) on its own core; a room; SLOW_READERS raw Pusher
 * subscribers and as many Socket.IO clients whose TCP sockets are paused (they never read), one
 * pusher-js and one Socket.IO client that read; SLOW_ROLLS rolls at the size limits (100 dice whose
 * labels fill the 16 KiB of label and meta a roll may carry: about 60 KB as presented). Printed: the server's RSS
 * and heap + external memory after a full collection, before and after the rolls, the slow connections
 * still open, and whether the readers got every roll.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type net from 'node:net';
import { io as connectSocketIo, type Socket } from 'socket.io-client';
import { connectPusher } from '../../test/helpers/pusher';
import { RawPusher } from '../../test/helpers/pusherRaw';
import { benchEnv, newGuest, roomWith } from './lib/fixtures';
import { loadLine, pinSelf, planCores, sleep, spawnTs } from './lib/processes';
import { fmt, printTable } from './lib/table';

const READERS = Number(process.env.SLOW_READERS || 20);
const ROLLS = Number(process.env.SLOW_ROLLS || 180);
const BOUND = Number(process.env.SLOW_BOUND || 4 * 1024 * 1024);
const UNBOUNDED = 1024 * 1024 * 1024;
const cores = planCores();
pinSelf(cores.load);
console.log(
  `bench:slow-readers — node ${process.version}, ${READERS} paused Pusher + ${READERS} paused Socket.IO subscribers, ${ROLLS} large rolls, ${loadLine()}`,
);

interface Memory {
  rss: number;
  heapUsed: number;
  external: number;
  sockets: number;
  pusher: number;
}
interface Row {
  run: string;
  before: Memory;
  after: Memory;
  delivered: string;
  /** Bytes of one roll's frame as the Pusher reader received it. */
  frameBytes: number;
  /** The kernel's TCP buffers (all sockets of the machine), before and after. */
  kernelBefore: number;
  kernelAfter: number;
}

/** Memory the kernel holds in TCP buffers, machine-wide (/proc/net/sockstat: pages). */
function kernelTcpBytes(): number {
  const pages = /TCP:.* mem (\d+)/.exec(fs.readFileSync('/proc/net/sockstat', 'utf8'))?.[1];
  return pages ? Number(pages) * 4096 : Number.NaN;
}

function bigRoll(slug: string, n: number) {
  const die = (i: number) => ({ type: 'd6', theme: 'standard', label: `${n}.${i}`.padEnd(160, 'l') });
  return { dice: Array.from({ length: 100 }, (_, i) => die(i)), room: slug, label: 'L'.repeat(255) };
}

function socketIo(base: string, slug: string, key: string): Promise<Socket> {
  const socket = connectSocketIo(`${base}/room/${slug}`, { auth: { token: key }, transports: ['websocket'], forceNew: true, reconnection: false });
  return new Promise((resolve, reject) => {
    socket.once('RoomUpdateEvent', () => resolve(socket));
    socket.once('connect_error', reject);
  });
}
const tcpOfSocketIo = (socket: Socket) => (socket.io.engine.transport as unknown as { ws: { _socket: net.Socket } }).ws._socket;

async function run(name: string, bound: number): Promise<Row> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-slow-'));
  const child = spawnTs('scripts/bench/lib/serve.ts', {
    cores: cores.server,
    nodeArgs: ['--expose-gc'],
    env: benchEnv({ DATA_DIR: dataDir, SOCKET_MAX_BUFFERED_BYTES: String(bound) }),
  });
  const closers: Array<() => void> = [];
  try {
    const { url } = (await child.ready) as { url: string };
    const owner = await newGuest(url);
    const reader = await newGuest(url);
    const slug = await roomWith(owner.api, [reader.api]);
    const listening = await connectPusher(url, { key: reader.key });
    closers.push(() => listening.close());
    await listening.subscribe(`presence-room.${slug}`);
    const reading = await socketIo(url, slug, reader.key);
    closers.push(() => reading.disconnect());
    let socketRolls = 0;
    reading.on('RollCreateEvent', () => socketRolls++);
    for (let i = 0; i < READERS; i++) {
      const pusher = await RawPusher.connect(url);
      closers.push(() => pusher.close());
      await pusher.subscribe(reader.key, `presence-room.${slug}`);
      pusher.tcp.pause();
      const socket = await socketIo(url, slug, reader.key);
      closers.push(() => socket.disconnect());
      tcpOfSocketIo(socket).pause();
    }
    const memory = () => child.ask<Memory>({ cmd: 'memory' });
    const before = await memory();
    const kernelBefore = kernelTcpBytes();
    for (let n = 0; n < ROLLS; n++) {
      const made = await owner.api.post('/roll', bigRoll(slug, n));
      if (made.status !== 201) throw new Error(`roll ${n}: ${made.status} ${made.text.slice(0, 200)}`);
    }
    await listening.waitForCount('App\\Events\\RollCreateEvent', ROLLS, `presence-room.${slug}`, 60_000);
    while (socketRolls < ROLLS) await sleep(50);
    // Past the grace a closed slow connection is given before its socket is cut.
    await sleep(3000);
    const after = await memory();
    const kernelAfter = kernelTcpBytes();
    const frameBytes = JSON.stringify(listening.of('App\\Events\\RollCreateEvent')[0]!.data).length;
    return {
      run: name,
      before,
      after,
      kernelBefore,
      kernelAfter,
      frameBytes,
      delivered: `${listening.of('App\\Events\\RollCreateEvent').length}/${ROLLS} + ${socketRolls}/${ROLLS}`,
    };
  } finally {
    for (const close of closers) close();
    await child.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const rows = [await run('unbounded (baseline: 1 GiB)', UNBOUNDED), await run(`bounded (${fmt(BOUND / 1024 / 1024)} MiB)`, BOUND)];
const mb = (n: number) => fmt(n / 1e6);
printTable(
  'memory held for clients that stop reading',
  [
    'run',
    'owed each slow client MB',
    'RSS before MB',
    'RSS growth MB',
    'heap+external growth MB',
    'kernel TCP buffers growth MB',
    'slow connections open after',
    'readers got',
  ],
  rows.map((r) => [
    r.run,
    mb(r.frameBytes * ROLLS),
    mb(r.before.rss),
    mb(r.after.rss - r.before.rss),
    mb(r.after.heapUsed + r.after.external - r.before.heapUsed - r.before.external),
    mb(r.kernelAfter - r.kernelBefore),
    `${r.after.pusher - 1} Pusher, ${r.after.sockets - 1} Socket.IO`,
    r.delivered,
  ]),
);
const [base, bounded] = rows as [Row, Row];
const growth = (r: Row) => r.after.heapUsed + r.after.external - r.before.heapUsed - r.before.external;
console.log(
  `heap+external growth, bounded / unbounded: ${fmt(growth(bounded) / growth(base), 3)}x; RSS growth: ${fmt((bounded.after.rss - bounded.before.rss) / (base.after.rss - base.before.rss), 2)}x`,
);
process.exit(0);
