import { ConflictError } from '../errors';
import { MAX_LIVE_KEYS } from '../users/apiKeys';
import { listLiveApiKeys, type UserRecord } from '../users/store';
import { approvalRefusal } from './policy';
import { approveActivation, findActivationByCode, type ActivationRecord } from './store/codes';

/** A code as the page shows it before approval: which integration asks. */
export interface PendingActivation {
  code: string;
  integration: string | null;
  expiresAt: string;
}

/** The code the person typed, if it can be approved now; otherwise the sentence saying why not. */
export async function findPending(
  code: string,
  now = Date.now(),
): Promise<{ pending: PendingActivation; record: ActivationRecord } | { refusal: string; found: boolean }> {
  const record = await findActivationByCode(code);
  const refusal = approvalRefusal(record, now);
  if (!record || refusal !== null) return { refusal: refusal ?? '', found: record !== null };
  return { pending: { code: record.code, integration: record.integration, expiresAt: new Date(record.expiresMs).toISOString() }, record };
}

/**
 * The signed-in user approves the code: the integration's next poll gets a key of theirs. Refused
 * when they hold MAX_LIVE_KEYS already (the key could not be made), and when the code stopped being
 * approvable since the page was shown (approved by someone else, expired).
 */
export async function approve(user: Pick<UserRecord, 'id'>, record: ActivationRecord, now = Date.now()): Promise<void> {
  if ((await listLiveApiKeys(user.id)).length >= MAX_LIVE_KEYS) {
    throw new ConflictError(
      `You hold ${MAX_LIVE_KEYS} live API keys, the most allowed: revoke one in your developer settings, then approve again.`,
      'quota_exceeded',
    );
  }
  if (!(await approveActivation(record.id, user.id, now))) {
    throw new ConflictError('This code cannot be approved any more (it expired, or was approved already): ask the integration for a new one.');
  }
}
