/**
 * bench:webhooks: what webhooks cost a roll, and how soon they deliver. One real server (PostgreSQL +
 * Redis, the production shape) on its core; this process (the roller and a real HTTP receiver on
 * 127.0.0.1, allowed by WEBHOOK_ALLOWED_HOSTS) on the other. Phases in one run, each its own room:
 * no webhook (the baseline), 1 webhook, 10 webhooks, and no webhook again (drift). Per phase: rolls per
 * second (BENCH_ROLLS rolls, BENCH_CONCURRENCY in flight), then, once every delivery arrived, delivery
 * latency p50/p99 from the roll's `created_at` to the receiver having the body, and rolls/s against
 * the baseline.
 *
 *   npm run bench:webhooks
 *   env: BENCH_ROLLS (400), BENCH_CONCURRENCY (16), BENCH_DATABASE_URL, BENCH_REDIS_URL
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createBenchDatabase, REDIS_URL } from './lib/database';
import { benchEnv, newGuest } from './lib/fixtures';
import { loadLine, pinSelf, planCores, spawnTs, tolerateSocketResets } from './lib/processes';
import { ratio, summarize } from './lib/stats';

const ROLLS = Number(process.env.BENCH_ROLLS || 400);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY || 16);
const DICE = [
  { type: 'd6', theme: 'standard' },
  { type: 'd20', theme: 'standard' },
];

const cores = planCores();
pinSelf(cores.load);
tolerateSocketResets();
console.log(
  `bench:webhooks — node ${process.version}, server on core ${cores.server || '(unpinned)'}, roller + receiver on core ${cores.load || '(unpinned)'}; ${ROLLS} rolls per phase, ${CONCURRENCY} in flight; ${loadLine()} at the start`,
);

// The receiver: latency from the roll's created_at (the server's clock: same machine) to arrival.
const arrivals = new Map<string, number[]>();
let received = 0;
const receiver = new http.Server((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const now = Date.now();
    res.writeHead(204).end();
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { data: { created_at: string; room: { slug: string } } };
      const slug = body.data.room.slug;
      const list = arrivals.get(slug) ?? [];
      list.push(now - Date.parse(body.data.created_at));
      arrivals.set(slug, list);
      received++;
    } catch {
      // not a roll
    }
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

const database = await createBenchDatabase();
const server = spawnTs('scripts/bench/lib/serve.ts', {
  cores: cores.server,
  env: benchEnv({
    DATABASE_URL: database.url,
    REDIS_URL,
    REDIS_PREFIX: `bench-webhooks-${process.pid}:`,
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    WEBHOOKS_PER_USER: '100',
  }),
});
try {
  const { url } = (await server.ready) as { url: string };
  await database.pinBackends(cores.server);
  const owner = await newGuest(url);

  interface Phase {
    name: string;
    hooks: number;
    rollsPerSecond: number;
    latency: ReturnType<typeof summarize>;
    delivered: number;
    waitedMs: number;
  }
  const phases: Phase[] = [];
  for (const [name, hooks] of [
    ['no webhook', 0],
    ['1 webhook', 1],
    ['10 webhooks', 10],
    ['no webhook (again)', 0],
  ] as const) {
    const slug = (await owner.api.post('/room', { name })).body.data.slug as string;
    for (let i = 0; i < hooks; i++) {
      const res = await owner.api.post('/webhook', { url: `${receiverUrl}/${i}`, events: ['roll.created'], room: slug });
      if (res.status !== 201) throw new Error(`webhook: ${res.status} ${res.text}`);
    }
    // A few rolls first: connections and caches warm, not counted.
    for (let i = 0; i < 10; i++) await owner.api.post('/roll', { dice: DICE, room: slug });
    await waitFor(() => (arrivals.get(slug)?.length ?? 0) >= 10 * hooks, 30_000);
    arrivals.set(slug, []);
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < ROLLS) {
          next++;
          const res = await owner.api.post('/roll', { dice: DICE, room: slug });
          if (res.status !== 201) throw new Error(`roll: ${res.status} ${res.text}`);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const waitStart = performance.now();
    await waitFor(() => (arrivals.get(slug)?.length ?? 0) >= ROLLS * hooks, 120_000);
    const got = arrivals.get(slug) ?? [];
    phases.push({ name, hooks, rollsPerSecond: ROLLS / seconds, latency: summarize(got), delivered: got.length, waitedMs: performance.now() - waitStart });
  }
  const base = phases[0]!.rollsPerSecond;
  console.log('\nphase                 rolls/s   vs baseline   deliveries   latency p50   p99 (ms, from created_at)   drained after the last 201');
  for (const p of phases) {
    const lat = p.hooks ? `${p.latency.p50.toFixed(0).padStart(8)}   ${p.latency.p99.toFixed(0).padStart(6)}` : '       -        -';
    console.log(
      `${p.name.padEnd(20)} ${p.rollsPerSecond.toFixed(0).padStart(8)}   ${ratio(p.rollsPerSecond, base).padStart(11)}   ${String(p.delivered).padStart(10)}   ${lat}                     ${p.hooks ? `${(p.waitedMs / 1000).toFixed(1)} s` : '-'}`,
    );
  }
  console.log(`\n${loadLine()} at the end`);
} finally {
  await server.stop();
  await database.drop();
  receiver.close();
}

async function waitFor(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`deliveries did not arrive within ${timeoutMs} ms (received ${received})`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
