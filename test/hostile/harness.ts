import type { ExecutionContext } from 'ava';
import { send as sendRequest, type Api } from '../helpers/http';
import { generate, type HostileRequest, type Ids, type Target } from './requests';
import { Rng, runSeed } from './prng';

export const SEED = runSeed();
/** Requests per test; HOSTILE_COUNT scales the whole run. */
export const COUNT = Number(process.env.HOSTILE_COUNT || 300);
/** HOSTILE_ONLY=3,17: send only these requests of each run (still generated in order, so the same ones). */
const ONLY = process.env.HOSTILE_ONLY ? new Set(process.env.HOSTILE_ONLY.split(',').map(Number)) : null;
/** A request that takes longer than this is a hang. */
const HANG_MS = 30_000;

let announced = false;
export function announceSeed(file: string) {
  if (announced) return;
  announced = true;
  console.log(`hostile input (${file}): seed ${SEED} — replay with HOSTILE_SEED=${SEED}; ${COUNT} requests per test`);
}

export interface Outcome {
  status: number;
  ms: number;
  /** Set when the request broke a rule (5xx, hang, malformed error body). */
  problem?: string;
}

/** Send one request; never throws: a network error or a hang is an outcome with a problem. */
export async function send(base: string, key: string | null, req: HostileRequest): Promise<Outcome> {
  const headers = { ...req.headers };
  if (key) headers.authorization = `Bearer ${key}`;
  const start = Date.now();
  try {
    const res = await sendRequest(`${base}/api/1.0${req.path}`, { method: req.method, headers, body: req.body, signal: AbortSignal.timeout(HANG_MS) });
    const text = res.text;
    const ms = Date.now() - start;
    if (res.status >= 500) return { status: res.status, ms, problem: `answered ${res.status}: ${text.slice(0, 300)}` };
    if (res.status >= 400 && res.status !== 431) {
      let body: { type?: string; data?: { code?: unknown; message?: unknown } } | null = null;
      try {
        body = JSON.parse(text);
      } catch {
        return { status: res.status, ms, problem: `a ${res.status} without a JSON error body: ${text.slice(0, 200)}` };
      }
      if (body?.type !== 'error' || typeof body.data?.code !== 'string' || typeof body.data?.message !== 'string') {
        return { status: res.status, ms, problem: `a ${res.status} whose body is not {type: "error", data: {code, message}}: ${text.slice(0, 200)}` };
      }
      if (/\bat .+\.(ts|js):\d+/.test(text)) return { status: res.status, ms, problem: 'a stack trace in an error body' };
    }
    return { status: res.status, ms };
  } catch (err) {
    const ms = Date.now() - start;
    const e = err as Error & { code?: string };
    const code = e.code;
    if (e.name === 'TimeoutError') return { status: 0, ms, problem: `no answer within ${HANG_MS} ms (hung)` };
    // The server may close the connection on a request it refuses to read (e.g. a huge upload):
    // acceptable only if it still answers afterwards, which the health check after the run asserts.
    return {
      status: 0,
      ms,
      problem: code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' ? undefined : `network error ${e.message} ${code ?? ''}`,
    };
  }
}

export function describe(i: number, req: HostileRequest): string {
  return `#${i} ${req.method} ${req.path.slice(0, 200)}${req.path.length > 200 ? '…' : ''} [${req.what.join('; ')}]`;
}

/** What must not change: the JSON of some GETs, read by their owners. */
export type Snapshot = () => Promise<string>;

export function snapshotOf(reads: Array<{ api: Api; path: string }>): Snapshot {
  return async () => {
    const parts: string[] = [];
    for (const { api, path } of reads) {
      // One retry: after refusing a large upload mid-stream the server closes that connection, and
      // the client's pool may hand the dead one to the next request.
      const res = await api.get(path).catch(() => api.get(path));
      parts.push(`${path} ${res.status} ${res.text}`);
    }
    return parts.join('\n');
  };
}

export interface HostileRun {
  t: ExecutionContext;
  base: string;
  targets: Target[];
  /** The caller's own ids and other users' ids. */
  ids: Ids;
  key: string;
  /** Requests as the owner of `ids.own` (sequential, each refused write checked against the snapshot), or as a stranger. */
  mode: 'own' | 'others';
  snapshot: Snapshot;
  label: string;
  count?: number;
}

/**
 * Send `count` generated requests; assert none is a 5xx, none hangs, every error has the error
 * body, and that nothing a refused request touched changed (snapshot before and after). Stranger
 * runs go 8 at a time and compare once at the end (all of them must be refused or read-only);
 * owner runs go one at a time and compare around every refused write.
 */
export async function runHostile(run: HostileRun): Promise<Map<number, number>> {
  const { t, base, targets, ids, key, mode, snapshot, label } = run;
  const count = run.count ?? COUNT;
  const rng = new Rng(SEED).fork(label);
  const statuses = new Map<number, number>();
  const problems: string[] = [];
  const generated = Array.from({ length: count }, () => generate(rng, rng.pick(targets), ids, mode));
  // Replaying some by index keeps their numbers: skipped ones become holes.
  const requests = ONLY ? generated.map((r, i) => (ONLY.has(i) ? r : null)) : generated;
  const keyFor = (i: number) => (i % 53 === 0 ? null : i % 59 === 0 ? 'dk_' + 'A'.repeat(43) : key);

  if (mode === 'others') {
    const before = await snapshot();
    let next = 0;
    const successes: string[] = [];
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < requests.length) {
          const i = next++;
          const req = requests[i];
          if (!req) continue;
          const outcome = await send(base, keyFor(i), req);
          statuses.set(outcome.status, (statuses.get(outcome.status) ?? 0) + 1);
          if (outcome.problem) problems.push(`${describe(i, req)}: ${outcome.problem}`);
          if (outcome.status >= 200 && outcome.status < 300 && req.method !== 'GET') successes.push(describe(i, req));
        }
      }),
    );
    const after = await snapshot();
    if (after !== before) problems.push(`the other user's state changed (writes that succeeded: ${successes.slice(0, 5).join(' | ') || 'none'})`);
  } else {
    let current = await snapshot();
    for (let i = 0; i < requests.length; i++) {
      const req = requests[i];
      if (!req) continue;
      const outcome = await send(base, keyFor(i), req);
      statuses.set(outcome.status, (statuses.get(outcome.status) ?? 0) + 1);
      if (outcome.problem) problems.push(`${describe(i, req)}: ${outcome.problem}`);
      if (req.method === 'GET') continue;
      const now = await snapshot();
      const refused = outcome.status >= 400 || outcome.status === 0;
      if (refused && now !== current) problems.push(`${describe(i, req)}: refused with ${outcome.status} but the state changed`);
      current = now;
    }
  }
  if (ONLY) for (const i of ONLY) if (requests[i]) t.log(`replayed ${describe(i, requests[i]!)}`);
  t.log(
    `${label}: ${count} requests, statuses ${[...statuses]
      .sort((a, b) => a[0] - b[0])
      .map(([s, n]) => `${s}×${n}`)
      .join(' ')} (seed ${SEED})`,
  );
  if (problems.length) t.fail(`${problems.length} problem(s), seed ${SEED}:\n${problems.slice(0, 15).join('\n')}`);
  else t.pass();
  return statuses;
}

/** The server still answers, and a plain valid request still works. */
export async function assertHealthy(t: ExecutionContext, base: string, api: Api) {
  const ready = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(10_000) });
  t.is(ready.status, 200, 'ready after the hostile run');
  const me = await api.get('/user');
  t.is(me.status, 200, 'a valid request still works');
}
