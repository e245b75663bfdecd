/**
 * Start-up of the server as production runs it (`node dist/main.mjs`, built by scripts/build.mjs)
 * against the same program run through tsx (`node --import=tsx src/main.ts`, development): time from
 * spawn to the "listening" log line, the process's CPU to that point, and its resident memory once
 * listening and after a first page of the board's script. Alternates the two, ROUNDS each, on a fresh
 * SQLite directory each time (migrations included, as a first start does); prints medians and ratios.
 *
 *   npm run bench:startup      env: ROUNDS (7)
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { processStat } from './lib/processes';
import { median } from './lib/stats';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ROUNDS = Number(process.env.ROUNDS || 7);
spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });

interface Sample {
  readyMs: number;
  cpuMs: number;
  rssMb: number;
  rssAfterMb: number;
}

/** CPU (user + system) and resident set of a process. */
function procStats(pid: number): { cpuMs: number; rssMb: number } {
  const stat = processStat(pid);
  if (!stat) throw new Error(`process ${pid} is gone`);
  return { cpuMs: stat.cpuSeconds * 1000, rssMb: stat.rssBytes / 2 ** 20 };
}

async function once(args: string[]): Promise<Sample> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dice-startup-'));
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', DATABASE_URL: '', REDIS_URL: '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.includes('"msg":"listening"'));
      if (line) resolve(JSON.parse(line).url);
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
  const readyMs = performance.now() - started;
  const atReady = procStats(child.pid!);
  await (await fetch(`${url}/board/assets/board.js`)).text();
  const after = procStats(child.pid!);
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  fs.rmSync(dataDir, { recursive: true, force: true });
  return { readyMs, cpuMs: atReady.cpuMs, rssMb: atReady.rssMb, rssAfterMb: after.rssMb };
}

const shapes = {
  built: ['--min-semi-space-size=16', '--enable-source-maps', 'dist/main.mjs'],
  tsx: ['--min-semi-space-size=16', '--import=tsx', 'src/main.ts'],
};
const samples: Record<keyof typeof shapes, Sample[]> = { built: [], tsx: [] };
for (let round = 0; round < ROUNDS; round++) {
  for (const shape of ['tsx', 'built'] as const) samples[shape].push(await once(shapes[shape]));
}
const row = (name: keyof Sample) => {
  const built = median(samples.built.map((s) => s[name]));
  const tsx = median(samples.tsx.map((s) => s[name]));
  return `${name.padEnd(11)} built ${built.toFixed(1).padStart(7)}   tsx ${tsx.toFixed(1).padStart(7)}   built/tsx ${(built / tsx).toFixed(2)}x`;
};
console.log(`start-up, median of ${ROUNDS} (ms; MiB)`);
for (const name of ['readyMs', 'cpuMs', 'rssMb', 'rssAfterMb'] as const) console.log(row(name));
