/**
 * `npm run bench:sequence`: what numbering a room's events costs Redis (exact replay, docs/realtime.md).
 *
 * The same blocks of emits (three messages of one roll event, encoded by @socket.io/redis-emitter
 * as the service encodes them, about 1.5 KB each) are sent to a redis-server of this benchmark's own,
 * with a subscriber pattern-subscribed as the adapter is:
 * - baseline: MULTI + 3 PUBLISH + EXEC (how a block is sent when nothing is numbered);
 * - sequenced: the sendBlock script (counter, seq written into each message, 3 PUBLISH, log entry,
 *   trim, TTLs, the block id), src/realtime/transport/sequenceLogRedis.ts.
 * Rounds alternate (baseline, sequenced, baseline...) so drift hits both; the table gives Redis CPU
 * per block (INFO cpu of the server, user + sys) and blocks per second, and the ratios.
 * BENCH_BLOCKS (default 5000 per round), BENCH_ROUNDS (3), BENCH_ROOMS (default 100: blocks spread
 * over that many rooms, each with its own keys).
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import { Emitter } from '@socket.io/redis-emitter';
import { Redis } from 'ioredis';
import { sendBlock, SEQ_PLACEHOLDER } from '../../src/realtime/transport/sequenceLogRedis';
import { fmt, printEnvironment, printTable } from './lib/table';

const BLOCKS = Number(process.env.BENCH_BLOCKS || 5000);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 3);
const ROOMS = Number(process.env.BENCH_ROOMS || 100);
const IN_FLIGHT = 32;
const KEY = 'dice';

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A roll as presented, about the size of a two-dice roll (values, user, room summary). */
function fakeRoll(i: number) {
  return {
    uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    equation: '1d20+1d6',
    total_value: 17,
    values: [1, 2].map((n) => ({
      uuid: `v-${i}-${n}`,
      type: n === 1 ? 'd20' : 'd6',
      theme: 'standard',
      value: n * 7,
      value_to_display: n * 7,
      label: null,
      is_hidden: false,
      meta: { position: { x: n, z: n } },
    })),
    user: {
      uuid: 'u-1',
      username: 'guest-12345678',
      name: 'Guest 1234',
      is_registered: false,
      created_at: '2026-11-23T16:00:00.000Z',
      updated_at: '2026-11-23T16:00:00.000Z',
    },
    room: {
      slug: `room-${i % ROOMS}`,
      name: 'Table',
      is_public: true,
      custom_slug: null,
      created_at: '2026-11-23T16:00:00.000Z',
      updated_at: '2026-11-23T16:00:00.000Z',
    },
    created_at: '2026-11-23T16:00:00.000Z',
    updated_at: '2026-11-23T16:00:00.000Z',
    direction: 0.5,
    velocity: 0.98,
  };
}

/** The three messages of one roll event (roller, owner, everyone else), as the broadcaster encodes them. */
function block(i: number, sequenced: boolean): { namespace: string; entries: Array<[string, Buffer | string]> } {
  const entries: Array<[string, Buffer | string]> = [];
  const emitter = new Emitter({ publish: (channel: string, message: Buffer | string) => entries.push([channel, message]) }, { key: KEY });
  const namespace = `/room/room-${i % ROOMS}`;
  const payload = sequenced ? { data: fakeRoll(i), seq: SEQ_PLACEHOLDER } : { data: fakeRoll(i) };
  emitter.of(namespace).to('user:1').emit('RollCreateEvent', payload);
  emitter.of(namespace).to('user:2').emit('RollCreateEvent', payload);
  emitter.of(namespace).to('members').except(['user:1', 'user:2']).emit('RollCreateEvent', payload);
  return { namespace, entries };
}

async function cpuSeconds(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)![1]);
  return field('used_cpu_user') + field('used_cpu_sys');
}

async function round(redis: Redis, probe: Redis, sequenced: boolean, offset: number): Promise<{ cpuUs: number; perSecond: number }> {
  const blocks = Array.from({ length: BLOCKS }, (_, i) => block(offset + i, sequenced));
  const cpu0 = await cpuSeconds(probe);
  const t0 = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < blocks.length) {
      const i = next++;
      const { namespace, entries } = blocks[i]!;
      if (sequenced)
        await sendBlock(redis, KEY, 'publish', namespace, entries, { instance: 'bench', n: offset + i + 1 }, { event: 'RollCreateEvent', rollId: offset + i });
      else await redis.multi(entries.map(([channel, message]) => ['publish', channel, message])).exec();
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = (await cpuSeconds(probe)) - cpu0;
  return { cpuUs: (cpu * 1e6) / BLOCKS, perSecond: BLOCKS / seconds };
}

/** Resolves once the redis-server on `port` answers PING. */
async function answering(port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.ping();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      client.disconnect();
    }
  }
  throw new Error('redis-server did not start');
}

async function main() {
  const port = await freePort();
  const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  await answering(port);
  const redis = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: (n) => (n > 50 ? null : 100) });
  const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: (n) => (n > 50 ? null : 100) });
  const sub = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: (n) => (n > 50 ? null : 100) });
  try {
    await Promise.all([redis.connect(), probe.connect(), sub.connect()]);
    // Listening as an instance's adapter does: one pattern per live room namespace.
    for (let r = 0; r < ROOMS; r++) await sub.psubscribe(`${KEY}#/room/room-${r}#*`);
    let received = 0;
    sub.on('pmessageBuffer', () => received++);
    printEnvironment({ blocks: BLOCKS, rounds: ROUNDS, rooms: ROOMS, inFlight: IN_FLIGHT });
    const rows: Array<[string, number, number]> = [];
    for (let r = 0; r < ROUNDS; r++) {
      for (const sequenced of [false, true]) {
        const result = await round(redis, probe, sequenced, (2 * r + (sequenced ? 1 : 0)) * BLOCKS);
        rows.push([sequenced ? 'sequenced (script)' : 'baseline (MULTI)', result.cpuUs, result.perSecond]);
      }
    }
    const mean = (label: string, i: 1 | 2) => rows.filter((r) => r[0] === label).reduce((s, r) => s + r[i], 0) / ROUNDS;
    const base = { cpu: mean('baseline (MULTI)', 1), rate: mean('baseline (MULTI)', 2) };
    const seq = { cpu: mean('sequenced (script)', 1), rate: mean('sequenced (script)', 2) };
    printTable(
      'Rounds',
      ['round', 'Redis CPU µs/block', 'blocks/s'],
      rows.map(([label, cpu, rate], i) => [`${Math.floor(i / 2) + 1} ${label}`, cpu, rate]),
    );
    printTable(
      'Means',
      ['path', 'Redis CPU µs/block', 'blocks/s', 'CPU ratio', 'rate ratio'],
      [
        ['baseline (MULTI + 3 PUBLISH)', base.cpu, base.rate, '1.00', '1.00'],
        ['sequenced (sendBlock script)', seq.cpu, seq.rate, fmt(seq.cpu / base.cpu, 2), fmt(seq.rate / base.rate, 2)],
      ],
    );
    console.log(`\nmessages received by the subscriber: ${received} (expected ${ROUNDS * 2 * BLOCKS * 3})`);
    // Where the script's time goes (calls and µs per call of the commands it runs, and its own total).
    const stats = (await probe.info('commandstats'))
      .split(/\r?\n/)
      .filter((l) => /cmdstat_(evalsha|eval|publish|exec|hincrby|zadd|expire|zcard|hget|hset|zrange|zremrangebyrank|time|hexists|hlen)\b/.test(l));
    console.log(stats.map((l) => l.replace(/,rejected_calls=\d+,failed_calls=\d+/, '')).join('\n'));
  } finally {
    redis.disconnect();
    probe.disconnect();
    sub.disconnect();
    server.kill('SIGKILL');
  }
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
