/** IPC answers every benchmark child gives: memory after a full collection (run with --expose-gc). */
export function answerMemory(extra: () => Record<string, unknown> = () => ({})): void {
  process.on('message', (m: { id?: number; cmd?: string }) => {
    if (m.cmd !== 'memory' || typeof m.id !== 'number') return;
    const gc = (globalThis as { gc?: () => void }).gc;
    if (gc) for (let i = 0; i < 3; i++) gc();
    process.send?.({ id: m.id, ...process.memoryUsage(), gc: Boolean(gc), ...extra() });
  });
}

/**
 * IPC `{cmd: 'profile-start'}` / `{cmd: 'profile-stop', file}`: a V8 CPU profile of just the part
 * the benchmark cares about (not start-up), through the inspector, written as a .cpuprofile.
 */
export function answerProfiling(): void {
  let session: import('node:inspector').Session | null = null;
  process.on('message', async (m: { id?: number; cmd?: string; file?: string }) => {
    if (typeof m.id !== 'number') return;
    const inspector = await import('node:inspector');
    const post = <T>(method: string, params: object = {}) =>
      new Promise<T>((resolve, reject) => session!.post(method, params, (err, result) => (err ? reject(err) : resolve(result as T))));
    if (m.cmd === 'profile-start') {
      session = new inspector.Session();
      session.connect();
      await post('Profiler.enable');
      await post('Profiler.setSamplingInterval', { interval: 200 });
      await post('Profiler.start');
      process.send?.({ id: m.id });
    } else if (m.cmd === 'profile-stop' && session && m.file) {
      const { profile } = await post<{ profile: unknown }>('Profiler.stop');
      const fs = await import('node:fs');
      fs.writeFileSync(m.file, JSON.stringify(profile));
      session.disconnect();
      session = null;
      process.send?.({ id: m.id, file: m.file });
    }
  });
}

/**
 * IPC `{cmd: 'pauses'}`: the garbage collections and event-loop delay since the last such question
 * (perf_hooks): what a stall of the server seen by the load generator was made of.
 */
export async function answerPauses(): Promise<void> {
  const { PerformanceObserver, monitorEventLoopDelay, constants } = await import('node:perf_hooks');
  const kinds: Record<number, string> = { [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major', [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor', [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental', [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb' };
  let gcs: Record<string, { n: number; totalMs: number; maxMs: number }> = {};
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = kinds[(e as unknown as { detail?: { kind?: number } }).detail?.kind ?? -1] ?? 'other';
      const g = (gcs[kind] ??= { n: 0, totalMs: 0, maxMs: 0 });
      g.n += 1;
      g.totalMs += e.duration;
      g.maxMs = Math.max(g.maxMs, e.duration);
    }
  }).observe({ entryTypes: ['gc'] });
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  process.on('message', (m: { id?: number; cmd?: string }) => {
    if (m.cmd !== 'pauses' || typeof m.id !== 'number') return;
    const round = (x: number) => Math.round(x * 10) / 10;
    const gc = Object.fromEntries(Object.entries(gcs).map(([k, g]) => [k, { n: g.n, totalMs: round(g.totalMs), maxMs: round(g.maxMs) }]));
    process.send?.({ id: m.id, gc, loopDelayMs: { p99: round(loop.percentile(99) / 1e6), max: round(loop.max / 1e6) } });
    gcs = {};
    loop.reset();
  });
}
