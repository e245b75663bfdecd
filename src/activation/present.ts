import { ts } from '../http/time';
import type { NewActivationCode } from './create';
import type { PollAnswer } from './poll';

/**
 * The activation answers, as the dddice SDK reads them (`user.activate()` reads `data.code`,
 * `data.secret`, `data.expires_at`; its poll reads `data.token`), in the API's `{type, data}` envelope.
 */

export interface ActivationCode {
  code: string;
  secret: string;
  expires_at: string;
}

export interface ActivationPoll {
  code: string;
  expires_at: string;
  token: string | null;
}

export function presentNewActivation(a: NewActivationCode): ActivationCode {
  return { code: a.code, secret: a.secret, expires_at: ts(a.expiresAt) };
}

export function presentPoll(a: PollAnswer): ActivationPoll {
  return { code: a.code, expires_at: ts(a.expiresAt), token: a.token };
}
