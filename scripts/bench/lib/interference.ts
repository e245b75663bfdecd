import fs from 'node:fs';
import { processStat, TICKS_PER_SECOND } from './processes';

/**
 * What else ran on the machine while a block was measured. A benchmark's tail moves with any process
 * that takes a core for a few tens of milliseconds, and this 2-core machine runs services of its own.
 * So each block is bracketed by two readings of every process's CPU time (/proc), and what processes
 * outside the benchmark took is reported by name: a run is clean when they, and the hypervisor's other
 * guests (stolen time), took under CLEAN_SHARE of a core in every block, a figure the run prints
 * itself rather than a judgement made after reading its result.
 *
 * Counted as the benchmark's own: its process and every descendant, and the servers under test
 * (PostgreSQL backends, Redis). Kernel threads (children of kthreadd) are reported apart: most of
 * their time (ksoftirqd, kworker) is the loopback traffic of the benchmark itself.
 */
export const CLEAN_SHARE = 0.05;

const UNDER_TEST = new Set(['postgres', 'redis-server']);

interface Proc {
  comm: string;
  ppid: number;
  cpu: number;
}

/** every process's CPU, and the machine's stolen time (s): what the hypervisor gave other guests while this one wanted its cores */
export type Reading = { at: number; procs: Map<number, Proc>; steal: number };

/** Stolen CPU seconds since boot, over all cores (/proc/stat, the 8th figure of the `cpu` line); 0 where unknown. */
function stolen(): number {
  try {
    const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/);
    return Number(fields[8] ?? 0) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

export function readProcesses(): Reading {
  const procs = new Map<number, Proc>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = processStat(Number(entry)); // null: gone between readdir and read
    if (stat) procs.set(Number(entry), { comm: stat.comm, ppid: stat.ppid, cpu: stat.cpuSeconds });
  }
  return { at: Date.now(), procs, steal: stolen() };
}

export interface Interference {
  /** CPU seconds per second of the phase taken by processes outside the benchmark (1 = one whole core) */
  share: number;
  /** the same for kernel threads */
  kernelShare: number;
  /** the same for time stolen by the hypervisor (other guests of the host) */
  stealShare: number;
  /** the largest outside consumers, "name 12 ms/s" */
  top: string[];
  clean: boolean;
}

/** What processes outside the benchmark took between two readings (processes born in between count from zero). */
export function interference(before: Reading, after: Reading): Interference {
  const seconds = Math.max(0.001, (after.at - before.at) / 1000);
  const ours = descendantsOf(process.pid, after.procs);
  const byName = new Map<string, number>();
  let foreign = 0;
  let kernel = 0;
  for (const [pid, p] of after.procs) {
    if (ours.has(pid) || UNDER_TEST.has(p.comm)) continue;
    const spent = p.cpu - (before.procs.get(pid)?.cpu ?? 0);
    if (spent <= 0) continue;
    if (pid === 2 || p.ppid === 2) kernel += spent;
    else {
      foreign += spent;
      byName.set(p.comm, (byName.get(p.comm) ?? 0) + spent);
    }
  }
  const top = [...byName]
    .sort((x, y) => y[1] - x[1])
    .slice(0, 3)
    .map(([name, s]) => `${name} ${Math.round((s / seconds) * 1000)} ms/s`);
  const share = foreign / seconds;
  const stealShare = Math.max(0, after.steal - before.steal) / seconds;
  return { share, kernelShare: kernel / seconds, stealShare, top, clean: share + stealShare < CLEAN_SHARE };
}

/** CPU seconds the processes `pick` chooses used between two readings (processes born in between count from zero). */
export function cpuOf(before: Reading, after: Reading, pick: (pid: number, comm: string) => boolean): number {
  let total = 0;
  for (const [pid, p] of after.procs) if (pick(pid, p.comm)) total += Math.max(0, p.cpu - (before.procs.get(pid)?.cpu ?? 0));
  return total;
}

export function describe(i: Interference): string {
  return `other processes took ${(i.share * 100).toFixed(1)}% of a core${i.top.length ? ` (${i.top.join(', ')})` : ''}, kernel threads ${(i.kernelShare * 100).toFixed(1)}%, stolen by the hypervisor ${(i.stealShare * 100).toFixed(1)}%: ${i.clean ? 'clean' : `NOT clean (over ${CLEAN_SHARE * 100}%)`}`;
}

function descendantsOf(root: number, procs: Map<number, Proc>): Set<number> {
  const children = new Map<number, number[]>();
  for (const [pid, p] of procs) {
    const list = children.get(p.ppid);
    if (list) list.push(pid);
    else children.set(p.ppid, [pid]);
  }
  const out = new Set<number>([root]);
  const stack = [root];
  while (stack.length) {
    for (const child of children.get(stack.pop()!) ?? []) {
      if (!out.has(child)) {
        out.add(child);
        stack.push(child);
      }
    }
  }
  // And what started it (tsx's launcher, `npm run`, the shell), up to init.
  for (let up = procs.get(root)?.ppid; up !== undefined && up > 1; up = procs.get(up)?.ppid) out.add(up);
  return out;
}
