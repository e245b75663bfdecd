import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** Cores of this machine; pinning needs at least two and taskset. */
export function cpuCount(): number {
  return os.cpus().length;
}

let tasksetOk: boolean | null = null;
export function hasTaskset(): boolean {
  if (tasksetOk === null) {
    try {
      execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
      tasksetOk = true;
    } catch {
      tasksetOk = false;
    }
  }
  return tasksetOk;
}

/** Which cores the servers get and which the load generator (this process) gets. */
export interface CorePlan {
  server: string;
  load: string;
  pinned: boolean;
}

/** Server on core 0, load on the last core; unpinned (and said so) on a single core or without taskset. */
export function planCores(): CorePlan {
  const n = cpuCount();
  if (n < 2 || !hasTaskset()) return { server: '', load: '', pinned: false };
  return { server: '0', load: String(n - 1), pinned: true };
}

/** Move this process (all its threads) onto `cores`, so the load generator stays off the server's core. */
export function pinSelf(cores: string): void {
  if (!cores) return;
  execFileSync('taskset', ['-a', '-p', '-c', cores, String(process.pid)], { stdio: 'ignore' });
}

export interface ChildHandle {
  child: ChildProcess;
  pid: number;
  /** The first message the child sent over IPC (its "ready" message). */
  ready: Promise<Record<string, unknown>>;
  /** Send a request over IPC and wait for the reply with the same id. */
  ask<T = Record<string, unknown>>(message: Record<string, unknown>, timeoutMs?: number): Promise<T>;
  stop(): Promise<void>;
  output(): string;
}

let nextId = 1;

/** The service as a benchmark child (lib/serve.ts): spawnTs gives it the node flags it ships with. */
const SERVICE_ENTRY = 'scripts/bench/lib/serve.ts';

/**
 * The node flags `npm start` gives the service (package.json's start script, which the Dockerfile's
 * CMD repeats: test/ops/startFlags.test.ts), so that every benchmark runs it as operators do.
 */
export const SERVICE_NODE_ARGS: string[] = (() => {
  const start = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const [command, ...args] = start.split(/\s+/);
  return command === 'node' ? args.filter((a) => a.startsWith('--') && !a.startsWith('--import')) : [];
})();

/**
 * Run a TypeScript entry point with `node --import=tsx`, pinned to `cores` with taskset when given.
 * The child talks over IPC: it sends `{type: 'ready', ...}` once, and answers `{id, ...}` requests.
 * taskset execs node, so the IPC descriptor and the pid carry through.
 */
export function spawnTs(
  entry: string,
  options: { cores?: string; env?: Record<string, string>; nodeArgs?: string[]; readyTimeoutMs?: number } = {},
): ChildHandle {
  const shipped = entry === SERVICE_ENTRY ? SERVICE_NODE_ARGS : [];
  const node = [process.execPath, ...shipped, ...(options.nodeArgs ?? []), '--import=tsx', path.resolve(root, entry)];
  const [cmd, ...args] = options.cores ? ['taskset', '-c', options.cores, ...node] : node;
  const child = spawn(cmd!, args, {
    cwd: root,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let out = '';
  // BENCH_CHILD_LOG=DIR: also write every child's output to DIR/<entry>-<pid>.log (for post-mortems).
  const logDir = process.env.BENCH_CHILD_LOG;
  const logFile = logDir ? path.join(logDir, `${path.basename(entry, '.ts')}-${child.pid}.log`) : null;
  if (logDir) fs.mkdirSync(logDir, { recursive: true });
  const keep = (c: Buffer) => {
    if (logFile) fs.appendFileSync(logFile, c);
    out += c.toString();
    if (out.length > 200_000) out = out.slice(-100_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const pending = new Map<number, (m: Record<string, unknown>) => void>();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${entry} not ready within ${options.readyTimeoutMs ?? 30_000} ms:\n${out}`)),
      options.readyTimeoutMs ?? 30_000,
    );
    child.on('message', (m: Record<string, unknown>) => {
      if (m.type === 'ready') {
        clearTimeout(timer);
        resolve(m);
      } else if (typeof m.id === 'number') {
        pending.get(m.id)?.(m);
        pending.delete(m.id);
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited (${child.exitCode ?? child.signalCode}):\n${out}`));
    });
  });
  ready.catch(() => undefined);
  return {
    child,
    pid: child.pid!,
    ready,
    ask<T>(message: Record<string, unknown>, timeoutMs = 60_000) {
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer to ${JSON.stringify(message)}`)), timeoutMs);
        pending.set(id, (m) => {
          clearTimeout(timer);
          resolve(m as T);
        });
        child.send({ ...message, id });
      });
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
    output: () => out,
  };
}

/** BENCH_SERVER_NODE_ARGS: node flags for the servers under test, the service and its baseline alike (e.g. V8 GC flags). */
export const SERVER_NODE_ARGS = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** "load 1.23 0.98 0.50": the machine's load averages, printed with every result (a busy machine skews them). */
export function loadLine(): string {
  return `load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} on ${cpuCount()} cores`;
}

/**
 * Client sockets whose server goes away mid-handshake can raise ECONNRESET from the websocket
 * library with no listener attached; in a benchmark that is not a reason to lose the report.
 */
export function tolerateSocketResets(): void {
  let told = false;
  process.on('uncaughtException', (err: Error & { code?: string; type?: string }) => {
    const reset = err.code === 'ECONNRESET' || err.type === 'TransportError' || /ECONNRESET|socket hang up/.test(String(err.message));
    if (!reset) throw err;
    if (!told) console.log(`(ignored a client socket reset: ${err.message})`);
    told = true;
  });
}

export const TICKS_PER_SECOND = 100; // USER_HZ on Linux
const PAGE_BYTES = 4096;

/** What the benches read of a process's /proc/<pid>/stat (Linux): its name, parent, CPU and resident set. */
export interface ProcessStat {
  comm: string;
  ppid: number;
  /** user + system, seconds */
  cpuSeconds: number;
  rssBytes: number;
}

/** /proc/<pid>/stat parsed, the one place the benches read another process's CPU; null when it is gone. */
export function processStat(pid: number): ProcessStat | null {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The name is in parentheses and may hold spaces: the fields are counted from the last ')'.
  const close = stat.lastIndexOf(')');
  const fields = stat.slice(close + 2).split(' ');
  return {
    comm: stat.slice(stat.indexOf('(') + 1, close),
    ppid: Number(fields[1]),
    cpuSeconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND, // utime, stime (fields 14, 15)
    rssBytes: Number(fields[21]) * PAGE_BYTES, // rss (field 24), pages
  };
}

/** CPU seconds (user + system) a process has used, from /proc; 0 when it is gone. */
export function cpuSecondsOf(pid: number): number {
  return processStat(pid)?.cpuSeconds ?? 0;
}

/** CPU microseconds (user + system) this process has used since `since` (an earlier reading), or in all. */
export function ownCpuMicros(since = 0): number {
  const u = process.cpuUsage();
  return u.user + u.system - since;
}

/** CPU seconds used so far by every process named `name` (e.g. all PostgreSQL backends), by pid. */
export function cpuByName(name: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = processStat(Number(entry));
    if (stat?.comm === name) out.set(Number(entry), stat.cpuSeconds);
  }
  return out;
}

/** CPU seconds used between two cpuByName() readings (processes started in between count from zero). */
export function cpuSpent(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, s] of after) total += s - (before.get(pid) ?? 0);
  return total;
}
