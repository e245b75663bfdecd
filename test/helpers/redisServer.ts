import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { Redis } from 'ioredis';

/**
 * A redis-server of the test's own (a child process on a free port), for tests that stop and
 * restart Redis: the shared one must stay up for the other tests.
 */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Without persistence by default; `options.persistIn` (a directory) turns the append-only file on,
 * fsynced at every write, so a restart in the same directory, even after a SIGKILL, finds every key.
 */
export async function startRedis(port: number, options: { persistIn?: string } = {}): Promise<ChildProcess> {
  const persistence = options.persistIn ? ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', options.persistIn] : ['--appendonly', 'no'];
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence], { stdio: 'ignore' });
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  for (let i = 0; i < 100; i++) {
    try {
      await client.connect();
      await client.ping();
      client.disconnect();
      return child;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error('redis-server did not start');
}

/** Kill it (no goodbye to its clients, as a crash) and wait until it is gone. */
export async function killRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}
