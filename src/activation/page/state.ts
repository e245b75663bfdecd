/**
 * What the server hands the /activate page (JSON in #app's data-page, escaped with escape-html): the
 * script (page/main.ts) renders everything from it with Preact, every value as text.
 */
export type Step = 'enter' | 'confirm' | 'done';

export interface ActivatePageState {
  step: Step;
  /** The forms' CSRF token (the session's: accounts/csrf.ts). */
  csrf: string;
  /** The signed-in user's username (the header, and the sentence once approved). */
  signedInAs: string;
  error?: string;
  /** The code as typed or given in `?code=` (enter), or the code to approve (confirm, done). */
  code?: string;
  /** The name the integration gave (its X-Extension header), or null when it gave none. */
  integration?: string | null;
  /** When the code expires (confirm). */
  expiresAt?: string;
}
