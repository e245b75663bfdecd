/**
 * Micro-benchmarks through tinybench: the tasks of one Bench run one after another (warm-up, then
 * calls until both a time budget and an iteration count are met), each call timed on its own.
 */
import { Bench, type Fn } from 'tinybench';
import { ownCpuMicros } from './processes';
import { median } from './stats';

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
  max: number;
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
    out[task.name] = { mean: r.latency.mean, p50: r.latency.p50, p99: r.latency.p99, max: r.latency.max, calls: task.runs };
  }
  return out;
}

/**
 * A task whose one call runs `fn` `times` times: a call under a microsecond would be mostly the clock's
 * own cost, timed on its own. Divide what it measures by `times`.
 */
export function batched(fn: () => unknown, times: number): Fn {
  return () => {
    for (let i = 0; i < times; i++) fn();
  };
}

/**
 * `rounds` runs of the same tasks, so that the machine's drift falls on each task alike (within a run,
 * tinybench times one task to its end before the next); per task, the median over rounds of its mean ms
 * per call.
 */
export async function medianOfRounds(tasks: Record<string, Fn>, rounds: number, options: MicroOptions = {}): Promise<Record<string, number>> {
  const means: Record<string, number[]> = {};
  for (let r = 0; r < rounds; r++) {
    for (const [name, result] of Object.entries(await runMicro(tasks, options))) (means[name] ??= []).push(result.mean);
  }
  return Object.fromEntries(Object.entries(means).map(([name, ms]) => [name, median(ms)]));
}
