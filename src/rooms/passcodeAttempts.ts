import { RateLimitError } from '../errors';
import { WrongPasscodeError } from './policy';
import type { AppDeps } from '../http/deps';
import { failOpen } from '../http/rateLimit';

const HOUR_MS = 3_600_000;

/** Runs one request that checks a passcode, counting it as a guess when the passcode is wrong. */
export type PasscodeAttempt = <T>(userId: number, slug: string, passcode: string | null | undefined, run: () => Promise<T>) => Promise<T>;

/**
 * Wrong passcodes per user and room (PASSCODE_FAILURES_PER_HOUR), in the rate-limit store (Redis when
 * shared, so every instance counts the same guesses). Owners may choose 4-character passcodes: without
 * this, one key tried 1,100 in 2.5 s.
 *
 * Every attempt that carries a passcode is counted *before* the passcode is compared, and given back
 * when the answer was anything but "wrong passcode" (joined, already a participant, a public room...).
 * Counting first is what holds under concurrency: 1,000 guesses sent at once take counts 1..1,000
 * atomically, and only the first `limit` are ever compared; counting after a wrong answer would let a
 * burst through before the first count landed. Past the limit the answer is 429 with Retry-After,
 * right passcode or not, so a blocked guesser learns nothing. A failing store lets attempts through
 * (as every limit does; logged once per outage by failOpen).
 */
export function passcodeAttempts(deps: Pick<AppDeps, 'config' | 'logger' | 'rateLimitStore'>): PasscodeAttempt {
  const store = failOpen(deps.rateLimitStore, deps.logger);
  const limit = deps.config.passcodeFailuresPerHour;
  return async (userId, slug, passcode, run) => {
    if (!passcode) return run();
    const key = `passcode:${userId}:${slug}`;
    const counted = await store.hit(key, HOUR_MS, limit);
    if (counted && counted.count > limit) throw new RateLimitError(Math.max(1, Math.ceil(counted.resetMs / 1000)));
    let wrong = false;
    try {
      return await run();
    } catch (err) {
      wrong = err instanceof WrongPasscodeError;
      throw err;
    } finally {
      if (counted && !wrong) await store.unhit(key);
    }
  };
}
