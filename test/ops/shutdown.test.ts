import net from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { spawnInstance } from '../helpers/process';
import { withDeadline } from '../helpers/deadline';

test('SIGTERM lets a request in flight finish, then exits 0, without waiting for keep-alive connections', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dice-shutdown-'));
  // Far longer than the waits below: only closing keep-alive connections once idle lets it exit in time
  // (their timeout is 65 s, HTTP_KEEP_ALIVE_TIMEOUT_MS).
  const instance = await spawnInstance({ DATA_DIR: dataDir, SHUTDOWN_TIMEOUT_MS: '60000' });
  const { port } = new URL(instance.url);
  const connect = async () => {
    const socket = net.connect(Number(port), '127.0.0.1');
    await withDeadline(new Promise((resolve) => socket.once('connect', resolve)), 5000, `a connection to port ${port}`);
    const connection = { socket, response: '', closed: new Promise((resolve) => socket.once('close', resolve)) };
    socket.on('data', (d) => (connection.response += d.toString()));
    return connection;
  };
  // An idle keep-alive connection: one request answered, nothing since.
  const idle = await connect();
  idle.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
  await withDeadline(
    (async () => {
      while (!idle.response.includes('\r\n\r\n')) await new Promise((resolve) => idle.socket.once('data', resolve));
    })(),
    5000,
    'the answer to GET /healthz on the idle connection',
  );
  // A keep-alive connection busy at SIGTERM: the headers of a guest creation now, its body only after SIGTERM.
  const busy = await connect();
  busy.socket.write('POST /api/1.0/user HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n');
  await new Promise((resolve) => setTimeout(resolve, 200));
  instance.child.kill('SIGTERM');
  await withDeadline(idle.closed, 10_000, 'the idle connection to be closed at SIGTERM');
  // New connections are refused while the old one is finished.
  const refused = await fetch(instance.url + '/healthz').then(
    () => false,
    () => true,
  );
  t.true(refused, 'no new connections once shutting down');
  busy.socket.write('{}');
  await withDeadline(busy.closed, 10_000, 'the busy connection to be closed after its answer');
  t.regex(busy.response, /^HTTP\/1\.1 201/);
  t.regex(busy.response, /\r\nConnection: close\r\n/i);
  const exited = await Promise.race([instance.exited, new Promise((resolve) => setTimeout(() => resolve('still running 15 s after SIGTERM'), 15_000))]);
  t.is(exited, 0);
  t.regex(instance.output(), /"msg":"stopped"/);
  await instance.stop('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
});
