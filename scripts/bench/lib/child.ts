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
