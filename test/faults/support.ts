import { randomInt } from 'node:crypto';
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
export async function isolatedRedis(): Promise<{ url: string; client: Redis; close(): Promise<void> }> {
  const base = new URL(requireRedisUrl());
  base.pathname = `/${randomInt(1, 16)}`;
  const url = base.toString();
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await client.connect();
  await client.flushdb();
  return { url, client, close: async () => void (await client.quit().catch(() => undefined)) };
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
