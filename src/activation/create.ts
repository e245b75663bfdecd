import { ServiceUnavailableError } from '../errors';
import { ACTIVATION_TTL_MS, hashSecret, newCode, newSecret } from './codes';
import { countLiveActivations, insertActivation } from './store/codes';

/** Live codes the whole server holds at most (each is a row): past it, creation waits for some to expire. */
export const MAX_LIVE_ACTIVATIONS = 10_000;
/** How long an expired row stays, so that a late poll hears 410 (expired), not 404. */
const KEEP_EXPIRED_MS = 60 * 60_000;

export interface NewActivationCode {
  code: string;
  secret: string;
  expiresAt: Date;
}

/**
 * A new code for an integration (named by its X-Extension header, or null). The secret is answered
 * here only; the row keeps its hash. A drawn code that is taken is drawn again (a few times: with
 * fewer than MAX_LIVE_ACTIVATIONS rows among 887 million codes, a second draw is rare already).
 */
export async function createActivation(integration: string | null, now = Date.now()): Promise<NewActivationCode> {
  if ((await countLiveActivations(now)) >= MAX_LIVE_ACTIVATIONS) {
    throw new ServiceUnavailableError('Too many activation codes are waiting to be approved on this server: try again in a few minutes.');
  }
  const secret = newSecret();
  const expiresMs = now + ACTIVATION_TTL_MS;
  for (let attempt = 0; attempt < 5; attempt++) {
    const code = newCode();
    if (await insertActivation({ code, secretHash: hashSecret(secret), integration, createdMs: now, expiresMs }, KEEP_EXPIRED_MS)) {
      return { code, secret, expiresAt: new Date(expiresMs) };
    }
  }
  throw new ServiceUnavailableError('No free activation code was found: try again.');
}
