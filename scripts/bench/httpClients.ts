/**
 * The CPU a test's HTTP client spends per request: `send()` of test/helpers/http.ts (undici's
 * `request`) against Node's `fetch`, the baseline, in the same run. The server is the built one
 * (`dist/main.mjs`, SQLite) in a process of its own, so this process's CPU is the client's alone.
 * Each round sends REQUESTS sequential GET /api/1.0/user with a guest's key, alternating the two
 * clients; prints the median CPU per request of each and their ratio.
 *
 *   npx tsx scripts/bench/httpClients.ts     env: REQUESTS (2,000 per round), ROUNDS (5)
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { send } from '../../test/helpers/http';
import { spawnInstance } from '../../test/helpers/process';
import { median } from './lib/stats';

const REQUESTS = Number(process.env.REQUESTS || 2_000);
const ROUNDS = Number(process.env.ROUNDS || 5);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
process.env.TEST_BUILD_DIR = 'dist';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dice-http-clients-'));
const server = await spawnInstance({ DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', GUESTS_PER_HOUR: '1000', RATE_LIMIT_PER_MINUTE: '10000000' });
const url = `${server.url}/api/1.0/user`;
const guest = await send(url, { method: 'POST', headers: { accept: 'application/json' } });
const headers = { accept: 'application/json', authorization: `Bearer ${(JSON.parse(guest.text) as { data: string }).data}` };

const clients: Record<string, () => Promise<number>> = {
  fetch: async () => {
    const res = await fetch(url, { headers, redirect: 'manual' });
    await res.text();
    return res.status;
  },
  'send (undici request)': async () => (await send(url, { method: 'GET', headers })).status,
};

/** CPU milliseconds of this process per request, over one round of `client`. */
async function round(client: () => Promise<number>): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < REQUESTS; i++) if ((await client()) !== 200) throw new Error('GET /user did not answer 200');
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / REQUESTS;
}

const samples: Record<string, number[]> = Object.fromEntries(Object.keys(clients).map((name) => [name, []]));
for (const client of Object.values(clients)) await round(client); // warm-up: connections, JIT
for (let r = 0; r < ROUNDS; r++) for (const [name, client] of Object.entries(clients)) samples[name]!.push(await round(client));
await server.stop();
fs.rmSync(dataDir, { recursive: true, force: true });

const baseline = median(samples.fetch!);
console.log(`client CPU per request, median of ${ROUNDS} rounds of ${REQUESTS} (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores):`);
for (const [name, values] of Object.entries(samples)) {
  const m = median(values);
  console.log(`  ${name.padEnd(24)} ${m.toFixed(3)} ms   ${(m / baseline).toFixed(2)}x fetch`);
}
