import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SHIPPED = path.join(root, 'deploy/nginx.conf');

/** Debian's nginx binary, or null when the package is not installed (apt-get install nginx). */
export function nginxBinary(): string | null {
  for (const candidate of ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx']) if (fs.existsSync(candidate)) return candidate;
  const found = spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : null;
}

export interface RunningNginx {
  port: number;
  url: string;
  /** The access log's lines so far, in the shipped format. */
  accessLog(): string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * The shipped deploy/nginx.conf, as is, except what only the compose network has: the upstream
 * servers become `upstreamPort` on 127.0.0.1, `listen 80` a free local port, and the pid, logs (the
 * access log as `dir`/access.log) and temporary files go to a directory of the test's own. The
 * `location` block (the headers nginx sets) and the log format are the file's, untouched: that is what
 * the tests are about.
 */
export function shippedConfigFor(upstreamPort: number, port: number, dir: string): string {
  const shipped = fs.readFileSync(SHIPPED, 'utf8');
  let servers = 0;
  let config = shipped.replace(/^(\s*)server\s+app\d+:3000\b[^;]*;/gm, (_line, indent: string) =>
    servers++ === 0 ? `${indent}server 127.0.0.1:${upstreamPort};` : '',
  );
  if (servers === 0) throw new Error('deploy/nginx.conf has no "server appN:3000" upstream lines: update test/helpers/nginx.ts');
  if (!/listen 80;/.test(config)) throw new Error('deploy/nginx.conf does not "listen 80;": update test/helpers/nginx.ts');
  config = config.replace('listen 80;', `listen 127.0.0.1:${port};`);
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((name) => `  ${name}_temp_path ${dir}/${name};`).join('\n');
  // The shipped access log (its format kept) goes to the test's directory: tests read it.
  config = config.replace(/^(\s*)access_log\s+\S+/m, `$1access_log ${dir}/access.log`);
  config = config.replace(/http\s*\{/, `http {\n${temp}\n`);
  return `pid ${dir}/nginx.pid;\nerror_log ${dir}/error.log warn;\n${config}`;
}

/** nginx in the foreground with the shipped configuration, in front of a service on `upstreamPort`. */
export async function startShippedNginx(binary: string, upstreamPort: number): Promise<RunningNginx> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dice-nginx-'));
  // Run as root, nginx's workers are `nobody`: they must reach the temporary files under this directory.
  fs.chmodSync(dir, 0o755);
  const port = await freePort();
  fs.writeFileSync(path.join(dir, 'nginx.conf'), shippedConfigFor(upstreamPort, port, dir));
  const check = spawnSync(binary, ['-t', '-p', dir, '-c', path.join(dir, 'nginx.conf')], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`nginx refused the shipped configuration:\n${check.stderr}`);
  const child: ChildProcess = spawn(binary, ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => (s.destroy(), resolve(true)));
      s.once('error', () => resolve(false));
    });
    if (up) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`nginx did not start: ${stderr}${fs.existsSync(`${dir}/error.log`) ? fs.readFileSync(`${dir}/error.log`, 'utf8') : ''}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    accessLog: () => (fs.existsSync(`${dir}/access.log`) ? fs.readFileSync(`${dir}/access.log`, 'utf8') : ''),
    async stop() {
      // SIGQUIT: nginx's graceful stop; its workers go with it.
      if (child.exitCode === null) child.kill('SIGQUIT');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
