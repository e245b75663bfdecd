/**
 * bench:sockets: memory per idle connected socket, at 5,000 sockets on one instance (PostgreSQL +
 * Redis), spread over rooms of 10 participants (as real tables are), beside a bare Socket.IO server
 * holding the same 5,000 sockets. Memory is measured in the server after full garbage collections
 * (--expose-gc), before and after the sockets connect.
 *
 * Then the Pusher gateway: a fresh instance, the same users as Pusher-protocol clients
 * (raw `ws`, lib/pusher.ts), each authorised at POST /broadcasting/auth and subscribed to its room's
 * `presence-room.{slug}`, idle: memory per connection beside Socket.IO's.
 *
 *   npm run bench:sockets
 *   env: SOCKETS (5000), SOCKETS_PER_ROOM (10), BENCH_DATABASE_URL, BENCH_REDIS_URL, SOCKETS_PUSHER=0: no Pusher row
 */
import { createBenchDatabase, REDIS_URL } from './lib/database';
import { benchEnv, newGuest } from './lib/fixtures';
import { loadLine, planCores, pinSelf, sleep, spawnTs, tolerateSocketResets, type ChildHandle } from './lib/processes';
import { connectPusherRoom, type PusherListener } from './lib/pusher';
import { connectRetries, connectRoom, inBatches, type Listener } from './lib/sockets';
import { ratio } from './lib/stats';
import { fmt, printTable } from './lib/table';

const SOCKETS = Number(process.env.SOCKETS || 5000);
const PER_ROOM = Number(process.env.SOCKETS_PER_ROOM || 10);
const PUSHER = process.env.SOCKETS_PUSHER !== '0';

const cores = planCores();
pinSelf(cores.load);
tolerateSocketResets();
console.log(
  `bench:sockets — node ${process.version}, server on core ${cores.server || '(unpinned)'}, ${SOCKETS} clients on core ${cores.load || '(unpinned)'} in rooms of ${PER_ROOM}, ${loadLine()}`,
);

const database = await createBenchDatabase();
const children: ChildHandle[] = [];
let sockets: Listener[] = [];
let pushers: PusherListener[] = [];
const cleanup = async () => {
  for (const s of sockets) s.socket.close();
  sockets = [];
  for (const p of pushers) p.close();
  pushers = [];
  await Promise.allSettled(children.map((c) => c.stop()));
  await database.drop();
};
process.on('SIGINT', () => void cleanup().then(() => process.exit(130)));

interface Memory {
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  sockets: number;
  /** Open Pusher-protocol connections (the service only). */
  pusher?: number;
}

/** Memory after GC, twice a second apart, keeping the lower (a straggling allocation is not the sockets'). */
async function settled(child: ChildHandle): Promise<Memory> {
  await sleep(1500);
  const first = await child.ask<Memory>({ cmd: 'memory' });
  await sleep(1000);
  const second = await child.ask<Memory>({ cmd: 'memory' });
  return second.heapUsed < first.heapUsed ? second : first;
}

const perSocket = (before: Memory, after: Memory, n: number) => ({
  heap: (after.heapUsed - before.heapUsed) / n,
  rss: (after.rss - before.rss) / n,
  external: (after.external + after.arrayBuffers - before.external - before.arrayBuffers) / n,
});

try {
  const real = spawnTs('scripts/bench/lib/serve.ts', {
    cores: cores.server,
    nodeArgs: ['--expose-gc'],
    env: benchEnv({ DATABASE_URL: database.url, REDIS_URL }),
  });
  children.push(real);
  const url = ((await real.ready) as { url: string }).url;

  let t0 = Date.now();
  const users = await inBatches(Array.from({ length: SOCKETS }), 16, () => newGuest(url));
  const slugs: string[] = [];
  await inBatches(Array.from({ length: Math.ceil(SOCKETS / PER_ROOM) }), 8, async (_, r) => {
    const members = users.slice(r * PER_ROOM, (r + 1) * PER_ROOM);
    const created = await members[0]!.api.post('/room', { name: `idle ${r}`, is_public: true });
    if (created.status !== 201) throw new Error(`room: ${created.status} ${created.text}`);
    slugs[r] = created.body.data.slug;
    for (const m of members.slice(1)) {
      const joined = await m.api.post(`/room/${slugs[r]}/participant`, {});
      if (joined.status !== 200) throw new Error(`join: ${joined.status} ${joined.text}`);
    }
  });
  console.log(`${SOCKETS} users in ${slugs.length} rooms in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

  // Warm up: one socket in and out, so code paths and the first namespace are paid for before "before".
  const warm = await connectRoom(url, slugs[0]!, users[0]!.key);
  warm.socket.close();
  const before = await settled(real);
  t0 = Date.now();
  sockets = await inBatches(users, 50, (u, i) => connectRoom(url, slugs[Math.floor(i / PER_ROOM)]!, u.key, { timeoutMs: 60_000 }));
  console.log(`${sockets.length} sockets connected in ${((Date.now() - t0) / 1000).toFixed(1)} s (${connectRetries.count} retried after a reset)`);
  const after = await settled(real);
  const service = perSocket(before, after, SOCKETS);
  for (const s of sockets) s.socket.close();
  sockets = [];
  await real.stop();
  children.length = 0;

  // The same users as idle Pusher clients, on a fresh instance (nothing left over from the sockets).
  let pusher: { before: Memory; after: Memory; per: ReturnType<typeof perSocket> } | null = null;
  if (PUSHER) {
    const gateway = spawnTs('scripts/bench/lib/serve.ts', {
      cores: cores.server,
      nodeArgs: ['--expose-gc'],
      env: benchEnv({ DATABASE_URL: database.url, REDIS_URL }),
    });
    children.push(gateway);
    const gatewayUrl = ((await gateway.ready) as { url: string }).url;
    const warmPusher = await connectPusherRoom(gatewayUrl, slugs[0]!, users[0]!.key);
    warmPusher.close();
    const pBefore = await settled(gateway);
    t0 = Date.now();
    pushers = await inBatches(users, 50, (u, i) => connectPusherRoom(gatewayUrl, slugs[Math.floor(i / PER_ROOM)]!, u.key, { timeoutMs: 60_000 }));
    console.log(`${pushers.length} Pusher clients (raw ws) authorised and subscribed to their presence channels in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const pAfter = await settled(gateway);
    pusher = { before: pBefore, after: pAfter, per: perSocket(pBefore, pAfter, SOCKETS) };
    for (const p of pushers) p.close();
    pushers = [];
    await gateway.stop();
    children.length = 0;
  }

  const bare = spawnTs('scripts/bench/lib/bareFanoutServer.ts', { cores: cores.server, nodeArgs: ['--expose-gc'] });
  children.push(bare);
  const bareUrl = ((await bare.ready) as { url: string }).url;
  const warmBare = await connectRoom(bareUrl, slugs[0]!, users[0]!.key);
  warmBare.socket.close();
  const bareBefore = await settled(bare);
  sockets = await inBatches(users, 50, (u, i) => connectRoom(bareUrl, slugs[Math.floor(i / PER_ROOM)]!, u.key, { timeoutMs: 60_000 }));
  const bareAfter = await settled(bare);
  const baseline = perSocket(bareBefore, bareAfter, SOCKETS);

  const kib = (b: number) => fmt(b / 1024, 1);
  printTable(
    `Memory per idle socket at ${SOCKETS} sockets on one instance (KiB, after GC)`,
    ['server', 'sockets', 'heap/socket', 'rss/socket', 'external/socket', 'total rss (MiB)', 'heap vs bare'],
    [
      [
        'bare Socket.IO (no auth, no rooms state)',
        String(bareAfter.sockets),
        kib(baseline.heap),
        kib(baseline.rss),
        kib(baseline.external),
        fmt(bareAfter.rss / 1048576),
        '1.00x',
      ],
      [
        'service (/room/{slug}, presence, Redis adapter)',
        String(after.sockets),
        kib(service.heap),
        kib(service.rss),
        kib(service.external),
        fmt(after.rss / 1048576),
        ratio(service.heap, baseline.heap),
      ],
      ...(pusher
        ? [
            [
              'service, Pusher gateway (/app/{key}, presence-room.{slug})',
              String(pusher.after.pusher ?? '?'),
              kib(pusher.per.heap),
              kib(pusher.per.rss),
              kib(pusher.per.external),
              fmt(pusher.after.rss / 1048576),
              ratio(pusher.per.heap, baseline.heap),
            ],
          ]
        : []),
    ],
  );
  if (pusher)
    console.log(
      `Pusher connection vs Socket.IO socket of the service: heap ${ratio(pusher.per.heap, service.heap)}, rss ${ratio(pusher.per.rss, service.rss)}; ${fmt(SOCKETS / ((pusher.after.rss - pusher.before.rss) / 1048576 / 1024), 0)} Pusher connections per GiB of rss`,
    );
  console.log('');
  console.log(
    `service: ${fmt(before.rss / 1048576)} MiB rss idle, ${fmt(after.rss / 1048576)} MiB with ${SOCKETS} sockets: ${fmt(SOCKETS / ((after.rss - before.rss) / 1048576 / 1024), 0)} sockets per GiB of rss`,
  );
  console.log(loadLine());
} finally {
  // Bounded: a child that will not stop or a database that will not drop must not hang the benchmark.
  await Promise.race([cleanup(), new Promise((r) => setTimeout(r, 30_000))]);
}
// Client sockets and keep-alive agents may linger: the benchmark is over.
process.exit(process.exitCode ?? 0);
