/**
 * Micro-benchmarks through tinybench: the tasks of one Bench run one after another (warm-up, then
 * calls until both a time budget and an iteration count are met), each call timed on its own.
 */
import { Bench, type Fn } from 'tinybench';
import { ownCpuMicros } from './processes';

export interface MicroOptions {
  /** Time budget per task, ms of the clock below (tinybench's default: 1000). */
  time?: number;
  /** Minimum calls per task (tinybench's default: 64). */
  iterations?: number;
  /** Calls before timing starts (JIT, caches); tinybench's default when absent. */
  warmupIterations?: number;
  /** Time calls in this process's CPU time instead of wall time: other processes on a shared machine then count against neither side. */
  cpuTime?: boolean;
}

/** What one task measured, in ms per call. */
export interface MicroResult {
  mean: number;
  p50: number;
  p99: number;
  calls: number;
}

/** Runs `tasks` in order in one Bench; their results by name (a task that threw fails the whole run). */
export async function runMicro(tasks: Record<string, Fn>, options: MicroOptions = {}): Promise<Record<string, MicroResult>> {
  const { cpuTime, ...limits } = options;
  const bench = new Bench({ ...limits, throws: true, ...(cpuTime ? { now: () => ownCpuMicros() / 1000 } : {}) });
  for (const [name, fn] of Object.entries(tasks)) bench.add(name, fn);
  await bench.run();
  const out: Record<string, MicroResult> = {};
  for (const task of bench.tasks) {
    const r = task.result;
    if (r.state !== 'completed') throw new Error(`micro-benchmark ${task.name}: ${r.state}`);
    out[task.name] = { mean: r.latency.mean, p50: r.latency.p50, p99: r.latency.p99, calls: task.runs };
  }
  return out;
}
