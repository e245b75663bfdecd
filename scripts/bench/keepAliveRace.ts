/**
 * keepAliveRace: reproduces the keep-alive race against the real service (embedded shape, SQLite in
 * a temporary directory, in this process): many clients each send GET /healthz on a keep-alive
 * connection, stay idle for a delay spread around the server's keep-alive timeout, then send a
 * second request on the same pooled connection. A request sent as the server closes the idle
 * connection fails without any HTTP status (ECONNRESET, "socket hang up"): what bench:http's
 * open-loop client counted as connection errors, and what nginx or a cloud load balancer reports as
 * a 502 when its upstream keep-alive outlives the app's.
 *
 *   npx tsx scripts/bench/keepAliveRace.ts [--clients=400] [--window=40]
 *   env: HTTP_KEEP_ALIVE_TIMEOUT_MS (the service's setting; unset: its default), KEEPALIVE_IDLE_MS (the
 *   idle time to aim at; unset: when this server closes an idle connection, the keep-alive timeout
 *   plus the 1 s Node 20 adds to it, HTTP_SERVER_KEEP_ALIVE_TIMEOUT_BUFFER in lib/_http_server.js)
 *
 * Delays run from KEEPALIVE_IDLE_MS - window to KEEPALIVE_IDLE_MS + window/4 in even steps. The client
 * agents have no `timeout`, like bench:http's (Node's agent then ignores the Keep-Alive hint), so they
 * reuse a connection whatever its idle time.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { startServer } from '../../src/server';

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const CLIENTS = arg('clients', 400);
const WINDOW_MS = arg('window', 40);
/** Node 20 closes an idle keep-alive connection this long after server.keepAliveTimeout (lib/_http_server.js). */
const NODE_SERVER_BUFFER_MS = 1000;

/** 'reused', 'new connection', or the failed request's error code. */
type Outcome = string;

function get(url: string, agent: http.Agent): Promise<{ status: number; socket: object; keepAlive: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent }, (res) => {
      const socket = res.socket;
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, socket, keepAlive: res.headers['keep-alive'] as string | undefined }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** One client: a request, `idleMs` of silence, a second request on the same agent. */
async function client(url: string, idleMs: number): Promise<Outcome> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const first = await get(url, agent);
    await new Promise((resolve) => setTimeout(resolve, idleMs));
    try {
      const second = await get(url, agent);
      return second.socket === first.socket ? 'reused' : 'new connection';
    } catch (err) {
      return (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    }
  } finally {
    agent.destroy();
  }
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'keepalive-race-'));
const config = loadConfig({
  ...process.env,
  PORT: '0',
  HOST: '127.0.0.1',
  DATA_DIR: dataDir,
  DATABASE_URL: '',
  REDIS_URL: '',
  REDIS_CLUSTER_NODES: '',
  LOG_LEVEL: 'silent',
});
const server = await startServer(config, createLogger(config.logLevel));
try {
  const probe = new http.Agent({ keepAlive: true });
  const advertised = (await get(`${server.url}/healthz`, probe)).keepAlive;
  probe.destroy();
  const IDLE_MS = Number(process.env.KEEPALIVE_IDLE_MS || server.http.keepAliveTimeout + NODE_SERVER_BUFFER_MS);
  console.log(
    `server.keepAliveTimeout ${server.http.keepAliveTimeout} ms (Keep-Alive: ${advertised ?? 'none'}); ${CLIENTS} clients idle ${IDLE_MS - WINDOW_MS}..${IDLE_MS + WINDOW_MS / 4} ms between two requests`,
  );
  const span = WINDOW_MS * 1.25;
  const outcomes = await Promise.all(
    Array.from({ length: CLIENTS }, (_, i) => {
      const idle = IDLE_MS - WINDOW_MS + (span * i) / CLIENTS;
      return client(`${server.url}/healthz`, idle).then((outcome) => ({ idle, outcome }));
    }),
  );
  const counts = new Map<string, number>();
  for (const { outcome } of outcomes) counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
  console.log([...counts].map(([k, n]) => `${k}: ${n}`).join(', '));
  const failed = outcomes.filter((o) => o.outcome !== 'reused' && o.outcome !== 'new connection');
  if (failed.length) console.log(`failed at idle ${failed.map((o) => o.idle.toFixed(1)).join(', ')} ms`);
} finally {
  await server.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
