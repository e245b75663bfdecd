import { RateLimitError } from '../errors';
import type { AppDeps } from '../http/deps';
import { failOpen } from '../http/rateLimit';

const HOUR_MS = 3_600_000;

/** Runs one password check, counting it as a failure when it answers false. */
export type PasswordAttempt = (username: string, address: string, check: () => Promise<boolean>) => Promise<boolean>;

/**
 * Wrong passwords per account (SIGNIN_FAILURES_PER_HOUR) and per client address
 * (SIGNIN_ADDRESS_FAILURES_PER_HOUR; the address by the trusted-proxy rule, http/clientAddress.ts), in the
 * rate-limit store (Redis when shared). As rooms/passcodeAttempts.ts: every attempt is counted before the
 * password is compared and given back when it was right, so a burst sent at once cannot slip past the
 * count. Past either limit the answer is 429, right password or not. The account's count is keyed by the
 * username typed, whether or not such a user exists, so the limit itself says nothing about which exist.
 */
export function signInAttempts(deps: Pick<AppDeps, 'config' | 'logger' | 'rateLimitStore'>): PasswordAttempt {
  const store = failOpen(deps.rateLimitStore, deps.logger);
  const perAccount = deps.config.signinFailuresPerHour;
  const perAddress = deps.config.signinAddressFailuresPerHour;
  return async (username, address, check) => {
    const accountKey = `signin:user:${username.toLowerCase()}`;
    const addressKey = `signin:addr:${address}`;
    const account = await store.hit(accountKey, HOUR_MS, perAccount);
    const byAddress = await store.hit(addressKey, HOUR_MS, perAddress);
    const giveBack = async () => {
      if (account) await store.unhit(accountKey);
      if (byAddress) await store.unhit(addressKey);
    };
    const over = [account && account.count > perAccount ? account.resetMs : 0, byAddress && byAddress.count > perAddress ? byAddress.resetMs : 0];
    if (over.some((ms) => ms > 0)) throw new RateLimitError(Math.max(1, Math.ceil(Math.max(...over) / 1000)));
    let right = false;
    try {
      right = await check();
      return right;
    } finally {
      if (right) await giveBack();
    }
  };
}
