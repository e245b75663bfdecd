import { randomInt } from 'node:crypto';
import type { TestFn } from 'ava';
import { Redis } from 'ioredis';
import { TEST_REDIS_URL } from '../helpers/env';

/**
 * The fault tests run in the PostgreSQL pass, where Redis is present (scripts/test.sh). They fail
 * rather than skip without it: a fault test that never runs proves nothing.
 */
export function requireRedisUrl(): string {
  if (!TEST_REDIS_URL) throw new Error('test/faults needs TEST_REDIS_URL (run through scripts/test.sh, or set it by hand).');
  return TEST_REDIS_URL;
}

/**
 * A Redis logical database of this test's own, emptied first. Rate-limit counters are keyed by API key
 * id and client address, which every test database and every spawned instance on 127.0.0.1 share:
 * in database 0 one test file would spend another's budget. (Pub/sub is not per database; the
 * Socket.IO channels carry random room slugs, so instances of other files do not hear ours.)
 */
/**
 * A Redis of this test's own: a database picked at random and a REDIS_PREFIX no other run uses. Pass
 * `env` to the instances. The prefix is what isolates (pub/sub channels are shared by every database
 * of a server, and two runs may pick the same database), so nothing is flushed.
 */
export async function isolatedRedis(): Promise<{
  url: string;
  prefix: string;
  env: { REDIS_URL: string; REDIS_PREFIX: string; PUSHER_APP_SECRET: string };
  client: Redis;
  close(): Promise<void>;
}> {
  const base = new URL(requireRedisUrl());
  base.pathname = `/${randomInt(1, 16)}`;
  const url = base.toString();
  const prefix = `t${randomInt(1e9, 1e10)}:`;
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await client.connect();
  return {
    url,
    prefix,
    env: { REDIS_URL: url, REDIS_PREFIX: prefix, PUSHER_APP_SECRET: 'test-pusher-secret-0123456789' },
    client,
    close: async () => void (await client.quit().catch(() => undefined)),
  };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Poll `check` every `everyMs` until it is truthy or `timeoutMs` passes; answers the last result. */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 15_000, everyMs = 100): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last = await check();
  while (!last && Date.now() < end) {
    await sleep(everyMs);
    last = await check();
  }
  return last;
}

/** Rolls posted in a loop until stopped: what each answered, for "REST keeps answering". */
export function rollLoop(post: (i: number) => Promise<{ status: number; body: any; text: string }>, pauseMs = 20) {
  const uuids: string[] = [];
  const failures: string[] = [];
  const latencies: number[] = [];
  let running = true;
  let i = 0;
  const done = (async () => {
    while (running) {
      const n = i++;
      const start = Date.now();
      try {
        const res = await post(n);
        latencies.push(Date.now() - start);
        if (res.status === 201) uuids.push(res.body.data.uuid);
        else failures.push(`roll ${n}: ${res.status} ${res.text.slice(0, 200)}`);
      } catch (err) {
        failures.push(`roll ${n}: ${(err as Error).message}`);
      }
      await sleep(pauseMs);
    }
  })();
  return {
    uuids,
    failures,
    latencies,
    async stop() {
      running = false;
      await done;
    },
  };
}

/** Uuids of the RollCreateEvents a client received, in order. */
export function rollUuids(events: { event: string; payload: any }[]): string[] {
  return events.filter((e) => e.event === 'RollCreateEvent').map((e) => e.payload.data.uuid as string);
}

/** Entries that occur more than once. */
export function duplicates(items: string[]): string[] {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const i of items) (seen.has(i) ? twice : seen).add(i);
  return [...twice];
}

/**
 * Undo steps for a test file (servers, proxies, Redis clients): run after its last test, the last
 * pushed first, each failure ignored so the others still run.
 */
export function teardownSteps(test: TestFn): Array<() => Promise<unknown>> {
  const steps: Array<() => Promise<unknown>> = [];
  test.after.always(async () => {
    for (const step of steps.reverse()) await step().catch(() => undefined);
  });
  return steps;
}
