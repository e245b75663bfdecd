import { ForbiddenError } from '../errors';

/** A browser may make itself a guest account only where the operator allows guests (ALLOW_GUESTS). */
export function authorizeGuestSignUp(guestsAllowed: boolean): void {
  if (!guestsAllowed) throw new ForbiddenError('Guest accounts are disabled on this server: ask its operator for an API key.');
}
