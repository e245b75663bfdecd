import { ConflictError, ForbiddenError, ValidationError } from '../errors';
import { PASSWORD_MAX, PASSWORD_MIN } from './passwords';

/** Who may do what on the account pages. Each throws the project's error class; the pages show its sentence. */

/** Sign-up is the operator's choice (ALLOW_SIGNUP); the CLI still creates users. */
export function authorizeSignUp(allowSignup: boolean): void {
  if (!allowSignup) throw new ForbiddenError('Sign-up is turned off on this server: ask its operator for an account.');
}

/** Only a guest may be claimed: a registered account already has its username and password. */
export function authorizeClaim(isRegistered: boolean): void {
  if (isRegistered) throw new ConflictError('This account is already registered: sign in with its username and password.', 'already_registered');
}

/** Guest usernames are made by createGuest: nobody may take one, or a future guest would collide. */
export function checkNewUsername(username: string): void {
  if (username.toLowerCase().startsWith('guest-'))
    throw new ValidationError([{ path: 'username', message: 'username may not start with "guest-": that prefix names guests.' }]);
}

export function checkNewPassword(password: string): void {
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) {
    throw new ValidationError([{ path: 'password', message: `password must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters long.` }]);
  }
}
