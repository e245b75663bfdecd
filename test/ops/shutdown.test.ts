import net from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { spawnInstance } from '../helpers/process';

test('SIGTERM lets a request in flight finish, then exits 0', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dice-shutdown-'));
  const instance = await spawnInstance({ DATA_DIR: dataDir, SHUTDOWN_TIMEOUT_MS: '5000' });
  const { port } = new URL(instance.url);
  // Send the headers of a guest creation now and its body only after SIGTERM.
  const socket = net.connect(Number(port), '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let response = '';
  socket.on('data', (d) => (response += d.toString()));
  socket.write('POST /api/1.0/user HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n');
  await new Promise((resolve) => setTimeout(resolve, 200));
  instance.child.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 300));
  // New connections are refused while the old one is finished.
  const refused = await fetch(instance.url + '/healthz').then(() => false, () => true);
  t.true(refused, 'no new connections once shutting down');
  socket.write('{}');
  await new Promise((resolve) => socket.once('close', resolve));
  t.regex(response, /^HTTP\/1\.1 201/);
  t.is(await instance.exited, 0);
  t.regex(instance.output(), /"msg":"stopped"/);
  fs.rmSync(dataDir, { recursive: true, force: true });
});
