import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { entryArgs, root } from './entry';

export interface Instance {
  url: string;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Run the server (test/helpers/entry.ts: the build, or tsx src/main.ts) as its own process (PORT=0) and wait for its "listening" log line.
 * `nodeArgs` go before the script (e.g. `--import=./test/fixtures/...` to load a test fault).
 */
export async function spawnInstance(env: Record<string, string>, timeoutMs = 20_000, nodeArgs: string[] = []): Promise<Instance> {
  const child = spawn(process.execPath, entryArgs('main', nodeArgs), {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`instance did not start within ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    let listening = false;
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      // Searched until found only: a server logs every request, and splitting all of its output again
      // on each chunk cost the test's thread time that grew with the square of the output.
      if (listening) return;
      const line = out.split('\n').find((l) => l.includes('"msg":"listening"'));
      if (line) {
        listening = true;
        clearTimeout(timer);
        resolve(JSON.parse(line).url);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`instance exited (${code}) before listening:\n${out}`));
    });
  });
  return {
    url,
    child,
    output: () => out,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Run the server expecting it to fail fast; answers its exit code and output. */
/**
 * An empty DATA_DIR of its own for a start-up expected to fail: a shared one keeps whatever an earlier
 * start-up, killed halfway through its migrations, left there, and the next one fails on that instead.
 */
export function freshDataDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'dice-unused-'));
}

export async function runMainExpectingExit(env: Record<string, string>, timeoutMs = 20_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, entryArgs('main'), { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}
