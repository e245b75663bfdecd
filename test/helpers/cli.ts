import { spawn } from 'node:child_process';
import { entryArgs, root } from './entry';

/** Run the operators' CLI (`npm run cli -- ...`) as its own process; answers its exit code and output. */
export function runCli(env: Record<string, string>, args: string[], timeoutMs = 30_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...entryArgs('cli'), ...args], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the CLI did not finish within ${timeoutMs} ms:\n${stdout}${stderr}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
