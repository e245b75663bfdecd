import { RateLimitError } from '../errors';
import type { AppDeps } from '../http/deps';
import { failOpen } from '../http/rateLimit';

const HOUR_MS = 3_600_000;

/** Runs one look-up of a typed code and answers it; `exists` tells a hit from a miss (a guess). */
export type CodeAttempt = <T>(userId: number, address: string, run: () => Promise<T>, exists: (result: T) => boolean) => Promise<T>;

/**
 * Codes typed at /activate that match no code, per account (ACTIVATION_FAILURES_PER_HOUR) and per
 * client address (ACTIVATION_ADDRESS_FAILURES_PER_HOUR), in the rate-limit store (Redis when shared).
 * As sign-in's wrong passwords (accounts/signInAttempts.ts): counted before the look-up and given back
 * when the code exists, so a burst sent at once cannot slip past the count; past either limit the
 * answer is 429, existing code or not. With 10 a person can mistype a few times an hour, and a
 * guesser needs some 88 million tries to meet one code among ten live ones.
 */
export function codeAttempts(deps: Pick<AppDeps, 'config' | 'logger' | 'rateLimitStore'>): CodeAttempt {
  const store = failOpen(deps.rateLimitStore, deps.logger);
  const perAccount = deps.config.activationFailuresPerHour;
  const perAddress = deps.config.activationAddressFailuresPerHour;
  return async (userId, address, run, exists) => {
    const accountKey = `activate:user:${userId}`;
    const addressKey = `activate:addr:${address}`;
    const account = await store.hit(accountKey, HOUR_MS, perAccount);
    const byAddress = await store.hit(addressKey, HOUR_MS, perAddress);
    const over = [account && account.count > perAccount ? account.resetMs : 0, byAddress && byAddress.count > perAddress ? byAddress.resetMs : 0];
    if (over.some((ms) => ms > 0)) throw new RateLimitError(Math.max(1, Math.ceil(Math.max(...over) / 1000)));
    let found = false;
    try {
      const result = await run();
      found = exists(result);
      return result;
    } finally {
      if (found) {
        if (account) await store.unhit(accountKey);
        if (byAddress) await store.unhit(addressKey);
      }
    }
  };
}
