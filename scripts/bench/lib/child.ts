import fs from 'node:fs';
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
 * the benchmark cares about (not start-up), through the inspector, written as a .cpuprofile;
 * `{cmd: 'heap-start'}` / `{cmd: 'heap-stop', file}`: the same for allocations (a .heapprofile).
 */
export function answerProfiling(): void {
  let session: import('node:inspector').Session | null = null;
  const onProfiling = async (m: { id?: number; cmd?: string; file?: string; promoted?: boolean }) => {
    if (typeof m.id !== 'number') return;
    const inspector = await import('node:inspector');
    const post = <T>(method: string, params: object = {}) =>
      new Promise<T>((resolve, reject) => session!.post(method, params, (err, result) => (err ? reject(err) : resolve(result as T))));
    /** Open a session and send these commands, in order. */
    const start = async (...commands: Array<[string, object?]>) => {
      session = new inspector.Session();
      session.connect();
      for (const [method, params] of commands) await post(method, params);
      process.send?.({ id: m.id });
    };
    /** Stop with `method`, write the profile it answers to `file`, close the session. */
    const stop = async (method: string, file: string) => {
      const { profile } = await post<{ profile: unknown }>(method);
      fs.writeFileSync(file, JSON.stringify(profile));
      session!.disconnect();
      session = null;
      process.send?.({ id: m.id, file });
    };
    if (m.cmd === 'profile-start') await start(['Profiler.enable'], ['Profiler.setSamplingInterval', { interval: 200 }], ['Profiler.start']);
    // Allocation sampling (every ~32 KiB allocated). `promoted`: only what outlived the young
    // generation (whatever the major collections did with it after), the objects that make major
    // collections come round; otherwise everything allocated.
    else if (m.cmd === 'heap-start')
      await start(
        ['HeapProfiler.enable'],
        ['HeapProfiler.startSampling', { samplingInterval: 32768, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: !m.promoted }],
      );
    else if (m.cmd === 'profile-stop' && session && m.file) await stop('Profiler.stop', m.file);
    else if (m.cmd === 'heap-stop' && session && m.file) await stop('HeapProfiler.stopSampling', m.file);
  };
  // A failed profiling command is printed; the benchmark goes on without that profile.
  process.on('message', (m: { id?: number; cmd?: string; file?: string; promoted?: boolean }) => {
    onProfiling(m).catch((err: unknown) => console.error('profiling command failed:', err));
  });
}

/**
 * IPC `{cmd: 'pauses'}`: the garbage collections and event-loop delay since the last such question
 * (perf_hooks): what a stall of the server seen by the load generator was made of. On Linux also the
 * threads' CPU (/proc/self/task/N/schedstat): how long the main thread ran, how long it was ready to
 * run but waited for the core, and how long the process's other threads ran (V8's GC and compiler
 * workers, libuv's pool). Pinned to one core, those threads take turns with the event loop.
 */
export async function answerPauses(): Promise<void> {
  const { PerformanceObserver, monitorEventLoopDelay, constants } = await import('node:perf_hooks');
  const kinds: Record<number, string> = {
    [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
    [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
    [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
  };
  let gcs: Record<string, { n: number; totalMs: number; maxMs: number }> = {};
  /** Collections over 4 ms or not minor, as [epoch ms at start, kind, ms]: lined up with a run's slow requests. */
  let timeline: Array<[number, string, number]> = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = kinds[(e as unknown as { detail?: { kind?: number } }).detail?.kind ?? -1] ?? 'other';
      if (e.duration > 4 || kind !== 'minor') timeline.push([Math.round(performance.timeOrigin + e.startTime), kind, Math.round(e.duration * 10) / 10]);
      const g = (gcs[kind] ??= { n: 0, totalMs: 0, maxMs: 0 });
      g.n += 1;
      g.totalMs += e.duration;
      g.maxMs = Math.max(g.maxMs, e.duration);
    }
  }).observe({ entryTypes: ['gc'] });
  const takeStalls = watchStalls(Number(process.env.BENCH_TRACE_SLOW_MS || 0));
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  let threads0 = threadTimes();
  process.on('message', (m: { id?: number; cmd?: string }) => {
    if (m.cmd !== 'pauses' || typeof m.id !== 'number') return;
    const round = (x: number) => Math.round(x * 10) / 10;
    const gc = Object.fromEntries(Object.entries(gcs).map(([k, g]) => [k, { n: g.n, totalMs: round(g.totalMs), maxMs: round(g.maxMs) }]));
    const threads1 = threadTimes();
    const t0 = threads0;
    const threads =
      threads1 && t0
        ? {
            mainRanMs: round(threads1.mainRan - t0.mainRan),
            mainWaitedMs: round(threads1.mainWaited - t0.mainWaited),
            othersRanMs: round(threads1.othersRan - t0.othersRan),
          }
        : null;
    process.send?.({
      id: m.id,
      gc,
      timeline,
      stalls: takeStalls(),
      loopDelayMs: { p99: round(loop.percentile(99) / 1e6), max: round(loop.max / 1e6) },
      threads,
    });
    gcs = {};
    timeline = [];
    loop.reset();
    threads0 = threads1;
  });
}

/**
 * IPC `{cmd: 'slow-requests', overMs}`: the requests this server took longer than `overMs` to answer
 * (from the request's first byte parsed to the response's last byte written), since the last such
 * question, as [epoch ms at arrival, ms taken]. Lined up with the load generator's slow requests (same
 * clock: performance.timeOrigin + now()), it tells a wait inside the server from one before it.
 */
export function answerSlowRequests(server: import('node:http').Server): void {
  let slow: Array<[number, number]> = [];
  let seen = 0;
  server.on('request', (_req, res) => {
    const t0 = performance.now();
    seen += 1;
    res.on('finish', () => {
      const ms = performance.now() - t0;
      if (ms > 5) slow.push([performance.timeOrigin + t0, ms]);
    });
  });
  process.on('message', (m: { id?: number; cmd?: string; overMs?: number }) => {
    if (m.cmd !== 'slow-requests' || typeof m.id !== 'number') return;
    const over = m.overMs ?? 0;
    process.send?.({ id: m.id, seen, slow: slow.filter(([, ms]) => ms > over).map(([at, ms]) => [Math.round(at), Math.round(ms * 10) / 10]) });
    slow = [];
    seen = 0;
  });
}

/** An event-loop gap: [epoch ms at its start, gap ms, ms the main thread ran, ms it waited for the core, ms the other threads ran]. */
export type Stall = [number, number, number, number, number];

/**
 * Watch this process's event loop for gaps longer than `overMs` (a 5 ms timer that came late; 0: not
 * watched), and say for each what the process's threads did meanwhile: a loop busy with its own work
 * (ran), from one starved by whatever else held its core (waited). Answers a function that hands over
 * the gaps seen since it was last called.
 */
export function watchStalls(overMs: number): () => Stall[] {
  let stalls: Stall[] = [];
  if (overMs > 0) {
    let last = performance.now();
    let lastTimes = threadTimes();
    setInterval(() => {
      const now = performance.now();
      const times = threadTimes();
      if (now - last > overMs && times && lastTimes) {
        const r = (x: number) => Math.round(x * 10) / 10;
        stalls.push([
          Math.round(performance.timeOrigin + last),
          r(now - last),
          r(times.mainRan - lastTimes.mainRan),
          r(times.mainWaited - lastTimes.mainWaited),
          r(times.othersRan - lastTimes.othersRan),
        ]);
      }
      last = now;
      lastTimes = times;
    }, 5).unref();
  }
  return () => {
    const out = stalls;
    stalls = [];
    return out;
  };
}

/** A stall as printed: "1.45 s 30.8 (ran 7.9, waited 19.3, other threads 0)", from `origin` (epoch ms). */
export const describeStall =
  (origin: number) =>
  ([at, gap, ran, waited, others]: Stall) =>
    `${((at - origin) / 1000).toFixed(2)} s ${gap} (ran ${ran}, waited ${waited}, other threads ${others})`;

interface ThreadTimes {
  mainRan: number;
  mainWaited: number;
  othersRan: number;
}

/** CPU of this process's threads in ms (Linux schedstat: ns on the CPU, ns waiting on a run queue), or null elsewhere. */
function threadTimes(): ThreadTimes | null {
  try {
    const times: ThreadTimes = { mainRan: 0, mainWaited: 0, othersRan: 0 };
    for (const tid of fs.readdirSync('/proc/self/task')) {
      let stat: string;
      try {
        stat = fs.readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8');
      } catch {
        continue; // the thread ended meanwhile
      }
      const [ran, waited] = stat.split(' ').map(Number) as [number, number];
      if (Number(tid) === process.pid) {
        times.mainRan += ran / 1e6;
        times.mainWaited += waited / 1e6;
      } else times.othersRan += ran / 1e6;
    }
    return times;
  } catch {
    return null;
  }
}

/**
 * IPC `{cmd: 'old-generation'}`: what reached V8's old generation since the last such question (the
 * bytes its spaces other than the young one grew by, sampled every 20 ms, drops from major collections
 * left out), and the garbage collections meanwhile. The old generation's growth per request is what
 * sets how often major collections come (bench:gc).
 */
export async function answerOldGeneration(): Promise<void> {
  const v8 = await import('node:v8');
  const { PerformanceObserver, constants } = await import('node:perf_hooks');
  const young = new Set(['new_space', 'new_large_object_space']);
  const oldBytes = () => v8.getHeapSpaceStatistics().reduce((s, space) => (young.has(space.space_name) ? s : s + space.space_used_size), 0);
  let grown = 0;
  let last = oldBytes();
  setInterval(() => {
    const now = oldBytes();
    if (now > last) grown += now - last;
    last = now;
  }, 20).unref();
  let gcs = { major: 0, majorMs: 0, minor: 0, minorMs: 0 };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const major = (e as unknown as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR;
      if (major) {
        gcs.major += 1;
        gcs.majorMs += e.duration;
      } else {
        gcs.minor += 1;
        gcs.minorMs += e.duration;
      }
    }
  }).observe({ entryTypes: ['gc'] });
  process.on('message', (m: { id?: number; cmd?: string }) => {
    if (m.cmd !== 'old-generation' || typeof m.id !== 'number') return;
    const now = oldBytes();
    if (now > last) grown += now - last;
    last = now;
    process.send?.({ id: m.id, grownBytes: grown, ...gcs });
    grown = 0;
    gcs = { major: 0, majorMs: 0, minor: 0, minorMs: 0 };
  });
}
