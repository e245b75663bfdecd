import { GoneError, NotFoundError, UnauthorizedError } from '../errors';
import { secretMatches } from './codes';
import type { ActivationRecord } from './store/codes';

/**
 * What a poll and an approval may see of a code. Each throws the project's error class; the API and
 * the page show its sentence.
 */

export type ActivationState = 'waiting' | 'approved' | 'spent' | 'expired';

export function stateOf(a: ActivationRecord, now: number): ActivationState {
  if (a.spentMs !== null) return 'spent';
  if (a.expiresMs <= now) return 'expired';
  return a.approvedUserId === null ? 'waiting' : 'approved';
}

/**
 * The poller must hold the secret, checked before anything else is said about the code (whether it
 * expired, was approved or spent): the code alone is short and shown on screens.
 */
export function authorizePoll(a: ActivationRecord | null, secret: string | null): ActivationRecord {
  if (!a) throw new NotFoundError('There is no such activation code: ask for a new one (POST /api/1.0/activate).');
  if (secret === null) throw new UnauthorizedError('Send the code\'s secret as "Authorization: Secret <secret>" (POST /api/1.0/activate answered it).');
  if (!secretMatches(secret, a.secretHash)) throw new UnauthorizedError('That is not the secret of this activation code.');
  return a;
}

/** A poll past the code's life: expired, or its key already handed out (once only). */
export function refuseFinished(state: ActivationState): void {
  if (state === 'spent') throw new GoneError('This activation code was used already: its key was handed out once. Ask for a new code to log in again.');
  if (state === 'expired') throw new GoneError('This activation code expired (codes last 10 minutes): ask for a new one.');
}

/** What the page says of a code a person typed that cannot be approved; null when it can. */
export function approvalRefusal(a: ActivationRecord | null, now: number): string | null {
  if (!a) return 'There is no such code. Check it on the integration\u2019s screen (6 letters and digits).';
  const state = stateOf(a, now);
  if (state === 'expired') return 'This code expired (codes last 10 minutes): ask the integration for a new one.';
  if (state !== 'waiting') return 'This code was approved already.';
  return null;
}
