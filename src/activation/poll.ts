import { issueApiKey, MAX_LIVE_KEYS } from '../users/apiKeys';
import { QuotaExceededError } from '../users/quotas';
import { countLiveKeys, inTransaction, lockUserQuotas } from '../users/store';
import { normalizeCode } from './codes';
import { authorizePoll, refuseFinished, stateOf } from './policy';
import { findActivationByCode, recordIssuedKey, spendActivation } from './store/codes';

/** The label of a key handed out to an integration that gave no name (no X-Extension header). */
export const UNNAMED_INTEGRATION = 'Activation code';

export interface PollAnswer {
  code: string;
  expiresAt: Date;
  /** The new API key, in the one answer that hands it out; null while the code waits for approval. */
  token: string | null;
}

/**
 * GET /activate/{code} with the code's secret: null while it waits; once approved, a new API key for
 * the approving user, labelled with the integration's name, handed out once. The key is made in the
 * transaction that marks the code spent, so two polls at once (or two instances) cannot both get one:
 * the second finds the code spent and hears 410. Past MAX_LIVE_KEYS the poll is refused (409) and the
 * code stays unspent, so a poll after the person revoked a key can still get it.
 */
export async function pollActivation(typedCode: string, secret: string | null, now = Date.now()): Promise<PollAnswer> {
  const code = normalizeCode(typedCode);
  const found = authorizePoll(code ? await findActivationByCode(code) : null, secret);
  const state = stateOf(found, now);
  refuseFinished(state);
  const answer = { code: found.code, expiresAt: new Date(found.expiresMs) };
  if (state === 'waiting') return { ...answer, token: null };
  const label = found.integration ?? UNNAMED_INTEGRATION;
  const token = await inTransaction(async (transaction) => {
    const userId = await spendActivation(found.id, now, transaction);
    if (userId === null) return null;
    await lockUserQuotas(userId, transaction);
    if ((await countLiveKeys(userId, transaction)) >= MAX_LIVE_KEYS) {
      throw new QuotaExceededError(
        `The account that approved this code holds ${MAX_LIVE_KEYS} live API keys, the most allowed: it must revoke one in its developer settings (/account) before this integration can get its key.`,
      );
    }
    const { key, apiKey } = await issueApiKey({ id: userId }, label, transaction);
    await recordIssuedKey(found.id, apiKey.id, transaction);
    return key;
  });
  // Spent (or expired) between the read and the transaction: by another poll, which got the key.
  if (token === null) refuseFinished('spent');
  return { ...answer, token };
}
