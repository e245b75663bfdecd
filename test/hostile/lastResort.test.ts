import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { spawnInstance } from '../helpers/process';
import { healthz, RawPusher } from './realtimeWire';

// The process's last resort (src/main.ts, docs/reliability.md "Untrusted input at the realtime
// boundaries"), on a real server process: a fault thrown outside every guard is logged with its
// stack, the instance drains (its Pusher clients are told 4200, reconnect elsewhere) and exits 1 for
// the supervisor to restart it; a rejection nobody awaited is logged and the instance goes on serving.
const FAULT = ['--import=./test/fixtures/faultOnSignal.ts'];

function logLines(output: string): Array<Record<string, any>> {
  return output.split('\n').flatMap((line) => {
    try {
      return [JSON.parse(line)];
    } catch {
      return [];
    }
  });
}

test('an uncaught exception is logged as fatal with its stack, the instance drains (Pusher 4200) and exits 1', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dice-last-resort-'));
  const instance = await spawnInstance({ DATA_DIR: dataDir, SHUTDOWN_TIMEOUT_MS: '2000', TEST_FAULT: 'exception' }, 20_000, FAULT);
  try {
    const pusher = await RawPusher.open(instance.url);
    instance.child.kill('SIGUSR2');
    const code = await Promise.race([instance.exited, new Promise((resolve) => setTimeout(() => resolve('still running 15 s after the fault'), 15_000))]);
    t.is(code, 1);
    await pusher.until(() => pusher.closeCode !== null, 'the close');
    t.is(pusher.closeCode, 4200, 'drained: its Pusher clients are told to reconnect (to another instance)');
    const fatal = logLines(instance.output()).find((l) => l.level === 60);
    t.truthy(fatal, instance.output());
    t.is(fatal!.err, 'test fault: thrown from a timer callback');
    t.regex(fatal!.stack, /faultOnSignal\.ts/);
    t.is(fatal!.origin, 'uncaughtException');
    t.true(
      logLines(instance.output()).some((l) => l.msg === 'stopped'),
      'the drain finished before the exit',
    );
  } finally {
    await instance.stop('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a rejection nobody awaits is logged and the instance keeps serving', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dice-last-resort-'));
  const instance = await spawnInstance({ DATA_DIR: dataDir, SHUTDOWN_TIMEOUT_MS: '2000', TEST_FAULT: 'rejection' }, 20_000, FAULT);
  try {
    instance.child.kill('SIGUSR2');
    const deadline = Date.now() + 10_000;
    while (!instance.output().includes('a rejection nobody awaits') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const logged = logLines(instance.output()).find((l) => l.err === 'test fault: a rejection nobody awaits');
    t.truthy(logged, instance.output());
    t.is(logged!.level, 50);
    t.is(await healthz(instance.url), 200);
    t.is(instance.child.exitCode, null);
    t.is(await instance.stop('SIGTERM'), 0);
  } finally {
    await instance.stop('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
